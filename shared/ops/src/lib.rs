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
    extract::FromRequestParts,
    http::{header, request::Parts, HeaderValue},
    response::IntoResponse,
    Json,
};
use blog_core::routes;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs},
    context::AppContext,
    http::Failure,
};

use crate::envelope::OpsErrors;
use blog_core::http::responses::kinds::*;
use envelope::OpsError;

/// Base path of the actuator.
pub const BASE: &str = "/actuator";

/// Health, probes, info, metrics and logger levels (functions/ops).
pub const AREA: Area = Area::of::<ActuatorEndpoints>(
    "ops",
    "Health, probes, info, metrics and logger levels (Spring Boot Actuator shapes)",
    Needs::OPS,
);

/// The API description at `/v3/api-docs` (served by the ops function and the local gateway).
pub const DOCS: Area = Area::of::<DocsEndpoints>("docs", "This description", Needs::PUBLIC);

/// Where the API description is served.
pub const DOCS_PATH: &str = "/v3/api-docs";

/// Components the actuator's operations name without a handler returning them.
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(envelope::OpsErrorBody, loggers::LevelChange)))]
struct ActuatorComponents;

/// The actuator: probes always anonymous, everything else behind the optional actuator token
/// ([`ActuatorAccess`]).
pub struct ActuatorEndpoints;

impl Endpoints for ActuatorEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        use utoipa::OpenApi as _;
        let routes = OpenApiRouter::with_openapi(ActuatorComponents::openapi())
            .routes(routes!(index))
            .routes(routes!(health::health))
            .routes(routes!(health::liveness))
            .routes(routes!(health::readiness))
            .routes(routes!(health::component))
            .routes(routes!(info::info))
            .routes(routes!(metrics::names))
            .routes(routes!(metrics::one))
            .routes(routes!(prometheus::scrape))
            .routes(routes!(loggers::all))
            .routes(routes!(loggers::one, loggers::configure));
        OpenApiRouter::new().nest(BASE, routes)
    }
}

/// The API description.
pub struct DocsEndpoints;

impl Endpoints for DocsEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        OpenApiRouter::new().routes(routes!(api_docs))
    }
}

/// The committed description (docs/openapi.json, which a test keeps equal to the one the code
/// generates), built into the binary.
const DOCUMENT: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json"));

/// The OpenAPI description of this API.
#[utoipa::path(
    get,
    path = "/v3/api-docs",
    operation_id = "apiDocs",
    tag = "docs",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = utoipa::openapi::Object))
)]
async fn api_docs() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], DOCUMENT)
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
        OpsErrors<Unauthorized>,
    )
)]
async fn index(_: ActuatorAccess) -> Json<Value> {
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

/// Access to a guarded actuator endpoint: with `BLOG_ACTUATOR_TOKEN` set, the request must
/// carry `Authorization: Bearer <token>` (401 otherwise, before anything else is read).
pub(crate) struct ActuatorAccess;

impl FromRequestParts<AppContext> for ActuatorAccess {
    type Rejection = OpsError;

    async fn from_request_parts(parts: &mut Parts, ctx: &AppContext) -> Result<Self, OpsError> {
        let Some(source) = &ctx.config.actuator_token else { return Ok(Self) };
        // A token that was never read (no secret at start-up) matches nothing.
        let expected = source.value().unwrap_or_default();
        let given = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        // Digests of equal length compare without revealing where the token differs.
        let matches = !expected.is_empty()
            && given.is_some_and(|given| {
                Sha256::digest(given.trim().as_bytes()) == Sha256::digest(expected.as_bytes())
            });
        match matches {
            true => Ok(Self),
            false => {
                let message = "the actuator requires its bearer token";
                Err(Failure::Unauthorized(message.into()).into())
            }
        }
    }
}

/// The `{name}` path segment of a logger route, parsed; a bad name answers 400.
pub(crate) struct LoggerPath(blog_core::telemetry::levels::LoggerName);

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
        let name =
            blog_core::telemetry::levels::LoggerName::parse(&raw).map_err(Failure::Invalid)?;
        if name.as_str() != blog_core::telemetry::levels::ROOT
            && !blog_core::telemetry::targets::is_known(name.as_str())
        {
            return Err(Failure::Invalid(format!(
                "no logger `{}`: ROOT, a module path of the service (blog_articles) or a \
                 crate it logs through (aws_sdk_dynamodb, hyper, ...)",
                name.as_str()
            ))
            .into());
        }
        Ok(Self(name))
    }
}
