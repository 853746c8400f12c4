//! Lambda function of the operations area (`/actuator`): health of the table, bucket and queue,
//! info, the service's metrics read back from the table, and logger levels.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::OPS).await
}
