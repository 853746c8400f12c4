//! The middleware every area's routes run through: records `http.server.requests` under the
//! route template, and inside Lambda also writes the request's EMF line, re-reads logger levels
//! and exports metrics when they are due (the environment is frozen between invocations, so
//! nothing can run in the background there).

use std::time::Instant;

use axum::{
    extract::{MatchedPath, Request, State},
    middleware::Next,
    response::Response,
};

use crate::ports::table::Table;

use super::Telemetry;

/// What [`observe`] needs of a router's state (the application context provides it).
pub trait ObserveState: Clone + Send + Sync + 'static {
    /// The process's telemetry.
    fn telemetry(&self) -> &Telemetry;
    /// The table that logger levels are re-read from and metrics exported to.
    fn table(&self) -> &dyn Table;
    /// Whether the process runs inside Lambda.
    fn in_lambda(&self) -> bool;
}

/// Observes one request (see the module documentation).
pub async fn observe<S: ObserveState>(
    State(ctx): State<S>,
    request: Request,
    next: Next,
) -> Response {
    let telemetry = ctx.telemetry();
    if ctx.in_lambda() {
        telemetry.refresh_levels_if_due(ctx.table()).await;
    }
    let method = metric_method(request.method()).to_owned();
    let uri = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "UNKNOWN".to_owned(), |path| path.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    telemetry.record_request(&method, &uri, status, elapsed);
    if ctx.in_lambda() {
        let cold_start = telemetry.cold_start();
        let line = super::emf::request_line(
            telemetry.function(),
            &method,
            &uri,
            status,
            elapsed,
            cold_start,
        );
        println!("{line}");
        telemetry.export_if_due(ctx.table()).await;
    }
    response
}

/// The method as a metric tag: one of HTTP's standard methods, else `OTHER` (any token is a
/// valid method, and each new tag value would be a new series).
pub fn metric_method(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    const STANDARD: [Method; 9] = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::CONNECT,
        Method::OPTIONS,
        Method::TRACE,
        Method::PATCH,
    ];
    STANDARD
        .iter()
        .find(|standard| *standard == method)
        .map_or("OTHER", |standard| standard.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_outside_the_standard_set_are_one_tag_value() {
        let method = |raw: &str| axum::http::Method::from_bytes(raw.as_bytes()).unwrap();
        assert_eq!(metric_method(&method("PATCH")), "PATCH");
        assert_eq!(metric_method(&method("BREW")), "OTHER");
        assert_eq!(metric_method(&method(&"X".repeat(8000))), "OTHER");
    }
}
