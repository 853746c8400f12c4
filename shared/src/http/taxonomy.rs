//! Envelope of the categories and tags areas: `{code, message, data}` with `code` a *string*
//! ("200" on success, the HTTP status otherwise), plus `errorCode` on administration errors.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use serde_json::json;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};

/// A successful categories/tags response.
pub struct TaxonomyOk<T>(pub T);

impl<T: Serialize> IntoResponse for TaxonomyOk<T> {
    fn into_response(self) -> Response {
        Json(json!({ "code": "200", "message": "success", "data": self.0 })).into_response()
    }
}

/// Errors of the categories and tags areas.
#[derive(Debug, thiserror::Error)]
pub enum TaxonomyError {
    /// 400 PARAM_ERROR.
    #[error("{0}")]
    Param(String),
    /// 401 UNAUTHORIZED.
    #[error("{0}")]
    Unauthorized(String),
    /// 403 ACCESS_DENIED.
    #[error("{0}")]
    AccessDenied(String),
    /// 404 NOT_FOUND, e.g. "category does not exist".
    #[error("{0}")]
    NotFound(String),
    /// 409 CONFLICT (duplicate slug, category still in use).
    #[error("{0}")]
    Conflict(String),
    /// 500 SYSTEM_ERROR; logged, never described to the client.
    #[error(transparent)]
    System(#[from] anyhow::Error),
}

impl TaxonomyError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Param(_) => (StatusCode::BAD_REQUEST, "PARAM_ERROR"),
            Self::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "UNAUTHORIZED"),
            Self::AccessDenied(_) => (StatusCode::FORBIDDEN, "ACCESS_DENIED"),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            Self::Conflict(_) => (StatusCode::CONFLICT, "CONFLICT"),
            Self::System(_) => (StatusCode::INTERNAL_SERVER_ERROR, "SYSTEM_ERROR"),
        }
    }
}

impl From<crate::ports::table::TableError> for TaxonomyError {
    fn from(error: crate::ports::table::TableError) -> Self {
        Self::System(error.into())
    }
}

impl IntoResponse for TaxonomyError {
    fn into_response(self) -> Response {
        let (status, error_code) = self.status_and_code();
        let message = match &self {
            Self::System(error) => {
                log_internal(error);
                INTERNAL_MESSAGE.to_string()
            }
            other => other.to_string(),
        };
        let body = json!({
            "code": status.as_u16().to_string(), "message": message, "data": null,
            "errorCode": error_code,
        });
        (status, Json(body)).into_response()
    }
}

impl ApiError for TaxonomyError {
    fn invalid(message: impl Into<String>) -> Self {
        Self::Param(message.into())
    }
    fn unauthorized(message: impl Into<String>) -> Self {
        Self::Unauthorized(message.into())
    }
    fn forbidden(message: impl Into<String>) -> Self {
        Self::AccessDenied(message.into())
    }
    fn internal(error: anyhow::Error) -> Self {
        Self::System(error)
    }
}
