//! Lambda function of the article administration (`/api/v1/admin/articles`): it emits
//! ArticlePublishedEvent to SQS.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::ADMIN_ARTICLES).await
}
