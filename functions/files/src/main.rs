//! Lambda function of the files area (`/api/v1/files`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::FILES).await
}
