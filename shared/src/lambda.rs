//! The Lambda side: one function serves one area's router through lambda_http.

use axum::Router;

/// Error type of a function's `main`.
pub use lambda_http::Error as LambdaError;

use crate::{
    config::{Config, SecretSource},
    context::AppContext,
    setup,
};

/// Runs an area as a Lambda function: configuration, adapters and clients are built once per
/// cold start, then every invocation goes through lambda_http into the area's router.
pub async fn run(area: fn(AppContext) -> Router) -> Result<(), LambdaError> {
    let config = Config::from_env()?;
    crate::telemetry::init(&config.log, true);
    if matches!(config.jwt_secret, SecretSource::Generated) {
        return Err(
            "BLOG_JWT_SECRET or BLOG_JWT_SECRET_ARN must be set for a Lambda function".into()
        );
    }
    let ctx = setup::context(config).await?;
    if let Some(outcome) = setup::bootstrap_admin(&ctx).await? {
        tracing::info!(?outcome, "administrator bootstrap");
    }
    lambda_http::run(service(area, ctx)).await
}

/// The router a function serves: its area plus the outermost layers (404 fallback, tracing).
pub fn service(area: fn(AppContext) -> Router, ctx: AppContext) -> Router {
    crate::http::finish(area(ctx))
}
