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

use crate::context::AppContext;

/// Observes one request (see the module documentation).
pub async fn observe(State(ctx): State<AppContext>, request: Request, next: Next) -> Response {
    let telemetry = &ctx.telemetry;
    if ctx.config.in_lambda {
        telemetry.refresh_levels_if_due(ctx.table.as_ref()).await;
    }
    let method = request.method().as_str().to_owned();
    let uri = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "UNKNOWN".to_owned(), |path| path.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    telemetry.record_request(&method, &uri, status, elapsed);
    if ctx.config.in_lambda {
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
        telemetry.export_if_due(ctx.table.as_ref()).await;
    }
    response
}
