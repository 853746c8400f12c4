//! Lambda function of the users area (`/api/v1/users`).

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("users", blog_shared::users::router, Needs::TOKENS).await
}
