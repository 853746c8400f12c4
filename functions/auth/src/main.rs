//! Lambda function of the auth area (`/api/v1/auth`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::AUTH).await
}
