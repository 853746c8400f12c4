//! The cold-start baseline: the smallest lambda_http function, built with the workspace's release
//! profile like the real functions. It answers every request with a fixed JSON body.

use lambda_http::{service_fn, Body, Error, Request, Response};

async fn hello(_request: Request) -> Result<Response<Body>, Error> {
    let response = Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(Body::from(HELLO))?;
    Ok(response)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(hello)).await
}

/// The answer to every request.
const HELLO: &str = r#"{"code":200,"message":"hello","data":null}"#;
