//! The Bedrock adapter of the embedder port against a stub of Bedrock Runtime's `InvokeModel`
//! served by the test itself (no emulator, no AWS): the stub records every request, checks its
//! body has Titan V2's shape and answers with the model's response shape, a wrong one, or an
//! error.
#![cfg(feature = "bedrock")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::{
    BehaviorVersion, Credentials, Region, SharedCredentialsProvider,
};
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use blog_api::ports::aws::SdkConfig;
use blog_api::ports::embedder::bedrock::{BedrockEmbedder, DEFAULT_MODEL_ID};
use blog_api::ports::embedder::Embedder;
use serde_json::{json, Value};

/// Attempts per call the test clients make (so a retried error shows as two requests).
const MAX_ATTEMPTS: u32 = 2;

/// One request the stub received.
#[derive(Clone, Debug)]
struct Recorded {
    method: Method,
    /// Path as sent, still percent-encoded.
    path: String,
    headers: HeaderMap,
    body: Value,
}

impl Recorded {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
    }
}

/// What the stub answers to a well-formed request.
#[derive(Clone, Copy)]
enum Answer {
    /// `{"embedding": [3, 4, 0, ...], "inputTextTokenCount": 3}` of this length (not normalised).
    Embedding(usize),
    /// A body without `embedding`.
    Malformed,
    /// A service error.
    Error(StatusCode, &'static str),
}

struct Stub {
    endpoint: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Stub {
    async fn start(answer: Answer) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let recorded = recorded.clone();
                async move { respond(answer, &recorded, method, uri, headers, &body) }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let endpoint = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("stub server") });
        Self { endpoint, requests }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    fn embedder(&self, model_id: &str, dimensions: usize) -> BedrockEmbedder {
        BedrockEmbedder::from_config(&sdk_config(), model_id, dimensions, Some(&self.endpoint))
            .expect("embedder")
    }
}

/// Records the request; answers 400 `ValidationException` unless its body has Titan V2's
/// request shape, else `answer`.
fn respond(
    answer: Answer,
    recorded: &Mutex<Vec<Recorded>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: &[u8],
) -> Response {
    let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let well_formed = body["inputText"].is_string()
        && body["dimensions"].is_u64()
        && body["normalize"] == json!(true)
        && body.as_object().is_some_and(|o| o.len() == 3);
    recorded.lock().unwrap().push(Recorded { method, path: uri.path().to_owned(), headers, body });
    if !well_formed {
        return error(StatusCode::BAD_REQUEST, "ValidationException", "stub: malformed request");
    }
    match answer {
        Answer::Embedding(len) => {
            let mut embedding = vec![0.0f32; len];
            embedding[..2].copy_from_slice(&[3.0, 4.0]);
            let body = json!({ "embedding": embedding, "inputTextTokenCount": 3 });
            ([("content-type", "application/json")], body.to_string()).into_response()
        }
        Answer::Malformed => {
            ([("content-type", "application/json")], r#"{"embeddings":[]}"#).into_response()
        }
        Answer::Error(status, code) => error(status, code, "stub: failing as asked"),
    }
}

/// An error as Bedrock Runtime sends it (REST-JSON: the code in `x-amzn-errortype`).
fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let headers = [("content-type", "application/json"), ("x-amzn-errortype", code)];
    (status, headers, json!({ "message": message }).to_string()).into_response()
}

/// Static test credentials, region us-east-1, fast retries.
fn sdk_config() -> SdkConfig {
    let credentials = Credentials::new("AKIDTEST", "test-secret", None, None, "blog-tests");
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(SharedCredentialsProvider::new(credentials))
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(MAX_ATTEMPTS)
                .with_initial_backoff(Duration::from_millis(1)),
        )
        .build()
}

/// `[0.6, 0.8, 0, ...]`: the stub's `[3, 4, 0, ...]` normalised.
fn expected(dimensions: usize) -> Vec<f32> {
    let mut v = vec![0.0; dimensions];
    v[..2].copy_from_slice(&[0.6, 0.8]);
    v
}

fn assert_close(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len());
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() < 1e-6, "{actual:?}");
    }
}

#[tokio::test]
async fn embeds_through_invoke_model_with_the_titan_v2_request_and_normalises_the_answer() {
    let stub = Stub::start(Answer::Embedding(512)).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);
    let port: Arc<dyn Embedder> = Arc::new(embedder);
    assert_eq!((port.model_id(), port.dimensions()), ("amazon.titan-embed-text-v2:0", 512));

    let vector = port.embed("  Rust ownership and borrowing\n").await.expect("embed");

    assert_close(&vector, &expected(512));
    let requests = stub.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let request = &requests[0];
    assert_eq!(request.method, Method::POST);
    assert_eq!(request.path, "/model/amazon.titan-embed-text-v2%3A0/invoke");
    assert_eq!(request.header("content-type"), "application/json");
    assert_eq!(request.header("accept"), "application/json");
    assert!(
        request.header("authorization").starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/"),
        "{:?}",
        request.header("authorization")
    );
    assert_eq!(
        request.body,
        json!({ "inputText": "Rust ownership and borrowing", "dimensions": 512, "normalize": true })
    );
}

#[tokio::test]
async fn the_dimensions_asked_for_are_sent_and_a_model_arn_is_url_encoded_into_the_path() {
    let stub = Stub::start(Answer::Embedding(256)).await;
    let arn = "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0";
    let embedder = stub.embedder(arn, 256);

    assert_close(&embedder.embed("galaxies").await.expect("embed"), &expected(256));
    let request = &stub.requests()[0];
    assert_eq!(request.body["dimensions"], 256);
    assert_eq!(
        request.path,
        "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A%3Afoundation-model%2F\
         amazon.titan-embed-text-v2%3A0/invoke"
    );
}

#[cfg(feature = "test-support")]
#[tokio::test]
async fn long_text_is_cut_to_its_first_characters() {
    use blog_api::ports::embedder::bedrock::MAX_INPUT_CHARS;
    let stub = Stub::start(Answer::Embedding(1024)).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 1024);
    let text = "é🦀x".repeat(MAX_INPUT_CHARS);

    embedder.embed(&text).await.expect("embed");
    embedder.clone().with_max_input_chars(4).embed(&text).await.expect("embed");

    let requests = stub.requests();
    let sent = requests[0].body["inputText"].as_str().unwrap();
    assert_eq!(sent.chars().count(), MAX_INPUT_CHARS);
    assert!(text.starts_with(sent));
    assert_eq!(requests[1].body["inputText"], "é🦀xé");
}

#[tokio::test]
async fn blank_text_is_not_sent_and_embeds_to_the_zero_vector() {
    let stub = Stub::start(Answer::Embedding(512)).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);

    assert_eq!(embedder.embed(" \n\t ").await.expect("embed"), vec![0.0; 512]);
    assert_eq!(embedder.embed("").await.expect("embed"), vec![0.0; 512]);
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn an_answer_of_the_wrong_length_is_an_error() {
    let stub = Stub::start(Answer::Embedding(1024)).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);

    let error = embedder.embed("Rust").await.expect_err("wrong length").to_string();
    assert!(error.contains("1024 dimensions in the response, 512 asked for"), "{error}");
}

#[tokio::test]
async fn an_answer_without_an_embedding_is_an_error() {
    let stub = Stub::start(Answer::Malformed).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);

    let error = embedder.embed("Rust").await.expect_err("malformed");
    assert!(format!("{error:#}").contains("unexpected response body"), "{error:#}");
}

#[tokio::test]
async fn a_400_is_an_error_with_the_service_code_and_message_and_is_not_retried() {
    let stub = Stub::start(Answer::Error(StatusCode::BAD_REQUEST, "ValidationException")).await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);

    let error = embedder.embed("Rust").await.expect_err("400").to_string();
    assert_eq!(
        error,
        "InvokeModel amazon.titan-embed-text-v2:0: ValidationException: stub: failing as asked"
    );
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn a_500_is_retried_then_an_error() {
    let stub =
        Stub::start(Answer::Error(StatusCode::INTERNAL_SERVER_ERROR, "InternalServerException"))
            .await;
    let embedder = stub.embedder(DEFAULT_MODEL_ID, 512);

    let error = embedder.embed("Rust").await.expect_err("500").to_string();
    assert!(error.contains("InternalServerException: stub: failing as asked"), "{error}");
    assert_eq!(stub.requests().len(), MAX_ATTEMPTS as usize);
}

#[tokio::test]
async fn an_unreachable_endpoint_is_an_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let endpoint = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let embedder =
        BedrockEmbedder::from_config(&sdk_config(), DEFAULT_MODEL_ID, 512, Some(&endpoint))
            .expect("embedder");

    let error = embedder.embed("Rust").await.expect_err("unreachable").to_string();
    assert!(error.starts_with("InvokeModel amazon.titan-embed-text-v2:0: "), "{error}");
}

#[test]
fn dimensions_other_than_256_512_and_1024_are_refused() {
    for dimensions in [0, 128, 300, 768, 2048] {
        let error = BedrockEmbedder::from_config(&sdk_config(), DEFAULT_MODEL_ID, dimensions, None)
            .expect_err("refused")
            .to_string();
        assert!(error.contains("expected one of [256, 512, 1024]"), "{error}");
    }
    for dimensions in [256, 512, 1024] {
        let embedder =
            BedrockEmbedder::from_config(&sdk_config(), DEFAULT_MODEL_ID, dimensions, None)
                .expect("accepted");
        assert_eq!(embedder.dimensions(), dimensions);
    }
    assert!(BedrockEmbedder::from_config(&sdk_config(), "", 512, None).is_err());
}
