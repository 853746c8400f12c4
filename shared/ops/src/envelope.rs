//! Envelope of the actuator's errors, in Spring Boot's error shape: `{timestamp, status, error,
//! message}`. Successful actuator answers are bare documents (health, info, metrics, ...).

use axum::http::StatusCode;
use serde::Serialize;

use blog_core::http::{
    error::{Failure, Kind},
    AreaError, Family,
};

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
pub type OpsError = AreaError<OpsFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type OpsErrors<K> = blog_core::http::responses::Errors<OpsFault, K>;

/// The actuator's family: it has no errors of its own, and its successful answers are bare
/// documents.
#[derive(Debug, thiserror::Error)]
pub enum OpsFault {}

impl Family for OpsFault {
    type Success<T: Serialize> = T;
    type ErrorBody = OpsErrorBody;
    const NAME: &'static str = "Ops";
    const UNAUTHORIZED: &'static str = super::TOKEN_REQUIRED;
    const CHALLENGE: Option<&'static str> = Some("Bearer realm=\"actuator\"");

    fn success<T: Serialize>(_message: &'static str, data: T) -> T {
        data
    }

    fn error_body(status: StatusCode, message: String, _: &OpsError) -> OpsErrorBody {
        OpsErrorBody {
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            status: status.as_u16(),
            error: status.canonical_reason().unwrap_or_default().to_string(),
            message,
        }
    }

    fn kind(&self) -> Kind {
        match *self {}
    }

    /// A forbidden caller is answered as one without the token: the actuator has no roles.
    fn adopt(failure: Failure) -> OpsError {
        match failure {
            Failure::Forbidden(message) => AreaError::Failure(Failure::Unauthorized(message)),
            other => AreaError::Failure(other),
        }
    }
}
