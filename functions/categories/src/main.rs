//! Lambda function of the categories area (`/api/v1/categories`, `/api/v1/admin/categories`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run(&blog_shared::api::CATEGORIES).await
}
