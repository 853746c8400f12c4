//! Lambda function of the categories area (`/api/v1/categories`, `/api/v1/admin/categories`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_api::lambda::LambdaError> {
    blog_api::lambda::run(&blog_api::api::CATEGORIES).await
}
