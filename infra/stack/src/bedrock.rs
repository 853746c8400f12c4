//! A stand-in for Bedrock Runtime's `InvokeModel` of Titan Text Embeddings V2, which has no
//! local emulator: `POST /model/{modelId}/invoke` with Titan V2's body
//! `{inputText, dimensions, normalize}` answers `{embedding, inputTextTokenCount}`, the
//! embedding being the local embedder's vector of the text at that size (so related articles
//! still rank by topic); another model or a body of another shape answers 400
//! `ValidationException`, as Bedrock does.

use std::net::SocketAddr;

use anyhow::Result;
use axum::{
    body::Bytes,
    extract::Path,
    http::StatusCode,
    response::{IntoResponse, Response},
    routing::post,
    Json, Router,
};
use blog_api::ports::embedder::{local::LocalEmbedder, Embedder};

/// The model family the stub answers for: Titan Text Embeddings V2 (`amazon.titan-embed-text-v2:0`).
const TITAN_V2: &str = "amazon.titan-embed-text-v2";
use serde_json::{json, Value};

/// Starts the stub on a free port of 127.0.0.1; it serves as long as the runtime runs.
pub async fn start() -> Result<SocketAddr> {
    let app = Router::new().route("/model/{model}/invoke", post(invoke));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("[stack] the Bedrock stub stopped: {error}");
        }
    });
    Ok(addr)
}

async fn invoke(Path(model): Path<String>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (Some(text), Some(dimensions)) = (body["inputText"].as_str(), body["dimensions"].as_u64())
    else {
        return validation_error("inputText (string) and dimensions (integer) are required");
    };
    if !model.starts_with(TITAN_V2) {
        return validation_error(&format!("the stub serves {TITAN_V2} only, not {model}"));
    }
    if body["normalize"] != json!(true) || !matches!(dimensions, 256 | 512 | 1024) {
        return validation_error("normalize must be true and dimensions 256, 512 or 1024");
    }
    match LocalEmbedder::new(dimensions as usize).embed(text).await {
        Ok(embedding) => {
            let tokens = text.split_whitespace().count();
            Json(json!({ "embedding": embedding, "inputTextTokenCount": tokens })).into_response()
        }
        Err(error) => validation_error(&format!("{error:#}")),
    }
}

/// A Bedrock Runtime error (REST-JSON: the error code in `x-amzn-errortype`).
fn validation_error(message: &str) -> Response {
    let headers = [("x-amzn-errortype", "ValidationException")];
    (StatusCode::BAD_REQUEST, headers, Json(json!({ "message": message }))).into_response()
}
