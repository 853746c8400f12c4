//! Lambda function of the files area (`/api/v1/files`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::FILES).await
}
