//! Envelope of the actuator's errors, in Spring Boot's error shape: `{timestamp, status, error,
//! message}`. Successful actuator answers are bare documents (health, info, metrics, ...).

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;

use blog_core::http::error::{ApiError, Failure, Kind};

/// Body of an actuator error.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OpsErrorBody {
    /// When the answer was made (RFC 3339).
    timestamp: String,
    /// The HTTP status code.
    status: u16,
    /// The status's reason phrase.
    error: String,
    /// What was wrong.
    message: String,
}

/// Errors of the actuator endpoints: the core failures, written in Spring Boot's shape. A
/// malformed parameter or body is 400, a missing or wrong actuator token 401 (also for a
/// forbidden caller: the actuator has no roles), no such metric or logger 404.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct OpsError(#[from] pub Failure);

impl IntoResponse for OpsError {
    fn into_response(self) -> Response {
        let status = self.kind().status();
        let body = OpsErrorBody {
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            status: status.as_u16(),
            error: status.canonical_reason().unwrap_or_default().to_string(),
            message: self.0.into_message(),
        };
        let mut response = (status, Json(body)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            let challenge = axum::http::HeaderValue::from_static("Bearer realm=\"actuator\"");
            response.headers_mut().insert(axum::http::header::WWW_AUTHENTICATE, challenge);
        }
        response
    }
}

impl ApiError for OpsError {
    fn kind(&self) -> Kind {
        self.0.kind()
    }

    fn invalid(message: impl Into<String>) -> Self {
        Self(Failure::Invalid(message.into()))
    }

    fn unauthorized(message: impl Into<String>) -> Self {
        Self(Failure::Unauthorized(message.into()))
    }

    fn forbidden(message: impl Into<String>) -> Self {
        Self(Failure::Unauthorized(message.into()))
    }

    fn internal(error: anyhow::Error) -> Self {
        Self(Failure::Internal(error))
    }
}

impl From<blog_core::ports::table::TableError> for OpsError {
    fn from(error: blog_core::ports::table::TableError) -> Self {
        Self(error.into())
    }
}
