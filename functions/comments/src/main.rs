//! Lambda function of the comments (`/api/v1/comments`) and the likes; their administration is
//! functions/admin-comments.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::COMMENTS).await
}
