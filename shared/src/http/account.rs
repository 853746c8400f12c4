//! Envelope of the auth and users areas: `{code, message, data}` with integer `code` 0 on
//! success and `code` = HTTP status on errors.

use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use serde_json::json;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};

/// A successful auth/users response.
pub struct AccountOk<T>(pub T);

impl<T: Serialize> IntoResponse for AccountOk<T> {
    fn into_response(self) -> Response {
        Json(json!({ "code": 0, "message": "success", "data": self.0 })).into_response()
    }
}

/// Errors of the auth and users areas.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// 400: a broken rule, named in the message.
    #[error("{0}")]
    BadRequest(String),
    /// 401.
    #[error("{0}")]
    Unauthorized(String),
    /// 403.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 409.
    #[error("{0}")]
    Conflict(String),
    /// 429 with `Retry-After`.
    #[error("too many failed logins, retry in {retry_after_secs} seconds")]
    TooManyRequests {
        /// Seconds until the throttle window passes.
        retry_after_secs: u64,
    },
    /// 500; logged, never described to the client.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AccountError {
    fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<crate::ports::table::TableError> for AccountError {
    fn from(error: crate::ports::table::TableError) -> Self {
        Self::Internal(error.into())
    }
}

impl IntoResponse for AccountError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self {
            Self::Internal(error) => {
                log_internal(error);
                INTERNAL_MESSAGE.to_string()
            }
            other => other.to_string(),
        };
        let body = json!({ "code": status.as_u16(), "message": message, "data": null });
        let mut response = (status, Json(body)).into_response();
        if let Self::TooManyRequests { retry_after_secs } = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs.max(1)));
        }
        response
    }
}

impl ApiError for AccountError {
    fn invalid(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }
    fn unauthorized(message: impl Into<String>) -> Self {
        Self::Unauthorized(message.into())
    }
    fn forbidden(message: impl Into<String>) -> Self {
        Self::Forbidden(message.into())
    }
    fn internal(error: anyhow::Error) -> Self {
        Self::Internal(error)
    }
}
