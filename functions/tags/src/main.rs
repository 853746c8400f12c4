//! Lambda function of the tags area (`/api/v1/tags`, `/api/v1/admin/tags`).

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("tags", blog_shared::taxonomy::tags::router, Needs::TOKENS).await
}
