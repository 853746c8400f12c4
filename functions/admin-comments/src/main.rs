//! Lambda function of the comments' administration (`/api/v1/admin/comments`): the moderation
//! lists, approve, reject, delete, and the reports.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::ADMIN_COMMENTS).await
}
