//! Lambda function of the operations area (`/actuator`): health of the table, bucket and queue,
//! info, the service's metrics read back from the table, and logger levels.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::OPS).await
}
