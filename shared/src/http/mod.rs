//! HTTP plumbing shared by every feature: the four response envelope families with their error
//! enums (each mapped to HTTP in one place), request extractors that answer bad input in the
//! caller's envelope, CORS, and the kept answers of public reads.

pub mod account;
pub mod answers;
pub mod articles;
pub mod cors;
pub mod docs;
pub mod extract;
pub mod files;
pub mod ops;
pub mod taxonomy;

/// What every envelope family's error type offers the shared extractors and the auth layer.
pub trait ApiError: axum::response::IntoResponse + Send + Sized + 'static {
    /// A parameter error (400 in every family); `message` names the field.
    fn invalid(message: impl Into<String>) -> Self;
    /// Not signed in, token missing, malformed, tampered or expired (401).
    fn unauthorized(message: impl Into<String>) -> Self;
    /// Signed in without the required role (403).
    fn forbidden(message: impl Into<String>) -> Self;
    /// Something failed inside; details go to the log, never to the client (500).
    fn internal(error: anyhow::Error) -> Self;
}

/// Logs an internal error once, with its chain, where it is turned into a 5xx.
pub(crate) fn log_internal(error: &anyhow::Error) {
    tracing::error!(error = format!("{error:#}"), "internal error");
}

/// Message sent to clients for every 5xx.
pub(crate) const INTERNAL_MESSAGE: &str = "internal server error";

/// Mounts an area's routes under its base path with the shared state and the CORS policy.
pub fn area(
    base: &str,
    routes: axum::Router<crate::context::AppContext>,
    ctx: crate::context::AppContext,
) -> axum::Router {
    areas(vec![(base, routes)], ctx)
}

/// Mounts several route sets of one area (e.g. public and admin) under their base paths.
pub fn areas(
    mounts: Vec<(&str, axum::Router<crate::context::AppContext>)>,
    ctx: crate::context::AppContext,
) -> axum::Router {
    let router = mounts
        .into_iter()
        .fold(axum::Router::new(), |router, (base, routes)| router.nest(base, routes));
    let observe =
        axum::middleware::from_fn_with_state(ctx.clone(), crate::telemetry::layer::observe);
    cors::apply(router.layer(observe).with_state(ctx))
}

/// Answer for a path no area serves (404), in the plain `{code, message, data}` shape.
pub async fn no_route() -> impl axum::response::IntoResponse {
    let body = serde_json::json!({ "code": 404, "message": "no such endpoint", "data": null });
    (axum::http::StatusCode::NOT_FOUND, axum::Json(body))
}

/// The outermost layers of a served router: a JSON 404 for unknown paths and request tracing.
pub fn finish(router: axum::Router) -> axum::Router {
    router.fallback(no_route).layer(tower_http::trace::TraceLayer::new_for_http())
}
