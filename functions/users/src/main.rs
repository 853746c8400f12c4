//! Lambda function of the users area (`/api/v1/users`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::USERS).await
}
