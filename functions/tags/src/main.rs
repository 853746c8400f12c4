//! Lambda function of the tags area (`/api/v1/tags`, `/api/v1/admin/tags`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::TAGS).await
}
