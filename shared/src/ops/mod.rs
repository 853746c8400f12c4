//! Operations, base `/actuator` (spec 4.8, decisions "Operations"): health with its components,
//! probes, build information, metrics (JSON and Prometheus text), and logger levels that change
//! in every running instance. Served by the ops function and the local gateway.

pub mod envelope;
mod health;
mod info;
mod loggers;
mod metrics;
mod prometheus;

use axum::{
    extract::{Request, State},
    middleware::{from_fn_with_state, Next},
    response::Response,
    routing::get,
    Json, Router,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::{context::AppContext, http::Failure};

use envelope::OpsError;

/// Base path of the actuator.
pub const BASE: &str = "/actuator";

/// The OpenAPI description of the actuator's operations.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(
        index,
        health::health,
        health::liveness,
        health::readiness,
        info::info,
        metrics::names,
        metrics::one,
        prometheus::scrape,
        loggers::all,
        loggers::one,
        loggers::configure,
    ),
    components(schemas(envelope::OpsErrorBody, loggers::LevelChange))
)]
pub struct OpsApi;

/// What the ops Lambda function serves: the actuator and the API description.
pub fn function_router(ctx: AppContext) -> Router {
    router(ctx).merge(crate::openapi::docs_router())
}

/// The actuator: probes always anonymous, everything else behind the optional actuator token.
pub fn router(ctx: AppContext) -> Router {
    let probes = Router::new()
        .route("/health/liveness", get(health::liveness))
        .route("/health/readiness", get(health::readiness));
    let guarded = Router::new()
        .route("/", get(index))
        .route("/health", get(health::health))
        .route("/info", get(info::info))
        .route("/metrics", get(metrics::names))
        .route("/metrics/{name}", get(metrics::one))
        .route("/prometheus", get(prometheus::scrape))
        .route("/loggers", get(loggers::all))
        .route("/loggers/{name}", get(loggers::one).post(loggers::configure))
        .route_layer(from_fn_with_state(ctx.clone(), require_token));
    crate::http::area(BASE, probes.merge(guarded), ctx)
}

/// Description of the 401 an actuator token answers.
const TOKEN_REQUIRED: &str =
    "`BLOG_ACTUATOR_TOKEN` is set and the request lacks `Authorization: Bearer <that token>`";

/// Links to every actuator endpoint, as Spring Boot's `/actuator` lists them.
#[utoipa::path(
    get,
    path = "",
    operation_id = "actuatorIndex",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`_links` to every endpoint", body = utoipa::openapi::Object),
        (status = 401, description = TOKEN_REQUIRED, body = envelope::OpsErrorBody),
    )
)]
async fn index() -> Json<Value> {
    let link = |path: &str, templated: bool| json!({ "href": format!("/actuator{path}"), "templated": templated });
    Json(json!({ "_links": {
        "self": link("", false),
        "health": link("/health", false),
        "health-path": link("/health/{*path}", true),
        "info": link("/info", false),
        "metrics": link("/metrics", false),
        "metrics-requiredMetricName": link("/metrics/{requiredMetricName}", true),
        "prometheus": link("/prometheus", false),
        "loggers": link("/loggers", false),
        "loggers-name": link("/loggers/{name}", true),
    }}))
}

/// With `BLOG_ACTUATOR_TOKEN` set, requires `Authorization: Bearer <token>`.
async fn require_token(
    State(ctx): State<AppContext>,
    request: Request,
    next: Next,
) -> Result<Response, OpsError> {
    if let Some(source) = &ctx.config.actuator_token {
        // A token that was never read (no secret at start-up) matches nothing.
        let expected = source.value().unwrap_or_default();
        let given = request
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        // Digests of equal length compare without revealing where the token differs.
        let matches = !expected.is_empty()
            && given.is_some_and(|given| {
                Sha256::digest(given.trim().as_bytes()) == Sha256::digest(expected.as_bytes())
            });
        if !matches {
            let message = "the actuator requires its bearer token";
            return Err(Failure::Unauthorized(message.into()).into());
        }
    }
    Ok(next.run(request).await)
}

/// The `{name}` path segment of a logger route, parsed; a bad name answers 400.
pub(crate) struct LoggerPath(crate::telemetry::levels::LoggerName);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for LoggerPath {
    type Rejection = OpsError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, OpsError> {
        let axum::extract::Path(raw) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|rejection| Failure::Invalid(rejection.body_text()))?;
        let name = crate::telemetry::levels::LoggerName::parse(&raw).map_err(Failure::Invalid)?;
        if name.as_str() != crate::telemetry::levels::ROOT
            && !crate::telemetry::targets::is_known(name.as_str())
        {
            return Err(Failure::Invalid(format!(
                "no logger `{}`: ROOT, a module path of the service (blog_shared::articles) or a \
                 crate it logs through (aws_sdk_dynamodb, hyper, ...)",
                name.as_str()
            ))
            .into());
        }
        Ok(Self(name))
    }
}
