//! Lambda function of the public articles area (`/api/v1/articles`): anonymous reads only, so
//! it fetches no secret at cold start.

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("articles", blog_shared::articles::public_router, Needs::PUBLIC).await
}
