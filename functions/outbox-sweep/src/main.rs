//! Lambda function of the outbox sweep: on a schedule, re-sends the ArticlePublishedEvent whose
//! send failed after their publish committed.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run_outbox_sweep().await
}
