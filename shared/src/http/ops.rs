//! Envelope of the actuator's errors, in Spring Boot's error shape: `{timestamp, status, error,
//! message}`. Successful actuator answers are bare documents (health, info, metrics, ...).

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};

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

/// Errors of the actuator endpoints.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// A parameter or body is malformed (400).
    #[error("{0}")]
    Invalid(String),
    /// The actuator token is required and missing or wrong (401).
    #[error("{0}")]
    Unauthorized(String),
    /// No such metric or logger, or no measurement matches the tags (404).
    #[error("{0}")]
    NotFound(String),
    /// Something failed inside (500); details are logged only.
    #[error("internal error")]
    Internal(anyhow::Error),
}

impl IntoResponse for OpsError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            OpsError::Invalid(message) => (StatusCode::BAD_REQUEST, message),
            OpsError::Unauthorized(message) => (StatusCode::UNAUTHORIZED, message),
            OpsError::NotFound(message) => (StatusCode::NOT_FOUND, message),
            OpsError::Internal(error) => {
                log_internal(&error);
                (StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE.to_string())
            }
        };
        let body = OpsErrorBody {
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            status: status.as_u16(),
            error: status.canonical_reason().unwrap_or_default().to_string(),
            message,
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
    fn invalid(message: impl Into<String>) -> Self {
        OpsError::Invalid(message.into())
    }

    fn unauthorized(message: impl Into<String>) -> Self {
        OpsError::Unauthorized(message.into())
    }

    fn forbidden(message: impl Into<String>) -> Self {
        OpsError::Unauthorized(message.into())
    }

    fn internal(error: anyhow::Error) -> Self {
        OpsError::Internal(error)
    }
}

impl From<crate::ports::table::TableError> for OpsError {
    fn from(error: crate::ports::table::TableError) -> Self {
        OpsError::Internal(error.into())
    }
}
