//! No log line at any level carries a secret: the `blog-gateway` binary at TRACE (the local
//! store's signed URLs, tokens, passwords), and the stack's function binaries at TRACE (the AWS
//! SDK's signing, S3's presigned URLs, Secrets Manager's answers).

use std::{
    net::TcpListener,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_blog-gateway");
const ACTUATOR_TOKEN: &str = "actuator-token-never-logged-0123";
const ADMIN_PASSWORD: &str = "NeverLogged1234";
/// A login that is a password typed into the wrong field.
const MISTYPED_LOGIN: &str = "MyPassw0rd-in-the-name-field";

/// A client of the API at `base`.
struct Client {
    base: String,
    http: reqwest::Client,
    actuator_token: Option<String>,
}

impl Client {
    async fn send(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let url =
            if url.starts_with('/') { format!("{}{url}", self.base) } else { url.to_string() };
        let mut request = self.http.request(method, url);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the API answers");
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }
}

/// The upload flow of a client, a failed login, a preview link and the actuator: the secrets
/// seen on the way.
async fn exercise(client: &Client, admin_password: &str) -> Vec<String> {
    let mut secrets = vec![admin_password.to_string()];
    let wrong = json!({"username": MISTYPED_LOGIN, "password": "Wrong1234"});
    assert_eq!(client.send("POST", "/api/v1/auth/login", None, Some(wrong)).await.0, 401);
    let login = json!({"username": crate::support::ADMIN.0, "password": admin_password});
    let (status, body) = client.send("POST", "/api/v1/auth/login", None, Some(login)).await;
    assert_eq!(status, 200, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_string();
    secrets.push(token.clone());
    let bytes = crate::files::steps::payload("logged bytes");
    let request = json!({"fileName": "a.png", "fileSize": bytes.len(), "fileType": "image/png"});
    let (status, presigned) =
        client.send("POST", "/api/v1/files/presigned", Some(&token), Some(request)).await;
    assert_eq!(status, 200, "{presigned}");
    let data = &presigned["data"];
    let upload_url = data["uploadUrl"].as_str().unwrap().to_string();
    secrets.extend(signatures(&upload_url));
    let put = client.http.put(&upload_url).header("content-type", "image/png").body(bytes.clone());
    assert_eq!(put.send().await.unwrap().status().as_u16(), 200);
    let id = data["fileId"].as_str().unwrap();
    let confirm = format!("/api/v1/files/{id}/confirm");
    assert_eq!(client.send("PATCH", &confirm, Some(&token), None).await.0, 200);
    let access = format!("/api/v1/files/{id}/access-url");
    let access_url = client.send("GET", &access, Some(&token), None).await.1["data"]
        .as_str()
        .unwrap()
        .to_string();
    secrets.extend(signatures(&access_url));
    let downloaded = client.http.get(&access_url).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(downloaded.to_vec(), bytes);
    // A preview link: its token opens a draft, and its read carries it in the path.
    let draft = json!({"title": "Logged draft", "content": "x"});
    let (status, created) =
        client.send("POST", "/api/v1/admin/articles", Some(&token), Some(draft)).await;
    assert_eq!(status, 200, "{created}");
    let preview = format!("/api/v1/admin/articles/{}/preview", created["data"].as_str().unwrap());
    let (status, link) = client.send("POST", &preview, Some(&token), None).await;
    assert_eq!(status, 200, "{link}");
    let path = link["data"]["path"].as_str().unwrap().to_string();
    assert_eq!(client.send("GET", &path, None, None).await.0, 200, "the preview");
    secrets.push(link["data"]["token"].as_str().unwrap().to_string());
    let actuator = client.actuator_token.as_deref();
    let (status, health) = client.send("GET", "/actuator/health", actuator, None).await;
    assert_eq!(status, 200, "{health}");
    secrets.extend(client.actuator_token.clone());
    secrets
}

/// The values of a signed URL's secret query parameters.
fn signatures(url: &str) -> Vec<String> {
    let secret = ["signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token"];
    let url = reqwest::Url::parse(url).expect("a URL");
    let values: Vec<String> = url
        .query_pairs()
        .filter(|(name, _)| secret.contains(&name.to_ascii_lowercase().as_str()))
        .map(|(_, value)| value.into_owned())
        .collect();
    assert!(!values.is_empty(), "a signed URL: {url}");
    values
}

fn assert_no_secret(log: &str, secrets: &[String]) {
    let lines = log.lines().count();
    assert!(lines > 20, "TRACE logs plenty ({lines} lines):\n{log}");
    // The failed login is logged by a digest of the name, and the name (a password typed in
    // the wrong field) shows nowhere, in any case: no request body reaches the log at any level
    // (the Lambda runtime's dump of each raw event, which redaction could not catch in a
    // base64-encoded body, and the AWS SDK's of each table request, a key holding the lower-
    // cased name, are capped away).
    let failed: Vec<&str> = log.lines().filter(|line| line.contains("failed login")).collect();
    assert_eq!(failed.len(), 1, "one failed login logged");
    let mistyped = MISTYPED_LOGIN.to_lowercase();
    if let Some(line) = log.lines().find(|line| line.to_lowercase().contains(&mistyped)) {
        panic!("the mistyped login is in the log: {line}");
    }
    if let Some(line) = log.lines().find(|line| line.contains("raw JSON event")) {
        panic!("a raw event is in the log: {line}");
    }
    for secret in secrets {
        // Percent-encoded or not, no piece of the secret longer than a few characters.
        let decoded = secret.replace("%2F", "/");
        for shown in [secret.as_str(), decoded.as_str()] {
            if let Some(line) = log.lines().find(|line| line.contains(shown)) {
                panic!("a secret ({} characters) is in the log: {line}", shown.len());
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_at_trace_logs_no_signature_token_or_password() {
    let data = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    let log_path = data.path().join("gateway.log");
    let mut child = Command::new(BIN)
        .arg("serve")
        .env_clear()
        .env("BLOG_DATA_DIR", data.path().join("data"))
        .env("BLOG_PORT", port.to_string())
        .env("BLOG_PUBLIC_BASE_URL", &base)
        .env("BLOG_ADMIN_USERNAME", crate::support::ADMIN.0)
        .env("BLOG_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env("BLOG_ADMIN_EMAIL", crate::support::ADMIN.2)
        .env("BLOG_ACTUATOR_TOKEN", ACTUATOR_TOKEN)
        .env("BLOG_LOG", "trace")
        .stdout(Stdio::from(std::fs::File::create(&log_path).unwrap()))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the gateway starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the gateway did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let client = Client {
        base,
        http: crate::support::http_client(),
        actuator_token: Some(ACTUATOR_TOKEN.to_string()),
    };
    let secrets = exercise(&client, ADMIN_PASSWORD).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_no_secret(&std::fs::read_to_string(&log_path).unwrap(), &secrets);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn the_stack_functions_at_trace_log_no_signature_token_or_password() {
    let stack = crate::support::stack::start(&[("LogLevel", "trace")]).await;
    let client = Client {
        base: stack.url().to_string(),
        http: crate::support::http_client(),
        actuator_token: Some(stack.secret_value("ActuatorTokenSecret").await.unwrap()),
    };
    let mut secrets = exercise(&client, crate::support::ADMIN.1).await;
    secrets.push(stack.secret_value("JwtSecret").await.unwrap());
    let mut log = String::new();
    for (logical_id, _) in stack.function_names() {
        log.extend(
            stack.function(&logical_id).unwrap().logs().lines().into_iter().map(|l| l + "\n"),
        );
    }
    assert_no_secret(&log, &secrets);
    crate::support::stack::finish(
        &stack,
        "the_stack_functions_at_trace_log_no_signature_token_or_password",
    );
}
