//! Lambda function of the categories area (`/api/v1/categories`, `/api/v1/admin/categories`).

use blog_shared::setup::Needs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), blog_shared::lambda::LambdaError> {
    blog_shared::lambda::run("categories", blog_shared::taxonomy::categories::router, Needs::TOKENS)
        .await
}
