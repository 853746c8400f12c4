//! Inside Lambda the SDK clients take their endpoints from `AWS_ENDPOINT_URL_<SERVICE>` (what
//! `make stack` gives every function, and what LocalStack users set): an adapter built without
//! an override of its own keeps the endpoint of the environment.
#![cfg(all(feature = "dynamodb", feature = "sqs", feature = "bedrock"))]

use std::sync::{Arc, Mutex};

use axum::{extract::Request, http::StatusCode, Router};
use blog_api::ports::{
    aws::{from_environment, SdkConfig},
    embedder::{bedrock::BedrockEmbedder, Embedder},
    events::{sqs::SqsQueue, EventQueue},
    table::{dynamodb::DynamoTable, Key, Table},
};

/// A server that records the path and `X-Amz-Target` of every request and answers 400.
async fn recording_endpoint() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(vec![]));
    let sink = seen.clone();
    let app = Router::new().fallback(move |request: Request| {
        let sink = sink.clone();
        async move {
            let target = request.headers().get("x-amz-target").and_then(|v| v.to_str().ok());
            let line = format!("{} {}", request.uri().path(), target.unwrap_or_default());
            sink.lock().unwrap().push(line);
            (StatusCode::BAD_REQUEST, "{}")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

fn lambda_config(service_variable: &str, endpoint: &str) -> SdkConfig {
    from_environment([
        ("AWS_REGION".to_string(), "us-east-1".to_string()),
        ("AWS_ACCESS_KEY_ID".to_string(), "AKIDEXAMPLE".to_string()),
        ("AWS_SECRET_ACCESS_KEY".to_string(), "secret".to_string()),
        (service_variable.to_string(), endpoint.to_string()),
    ])
}

#[tokio::test]
async fn the_table_the_queue_and_bedrock_use_the_endpoints_of_the_environment() {
    let (url, seen) = recording_endpoint().await;
    let table =
        DynamoTable::from_config(&lambda_config("AWS_ENDPOINT_URL_DYNAMODB", &url), "t", None);
    assert!(table.get(&Key::new("A", "B")).await.is_err());
    let queue = SqsQueue::from_config(
        &lambda_config("AWS_ENDPOINT_URL_SQS", &url),
        "https://sqs.us-east-1.amazonaws.com/1/q",
        None,
    );
    assert!(queue.send("{}".into()).await.is_err());
    let bedrock = lambda_config("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", &url);
    let embedder =
        BedrockEmbedder::from_config(&bedrock, "amazon.titan-embed-text-v2:0", 256, None).unwrap();
    assert!(embedder.embed("text").await.is_err());
    let seen = seen.lock().unwrap().clone();
    assert!(seen.iter().any(|s| s.ends_with("DynamoDB_20120810.GetItem")), "{seen:?}");
    assert!(seen.iter().any(|s| s.ends_with("AmazonSQS.SendMessage")), "{seen:?}");
    assert!(seen.iter().any(|s| s.starts_with("/model/")), "{seen:?}");
}
