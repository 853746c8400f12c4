//! The stack's Lambda Invoke API and `blog-stack invoke` (`make invoke`): a function reached by
//! its binary, logical id or name, answering as Lambda does (404 for an unknown function, the
//! function's errors as `X-Amz-Function-Error`); a sample rendered (tokens by logins, the
//! actuator's from the serving file) and invoked with cargo-lambda, which prints the answer; a
//! placeholder without a value or a stack not running stopping it before anything is invoked.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::Arc,
};

use blog_stack::{invoke_api, serving::Serving, Stack};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_blog-stack");
const ADMIN: (&str, &str, &str) = ("admin", "Admin12345", "admin@example.com");
const PLACEHOLDERS: [&str; 10] = [
    "ADMIN_TOKEN",
    "USER_TOKEN",
    "USER_ID",
    "ACTUATOR_TOKEN",
    "CATEGORY_ID",
    "TAG_ID",
    "ARTICLE_ID",
    "FILE_ID",
    "COMMENT_ID",
    "REPORT_ID",
];

/// `blog-stack invoke <args>` from the workspace, no placeholder given by the environment.
fn make_invoke(args: &[&str]) -> Output {
    let workspace = blog_stack::testing::workspace();
    let mut command = Command::new(BIN);
    command.current_dir(&workspace).arg("invoke").args(args);
    for name in PLACEHOLDERS.iter().chain(&["BLOG_STACK_INVOKE_PORT", "BLOG_STACK_SERVING_FILE"]) {
        command.env_remove(name);
    }
    command.env("BLOG_ADMIN_USERNAME", ADMIN.0).env("BLOG_ADMIN_PASSWORD", ADMIN.1);
    command.output().expect("blog-stack runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blog-invoke-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_placeholder_no_variable_fills_stops_make_invoke_naming_where_its_value_comes_from() {
    // What would be the stack's API and Invoke API: nothing may connect to it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let dir = scratch();
    let serving = dir.join("serving.json").to_string_lossy().into_owned();
    let url = format!("http://127.0.0.1:{port}");
    let output = make_invoke(&[
        "comments",
        "events/comments/update.json",
        "--url",
        &url,
        "--invoke-port",
        &port,
        "--serving-file",
        &serving,
    ]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("nothing was invoked"), "{message}");
    assert!(
        message.contains(
            "{{COMMENT_ID}}: give COMMENT_ID=<id>: `data.id` of the `comments/create.json` response"
        ),
        "{message}"
    );
    assert!(!message.contains("ADMIN_TOKEN"), "a login would fill it: {message}");
    let connection = listener.accept();
    assert!(connection.is_err(), "nothing was asked of the stack: {connection:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn make_invoke_with_no_stack_serving_says_to_start_make_stack_first() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = scratch();
    let serving = dir.join("serving.json").to_string_lossy().into_owned();
    let port = port.to_string();
    let output = make_invoke(&[
        "ops",
        "events/ops/liveness.json",
        "--invoke-port",
        &port,
        "--serving-file",
        &serving,
    ]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("start `make stack` first"), "{message}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A stack of its own with its Invoke API on a free port.
async fn stack_with_invoke_api() -> (Arc<Stack>, u16) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let options = blog_stack::testing::options(ADMIN, &[]).unwrap();
    let stack = Arc::new(Stack::start(options).await.unwrap());
    let bound = invoke_api::bind(Some(0)).await.unwrap();
    let port = bound.port();
    invoke_api::serve(bound, &stack);
    (stack, port)
}

fn sample(file: &str) -> String {
    let path = blog_stack::testing::workspace().join("events").join(file);
    std::fs::read_to_string(path).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn the_invoke_api_reaches_a_function_by_any_of_its_names_and_answers_as_lambda_does() {
    let (stack, port) = stack_with_invoke_api().await;
    let client = reqwest::Client::new();
    let invoke = |name: &str, body: String, signed: bool| {
        let url = format!("http://127.0.0.1:{port}/2015-03-31/functions/{name}/invocations");
        let mut request = client.post(url).body(body);
        if signed {
            let credential = "Credential=test/20250101/us-east-1/lambda/aws4_request";
            request = request.header("authorization", format!("AWS4-HMAC-SHA256 {credential}"));
        }
        request.send()
    };
    let name = stack.reference("OpsFunction").unwrap().to_string();
    let arn = stack.attribute("OpsFunction", "Arn").unwrap().to_string();
    for name in ["ops", "OpsFunction", &name, &arn, "ops:$LATEST"] {
        let answer = invoke(name, sample("ops/liveness.json"), false).await.unwrap();
        assert_eq!(answer.status(), 200, "{name}");
        assert!(answer.headers().get("x-amz-function-error").is_none(), "{name}");
        let result: Value = answer.json().await.unwrap();
        assert_eq!(result["statusCode"], json!(200), "{name}: {result}");
    }
    let unknown = invoke("nope", "{}".into(), false).await.unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(unknown.headers()["x-amzn-errortype"], "ResourceNotFoundException");
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(body["Type"], json!("User"), "{body}");
    let message = body["Message"].as_str().unwrap();
    assert!(
        message
            .starts_with("Function not found: arn:aws:lambda:us-east-1:123456789012:function:nope"),
        "{message}"
    );
    assert_eq!(body["errorType"], json!("ResourceNotFoundException"), "cargo-lambda reads it");
    let garbled = invoke("ops", "{not json".into(), false).await.unwrap();
    assert_eq!(garbled.status(), 400);
    assert_eq!(garbled.headers()["x-amzn-errortype"], "InvalidRequestContentException");
    // The worker refuses a schedule's input: a function error.
    for (signed, status) in [(true, 200), (false, 500)] {
        let failed = invoke("worker", sample("outbox-sweep/scheduled.json"), signed).await.unwrap();
        assert_eq!(failed.status(), status, "signed: {signed}");
        assert_eq!(failed.headers()["x-amz-function-error"], "Unhandled");
        let error: Value = failed.json().await.unwrap();
        assert!(error["errorType"].is_string() && error["errorMessage"].is_string(), "{error}");
    }
    let violations = stack.iam_violations();
    assert!(violations.is_empty(), "AccessDenied in AWS:\n{}", violations.join("\n"));
}

/// `blog-stack invoke` of `args` on a blocking thread, against the serving file `serving`.
async fn invoke_through_cargo_lambda(serving: &Path, function: &str, event: &str) -> Output {
    let serving = serving.to_string_lossy().into_owned();
    let (function, event) = (function.to_string(), format!("events/{event}"));
    tokio::task::spawn_blocking(move || {
        make_invoke(&[&function, &event, "--serving-file", &serving])
    })
    .await
    .unwrap()
}

/// The HTTP API response cargo-lambda printed, and the JSON of its body.
fn printed(output: &Output) -> (Value, Value) {
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}\n{}", stderr(output));
    let response: Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    let body = serde_json::from_str(response["body"].as_str().unwrap_or("null")).unwrap();
    (response, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn make_invoke_renders_a_samples_placeholders_and_cargo_lambda_prints_the_answer() {
    let (stack, port) = stack_with_invoke_api().await;
    let state = stack.options().state_dir.clone();
    let token_file = state.join("actuator-token");
    std::fs::write(&token_file, stack.secret_value("ActuatorTokenSecret").await.unwrap()).unwrap();
    let serving = state.join("serving.json");
    Serving {
        url: stack.url().to_string(),
        invoke_port: port,
        actuator_token_file: token_file,
        pid: std::process::id(),
    }
    .write(&serving)
    .unwrap();
    // {{USER_TOKEN}}: event_user registered and logged in; a second time it exists already.
    for _ in 0..2 {
        let output = invoke_through_cargo_lambda(&serving, "users", "users/get-me.json").await;
        let (response, body) = printed(&output);
        assert_eq!(response["statusCode"], json!(200), "{response}");
        assert_eq!(body["data"]["username"], json!("event_user"), "{body}");
    }
    // {{ADMIN_TOKEN}} and {{USER_ID}}, by the logical id.
    let output =
        invoke_through_cargo_lambda(&serving, "UsersFunction", "users/get-user.json").await;
    let (response, body) = printed(&output);
    assert_eq!(response["statusCode"], json!(200), "{response}");
    assert_eq!(body["data"]["username"], json!("event_user"), "{body}");
    // {{ACTUATOR_TOKEN}}: the details are shown to its bearer only.
    let output = invoke_through_cargo_lambda(&serving, "ops", "ops/health-component.json").await;
    let (response, body) = printed(&output);
    assert_eq!(response["statusCode"], json!(200), "{response}");
    assert!(body["details"].is_object(), "{body}");
    // A function error: cargo-lambda prints its message and fails.
    let output =
        invoke_through_cargo_lambda(&serving, "worker", "outbox-sweep/scheduled.json").await;
    assert!(!output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    let violations = stack.iam_violations();
    assert!(violations.is_empty(), "AccessDenied in AWS:\n{}", violations.join("\n"));
}
