//! Lambda function of the auth area (`/api/v1/auth`).

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("auth", blog_shared::auth::router, Needs::TOKENS).await
}
