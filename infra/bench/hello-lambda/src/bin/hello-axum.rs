//! The throughput ceiling: a hello-world axum server on the same runtime settings as the local
//! gateway (tokio multi-thread, `axum::serve`, mimalloc). Listens on `HELLO_ADDR` (default
//! 127.0.0.1:3900) and answers `GET /` with a fixed JSON body.

use axum::{http::header::CONTENT_TYPE, routing::get, Router};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("HELLO_ADDR").unwrap_or_else(|_| "127.0.0.1:3900".into());
    let app =
        Router::new().route("/", get(|| async { ([(CONTENT_TYPE, "application/json")], HELLO) }));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    axum::serve(listener, app).await
}

/// The answer to every request.
const HELLO: &str = r#"{"code":200,"message":"hello","data":null}"#;
