//! Health (decisions "Operations"): the table, the bucket and the queue where this process has
//! them, and the disk space of its working directory. The queue is not required: publishing
//! keeps events in the outbox while it is down and the sweep delivers them later.

use std::{collections::BTreeMap, future::Future, time::Duration};

use axum::{
    extract::{Path, State},
    http::StatusCode,
    response::IntoResponse,
    Json,
};
use serde::Serialize;
use serde_json::{json, Map, Value};

use blog_core::http::responses::kinds::*;
use blog_core::{
    config::StoreKind, context::AppContext, http::Failure, telemetry::process::disk_space,
};

use super::envelope::OpsError;
use crate::envelope::OpsErrors;

/// Free space below which the disk is DOWN.
const DISK_THRESHOLD_BYTES: u64 = 10 * 1024 * 1024;
/// How long one component's check may take before it counts as DOWN.
const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// A health status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Status {
    Up,
    Down,
    OutOfService,
}

#[derive(Serialize)]
struct Component {
    status: Status,
    #[serde(skip_serializing_if = "Map::is_empty")]
    details: Map<String, Value>,
    #[serde(skip)]
    required: bool,
}

fn details(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn check<F, T>(required: bool, up: Value, probe: F) -> (Component, Option<T>)
where
    F: Future<Output = anyhow::Result<T>>,
{
    match tokio::time::timeout(CHECK_TIMEOUT, probe).await {
        Ok(Ok(value)) => {
            (Component { status: Status::Up, details: details(up), required }, Some(value))
        }
        Ok(Err(error)) => {
            tracing::warn!(error = format!("{error:#}"), "health check failed");
            let down = json!({ "error": "unreachable" });
            (Component { status: Status::Down, details: details(down), required }, None)
        }
        Err(_) => {
            let down = json!({ "error": "timed out" });
            (Component { status: Status::Down, details: details(down), required }, None)
        }
    }
}

async fn table_component(ctx: &AppContext) -> Component {
    let database = match ctx.config.store {
        StoreKind::Embedded => json!({ "database": "SQLite (embedded)" }),
        StoreKind::DynamoDb => json!({ "database": "DynamoDB", "table": ctx.config.table_name }),
    };
    let ping = async { ctx.table.ping().await.map_err(anyhow::Error::from) };
    check(true, database, ping).await.0
}

fn disk_component(ctx: &AppContext) -> Component {
    let path = match ctx.config.store {
        StoreKind::Embedded => ctx.config.data_dir.clone(),
        StoreKind::DynamoDb => std::env::temp_dir(),
    };
    let (status, details) = match disk_space(&path) {
        Some(space) => {
            let status = if space.free >= DISK_THRESHOLD_BYTES { Status::Up } else { Status::Down };
            let details = json!({
                "total": space.total,
                "free": space.free,
                "threshold": DISK_THRESHOLD_BYTES,
                "path": space.path.display().to_string(),
                "exists": true,
            });
            (status, details)
        }
        None => {
            let details = json!({ "path": path.display().to_string(), "exists": false });
            (Status::Down, details)
        }
    };
    Component { status, details: self::details(details), required: true }
}

/// `GET /actuator/health`: `{status, components}`; 503 when a required component is DOWN.
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "health",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{status: UP, components: {db, diskSpace, storage, queue}}`, \
            each component `{status, details}`; `details` only behind the actuator's token",
            body = utoipa::openapi::Object),
        (status = 503, description = "A required component (db, diskSpace, storage) is DOWN",
            body = utoipa::openapi::Object),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn health(_: super::ActuatorAccess, State(ctx): State<AppContext>) -> impl IntoResponse {
    let components = components(&ctx).await;
    let down = components.values().any(|c| c.required && c.status == Status::Down);
    let (status, code) = if down {
        (Status::Down, StatusCode::SERVICE_UNAVAILABLE)
    } else {
        (Status::Up, StatusCode::OK)
    };
    (code, Json(json!({ "status": status, "components": components })))
}

/// `GET /actuator/health/{component}`: one component of the report, as Spring Boot answers it.
#[utoipa::path(
    get,
    path = "/health/{component}",
    operation_id = "healthComponent",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    params(("component" = String, Path, description = "`db`, `diskSpace`, `storage` or `queue`")),
    responses(
        (status = 200, description = "`{status: UP, details}`; `details` only behind the \
            actuator's token", body = utoipa::openapi::Object),
        (status = 404, description = "No such component in this process",
            body = super::envelope::OpsErrorBody),
        (status = 503, description = "The component is DOWN", body = utoipa::openapi::Object),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn component(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
    Path(name): Path<String>,
) -> Result<impl IntoResponse, OpsError> {
    let component = components(&ctx).await.remove(name.as_str()).ok_or_else(|| {
        Failure::NotFound(format!("no health component `{name}`: db, diskSpace, storage, queue"))
    })?;
    let code = match component.status {
        Status::Down => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::OK,
    };
    Ok((code, Json(component)))
}

/// Every component this process has, checked together; details only for a caller that gave
/// the actuator's token (an anonymous actuator shows statuses alone).
async fn components(ctx: &AppContext) -> BTreeMap<&'static str, Component> {
    let storage = async {
        let blobs = ctx.blobs()?;
        let up = json!({ "bucket": blobs.bucket(), "storageType": blobs.storage_type() });
        Some(check(true, up, blobs.ping()).await.0)
    };
    let queue = async {
        let events = ctx.events()?;
        let (mut component, depth) = check(false, json!({}), events.ping()).await;
        if let Some(Some(depth)) = depth {
            component.details.insert("messagesWaiting".into(), json!(depth));
        }
        Some(component)
    };
    let (db, storage, queue) = tokio::join!(table_component(ctx), storage, queue);
    let mut components = BTreeMap::from([("db", db), ("diskSpace", disk_component(ctx))]);
    components.extend(storage.map(|component| ("storage", component)));
    components.extend(queue.map(|component| ("queue", component)));
    if ctx.config.actuator_token.is_none() {
        components.values_mut().for_each(|component| component.details.clear());
    }
    components
}

/// `GET /actuator/health/liveness`: UP while the process serves requests.
#[utoipa::path(
    get,
    path = "/health/liveness",
    operation_id = "liveness",
    tag = "ops",
    responses((status = 200, description = "`{status: UP}`", body = utoipa::openapi::Object))
)]
pub async fn liveness() -> Json<Value> {
    Json(json!({ "status": Status::Up }))
}

/// `GET /actuator/health/readiness`: UP when the table answers, else OUT_OF_SERVICE (503).
#[utoipa::path(
    get,
    path = "/health/readiness",
    operation_id = "readiness",
    tag = "ops",
    responses(
        (status = 200, description = "`{status: UP}`", body = utoipa::openapi::Object),
        (status = 503, description = "`{status: OUT_OF_SERVICE}`: the table does not answer",
            body = utoipa::openapi::Object),
    )
)]
pub async fn readiness(State(ctx): State<AppContext>) -> impl IntoResponse {
    match table_component(&ctx).await.status {
        Status::Up => (StatusCode::OK, Json(json!({ "status": Status::Up }))),
        _ => (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": Status::OutOfService }))),
    }
}
