//! Lambda function of the comments' administration (`/api/v1/admin/comments`): the moderation
//! lists, approve, reject, delete, and the reports.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::ADMIN_COMMENTS).await
}
