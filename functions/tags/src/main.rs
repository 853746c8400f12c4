//! Lambda function of the tags area (`/api/v1/tags`, `/api/v1/admin/tags`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::TAGS).await
}
