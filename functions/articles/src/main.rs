//! Lambda function of the public articles area (`/api/v1/articles`): anonymous reads only, so
//! it fetches no secret at cold start.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::ARTICLES).await
}
