//! Lambda function of the users area (`/api/v1/users`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::USERS).await
}
