//! `GET /actuator/info`: application name and version, the function serving the request, and
//! the git commit and build time embedded at build (see `shared/ops/build.rs`).

use axum::{extract::State, Json};
use serde_json::{json, Value};

use crate::envelope::OpsErrors;
use blog_core::context::AppContext;
use blog_core::http::responses::kinds::*;

fn rfc3339(epoch_seconds: &str) -> Option<String> {
    let seconds = epoch_seconds.parse().ok()?;
    chrono::DateTime::from_timestamp(seconds, 0).map(|time| time.to_rfc3339())
}

/// The info document, in Spring Boot's `app` / `build` / `git` sections.
#[utoipa::path(
    get,
    path = "/info",
    operation_id = "info",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{app: {name, version, function}, build: {version, time}, \
            git: {branch, commit: {id, fullId, time}}}`", body = utoipa::openapi::Object),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn info(_: super::ActuatorAccess, State(ctx): State<AppContext>) -> Json<Value> {
    let commit = env!("BLOG_GIT_COMMIT");
    Json(json!({
        "app": {
            "name": "blog",
            "description": "Serverless blog backend",
            "version": env!("CARGO_PKG_VERSION"),
            "function": ctx.telemetry.function(),
        },
        "build": {
            "name": "blog",
            "version": env!("CARGO_PKG_VERSION"),
            "time": rfc3339(env!("BLOG_BUILD_EPOCH")),
        },
        "git": {
            "branch": env!("BLOG_GIT_BRANCH"),
            "commit": {
                "id": commit.get(..7).unwrap_or(commit),
                "fullId": commit,
                "time": rfc3339(env!("BLOG_GIT_COMMIT_EPOCH")),
            },
        },
    }))
}
