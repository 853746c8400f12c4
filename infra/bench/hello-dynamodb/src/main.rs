//! The cold-start floor of a function that reads DynamoDB: the hello world of `hello-lambda`
//! plus one `GetItem` per request, through aws-sdk-dynamodb on the SDK configuration the
//! functions share (`blog_api::ports::aws`, the compiled-in Amazon roots) and tokio's
//! current-thread runtime, as the functions run. None of the blog's code runs per request: a
//! function's first answer against this one is what its own code costs beyond one SDK call.

use aws_sdk_dynamodb::{types::AttributeValue, Client};
use blog_api::{config::TrustStore, ports::aws::sdk_config};
use lambda_http::{service_fn, Body, Error, Request, Response};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let table = std::env::var("BLOG_TABLE_NAME")?;
    let mut config = aws_sdk_dynamodb::config::Builder::from(&sdk_config(TrustStore::Aws).await?);
    config.set_endpoint_url(std::env::var("BLOG_DYNAMODB_ENDPOINT").ok());
    let client = Client::from_conf(config.build());
    let (client, table) = (&client, table.as_str());
    lambda_http::run(service_fn(move |_request: Request| async move {
        let key = || AttributeValue::S(KEY.to_string());
        let read = client.get_item().table_name(table).key("pk", key()).key("sk", key());
        read.send().await?;
        let response = Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(Body::from(HELLO))?;
        Ok::<_, Error>(response)
    }))
    .await
}

/// The partition and sort key read: no item has it, so the answer is as small as DynamoDB's get.
const KEY: &str = "HELLO";

/// The answer to every request.
const HELLO: &str = r#"{"code":200,"message":"hello","data":null}"#;
