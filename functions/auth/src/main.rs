//! Lambda function of the auth area (`/api/v1/auth`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::AUTH).await
}
