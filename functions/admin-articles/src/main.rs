//! Lambda function of the article administration (`/api/v1/admin/articles`): it emits
//! ArticlePublishedEvent to SQS.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::ADMIN_ARTICLES).await
}
