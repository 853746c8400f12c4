//! Lambda function of the worker: SQS batches of ArticlePublishedEvent (embeddings, related
//! lists, statistics, notification) and FileConfirmedEvent (a public image's variants).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run_worker().await
}
