//! HTTP plumbing shared by every feature, knowing none: the core error and the one envelope
//! implementation every area writes its answers with (mapped to HTTP in one place), the OpenAPI pieces the areas share, request extractors
//! that answer bad input in the caller's envelope, CORS, the kept answers of public reads and
//! their HTTP caching (entity tags, conditional requests, freshness), and the servers' reading of
//! a whole request before routing it.

pub mod answers;
pub mod caching;
pub mod cors;
pub mod docs;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod responses;
pub use crate::whole_body;

pub use envelope::{Answer, AreaError, Family};
pub use error::{ApiError, Failure};

/// Answer for a path no area serves (404), in the plain `{code, message, data}` shape.
pub async fn no_route() -> impl axum::response::IntoResponse {
    let body = serde_json::json!({ "code": 404, "message": "no such endpoint", "data": null });
    (axum::http::StatusCode::NOT_FOUND, axum::Json(body))
}

/// The outermost layers of a served router: a JSON 404 for unknown paths and request tracing.
pub fn finish(router: axum::Router) -> axum::Router {
    traced(router.fallback(no_route))
}

/// `router` with request tracing around it (the outermost layer).
pub fn traced(router: axum::Router) -> axum::Router {
    router.layer(tower_http::trace::TraceLayer::new_for_http())
}
