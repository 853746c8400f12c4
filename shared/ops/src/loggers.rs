//! `GET /actuator/loggers`, `GET /actuator/loggers/{name}` and `POST /actuator/loggers/{name}`:
//! levels set here are stored in the table and reach every running instance within its refresh
//! interval (30 s by default); this instance applies them at once.

use axum::{extract::State, http::StatusCode, Json};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::LoggerPath;
use blog_core::{
    context::AppContext,
    http::{extract::JsonBody, Failure},
    telemetry::{
        levels::{Level, LoggerLevels, LoggerName, ROOT},
        targets::MAX_CONFIGURED,
    },
};

use super::envelope::OpsError;
use crate::envelope::OpsErrors;
use blog_core::http::responses::kinds::*;

/// Body of a level change; a missing or null `configuredLevel` removes the override.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LevelChange {
    /// TRACE, DEBUG, INFO, WARN, ERROR or OFF (any case); `null` removes the override.
    #[serde(rename = "configuredLevel")]
    #[schema(
        nullable,
        pattern = "^(TRACE|DEBUG|INFO|WARN|ERROR|OFF|trace|debug|info|warn|error|off)$"
    )]
    configured_level: Option<String>,
}

/// Descriptions shared by the logger operations.
const BAD_NAME: &str = "The name is not ROOT, a module path of the service or a crate it logs \
    through (or a prefix of one), the level is not one of the six, or 32 other loggers have levels";

fn document(levels: LoggerLevels) -> Value {
    json!({
        "configuredLevel": levels.configured.map(Level::name),
        "effectiveLevel": levels.effective.name(),
    })
}

/// Every level name, ROOT and every logger with an override.
#[utoipa::path(
    get,
    path = "/loggers",
    operation_id = "loggers",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{levels, loggers: {<name>: {configuredLevel, effectiveLevel}}}`",
            body = utoipa::openapi::Object),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn all(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
) -> Result<Json<Value>, OpsError> {
    let levels = &ctx.telemetry.levels;
    levels.refresh(ctx.table.as_ref()).await?;
    let root = LoggerName::parse(ROOT).map_err(Failure::Invalid)?;
    let mut loggers = Map::new();
    loggers.insert(ROOT.into(), document(levels.levels_of(&root)));
    for (name, logger) in levels.configured() {
        loggers.insert(name.as_str().to_string(), document(logger));
    }
    let names: Vec<&str> = Level::ALL.iter().map(|level| level.name()).collect();
    Ok(Json(json!({ "levels": names, "loggers": loggers })))
}

/// Configured and effective level of one logger, with the overrides read from the table.
#[utoipa::path(
    get,
    path = "/loggers/{name}",
    operation_id = "logger",
    tag = "ops",
    params(("name" = String, Path, description = "`ROOT` or a tracing target, `::` or `.` separated",
        pattern = "^[A-Za-z0-9_-]+((::|[.:])[A-Za-z0-9_-]+)*$", max_length = 200)),
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{configuredLevel, effectiveLevel}`", body = utoipa::openapi::Object),
        (status = 400, description = BAD_NAME, body = super::envelope::OpsErrorBody),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn one(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
    LoggerPath(name): LoggerPath,
) -> Result<Json<Value>, OpsError> {
    let levels = &ctx.telemetry.levels;
    levels.refresh(ctx.table.as_ref()).await?;
    Ok(Json(document(levels.levels_of(&name))))
}

/// Sets or removes a logger's level in every instance; 204.
#[utoipa::path(
    post,
    path = "/loggers/{name}",
    operation_id = "setLoggerLevel",
    tag = "ops",
    params(("name" = String, Path, description = "`ROOT` or a tracing target, `::` or `.` separated",
        pattern = "^[A-Za-z0-9_-]+((::|[.:])[A-Za-z0-9_-]+)*$", max_length = 200)),
    request_body = LevelChange,
    security((), ("actuatorToken" = [])),
    responses(
        (status = 204, description = "Stored; every running instance applies it within 60 s"),
        (status = 400, description = BAD_NAME, body = super::envelope::OpsErrorBody),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn configure(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
    LoggerPath(name): LoggerPath,
    JsonBody(change, _): JsonBody<LevelChange, OpsError>,
) -> Result<StatusCode, OpsError> {
    let level = change
        .configured_level
        .map(|raw| raw.parse::<Level>())
        .transpose()
        .map_err(Failure::Invalid)?;
    let levels = &ctx.telemetry.levels;
    if level.is_some() {
        levels.refresh(ctx.table.as_ref()).await?;
        let configured = levels.configured();
        let new = !configured.iter().any(|(configured, _)| *configured == name);
        if new && configured.len() >= MAX_CONFIGURED {
            return Err(Failure::Invalid(format!(
                "at most {MAX_CONFIGURED} loggers may have a level: remove one first \
                 ({{\"configuredLevel\": null}})"
            ))
            .into());
        }
    }
    levels.configure(ctx.table.as_ref(), &name, level).await?;
    tracing::info!(logger = name.as_str(), level = ?level, "logger level changed");
    Ok(StatusCode::NO_CONTENT)
}
