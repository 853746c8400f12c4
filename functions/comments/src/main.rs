//! Lambda function of the comments (`/api/v1/comments`) and the likes; their administration is
//! functions/admin-comments.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::COMMENTS).await
}
