//! Lambda function of the public articles area (`/api/v1/articles`): anonymous reads only, so
//! it fetches no secret at cold start.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::ARTICLES).await
}
