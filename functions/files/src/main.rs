//! Lambda function of the files area (`/api/v1/files`).

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("files", blog_shared::files::router, Needs::TOKENS_AND_BLOBS).await
}
