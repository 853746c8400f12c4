//! The `blog-gateway` binary as `make dev` runs it: administrator from the environment, data
//! that survives a restart, the `create-admin` subcommand, and a schedule its own timer fires.

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use super::free_port;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_blog-gateway");

/// The gateway binary with `args`, on `data_dir` and `port`, administrator `boss`.
pub(super) fn gateway(data_dir: &Path, port: u16, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_clear()
        .env("BLOG_DATA_DIR", data_dir)
        .env("BLOG_PORT", port.to_string())
        .env("BLOG_ADMIN_USERNAME", "boss")
        .env("BLOG_ADMIN_PASSWORD", "Boss12345")
        .env("BLOG_ADMIN_EMAIL", "boss@example.com")
        .env("BLOG_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

/// A running gateway, killed when dropped.
pub(super) struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the gateway on `data_dir` and waits until it listens on `port`.
pub(super) async fn start(data_dir: &Path, port: u16) -> Running {
    start_with(data_dir, port, &[]).await
}

/// Starts the gateway with `vars` beside the usual ones and waits until it listens.
async fn start_with(data_dir: &Path, port: u16, vars: &[(&str, &str)]) -> Running {
    let mut command = gateway(data_dir, port, &["serve"]);
    command.envs(vars.iter().copied());
    let child = command.spawn().expect("gateway starts");
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "gateway did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    running
}

async fn post(port: u16, path: &str, body: Value) -> (u16, Value) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let response = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

/// A login's status and answer.
pub(super) async fn login(port: u16, username: &str, password: &str) -> (u16, Value) {
    post(port, "/api/v1/auth/login", json!({"username": username, "password": password})).await
}

#[tokio::test]
async fn accounts_survive_a_restart_and_the_admin_comes_from_the_environment() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    {
        let _gateway = start(data.path(), port).await;
        let (status, body) = login(port, "boss", "Boss12345").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["user"]["roles"], json!(["ROLE_USER", "ROLE_ADMIN"]));
        let register =
            json!({"username": "keeper", "password": "Passw0rd1", "email": "k@example.com"});
        assert_eq!(post(port, "/api/v1/auth/register", register).await.0, 200);
    }
    let _gateway = start(data.path(), port).await;
    let (status, body) = login(port, "keeper", "Passw0rd1").await;
    assert_eq!(status, 200, "the account survived the restart: {body}");
    assert_eq!(login(port, "boss", "Boss12345").await.0, 200, "one administrator, still there");
}

#[tokio::test]
async fn the_create_admin_subcommand_creates_an_administrator_once() {
    let data = tempfile::tempdir().unwrap();
    let args = [
        "create-admin",
        "--username",
        "chief",
        "--password",
        "Chief1234",
        "--email",
        "c@example.com",
    ];
    let first = gateway(data.path(), 0, &args).output().unwrap();
    assert!(first.status.success());
    assert!(String::from_utf8_lossy(&first.stdout).contains("created"));
    let second = gateway(data.path(), 0, &args).output().unwrap();
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stdout).contains("exists already"));

    let bad = gateway(
        data.path(),
        0,
        &["create-admin", "--username", "x", "--password", "weak", "--email", "e"],
    )
    .output()
    .unwrap();
    assert!(!bad.status.success(), "invalid administrator values are refused");

    let port = free_port();
    let _gateway = start(data.path(), port).await;
    let (status, body) = login(port, "chief", "Chief1234").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["user"]["roles"], json!(["ROLE_USER", "ROLE_ADMIN"]));
}

#[tokio::test]
async fn the_data_directory_its_database_and_secrets_are_private_and_a_shared_secret_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let port = free_port();
    {
        let _gateway = start(&data, port).await;
        assert_eq!(login(port, "boss", "Boss12345").await.0, 200);
    }
    assert_eq!(mode(&data), 0o700, "the data directory");
    for file in ["jwt-secret", "blob-signing-key", "blog.db", "blog.db-wal", "blog.db-shm"] {
        if file.starts_with("blog.db-") && !data.join(file).exists() {
            continue;
        }
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    let secret = data.join("jwt-secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refused = gateway(&data, free_port(), &["serve"]).stderr(Stdio::piped()).output().unwrap();
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("jwt-secret can be read by other users"), "{message}");
}

/// A request that must succeed: its JSON answer.
pub(super) async fn call(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> Value {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request =
        reqwest::Client::new().request(method, format!("http://127.0.0.1:{port}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if !body.is_null() {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    assert!(response.status().is_success(), "{path}: {}", response.status());
    response.json().await.unwrap()
}

/// A GET of `path` by the client `agent` (its `User-Agent`): the answer's body.
async fn read_as(port: u16, path: &str, agent: &str) -> Value {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let request = reqwest::Client::new().get(format!("http://127.0.0.1:{port}{path}"));
    let response = request.header("user-agent", agent).send().await.unwrap();
    assert!(response.status().is_success(), "{path}: {}", response.status());
    response.json().await.unwrap()
}

#[tokio::test]
async fn views_counted_in_memory_are_written_when_the_gateway_stops() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let detail;
    {
        let mut gateway = start(data.path(), port).await;
        let token = login(port, "boss", "Boss12345").await.1["data"]["token"].clone();
        let token = token.as_str().unwrap().to_string();
        let draft = json!({"title": "Read before a stop", "content": "x"});
        let created = call(port, "POST", "/api/v1/admin/articles", Some(&token), draft).await;
        let id = created["data"].as_str().unwrap().to_string();
        let publish = format!("/api/v1/admin/articles/{id}/publish");
        call(port, "PUT", &publish, Some(&token), Value::Null).await;
        detail = format!("/api/v1/articles/{id}");
        // Three readers (each reader's views of an article count once in 30 minutes).
        for reader in ["first", "second", "third"] {
            read_as(port, &detail, reader).await;
        }
        // A clean stop (SIGTERM, as `make dev`'s Ctrl-C or a service manager sends) right
        // after the reads, before the periodic write: the views are written on the way out.
        let pid = gateway.0.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = gateway.0.wait().unwrap();
        assert!(status.success(), "the gateway stops cleanly: {status}");
    }
    // The next start's first sweep moves them to the article.
    let _gateway = start(data.path(), port).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        // Read by the first reader again, which counts no more.
        let views = read_as(port, &detail, "first").await["data"]["viewCount"].clone();
        if views == json!(3) {
            break;
        }
        assert!(Instant::now() < deadline, "viewCount {views}, not 3");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test]
async fn the_gateway_publishes_a_scheduled_draft_at_its_time_on_its_own() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let _gateway = start_with(data.path(), port, &[("BLOG_SCHEDULE_PERIOD_SECONDS", "2")]).await;
    let token = login(port, "boss", "Boss12345").await.1["data"]["token"].clone();
    let token = token.as_str().unwrap().to_string();
    let draft = json!({"title": "On its own", "content": "x"});
    let created = call(port, "POST", "/api/v1/admin/articles", Some(&token), draft).await;
    let id = created["data"].as_str().unwrap().to_string();
    let at =
        (chrono::Utc::now() + chrono::Duration::seconds(3)).format("%Y-%m-%dT%H:%M:%S").to_string();
    let schedule = format!("/api/v1/admin/articles/{id}/schedule");
    call(port, "PUT", &schedule, Some(&token), json!({"publishAt": at})).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let client = reqwest::Client::new();
    let detail = loop {
        let url = format!("http://127.0.0.1:{port}/api/v1/articles/{id}");
        let response = client.get(url).send().await.unwrap();
        if response.status() == 200 {
            break response.json::<Value>().await.unwrap();
        }
        assert!(Instant::now() < deadline, "the scheduled draft was never published");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let published = detail["data"]["publishTime"].as_str().unwrap().to_string();
    assert!(published >= at, "published at {published}, scheduled at {at}");
}
