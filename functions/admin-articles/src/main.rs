//! Lambda function of the article administration (`/api/v1/admin/articles`): it emits
//! ArticlePublishedEvent to SQS.

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(
        "admin-articles",
        blog_shared::articles::admin_router,
        Needs::TOKENS_AND_EVENTS,
    )
    .await
}
