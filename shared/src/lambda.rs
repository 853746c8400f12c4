//! The Lambda side: one function serves one area's router through lambda_http.

use axum::Router;

/// Error type of a function's `main`.
pub use lambda_http::Error as LambdaError;

use crate::{
    config::Config,
    context::AppContext,
    setup::{self, Needs},
};

/// Runs an area as a Lambda function: configuration, adapters and clients are built once per
/// cold start (only those the area `needs`), then every invocation goes through lambda_http
/// into the area's router.
pub async fn run(area: fn(AppContext) -> Router, needs: Needs) -> Result<(), LambdaError> {
    let config = Config::from_env()?;
    crate::telemetry::init(&config.log, true);
    let ctx = setup::function_context(config, needs).await?;
    if needs.tokens {
        if let Some(outcome) = setup::bootstrap_admin(&ctx).await? {
            tracing::info!(?outcome, "administrator bootstrap");
        }
    }
    lambda_http::run(service(area, ctx)).await
}

/// The router a function serves: its area plus the outermost layers (404 fallback, tracing).
pub fn service(area: fn(AppContext) -> Router, ctx: AppContext) -> Router {
    crate::http::finish(area(ctx))
}
