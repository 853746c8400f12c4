//! Envelope of the auth and users areas: `{code, message, data}` with integer `code` 0 on
//! success and `code` = HTTP status on errors.

use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};
use crate::http::docs::{integer_enum, string_enum, Null};

/// A successful auth/users response.
pub struct AccountOk<T>(pub T);

impl<T: Serialize> IntoResponse for AccountOk<T> {
    fn into_response(self) -> Response {
        Json(AccountEnvelope { code: 0, message: "success", data: self.0 }).into_response()
    }
}

/// Body of a successful auth/users answer.
#[derive(Serialize, ToSchema)]
pub struct AccountEnvelope<T> {
    /// Always 0.
    #[schema(schema_with = success_code)]
    code: u16,
    /// Always `success`.
    #[schema(schema_with = success_message)]
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
}

fn success_code() -> utoipa::openapi::Object {
    integer_enum("Always 0", [0])
}

fn success_message() -> utoipa::openapi::Object {
    string_enum("Always `success`", ["success"])
}

/// Body of an auth/users error.
#[derive(Serialize, ToSchema)]
pub struct AccountErrorEnvelope {
    /// The HTTP status.
    #[schema(schema_with = error_codes)]
    code: u16,
    /// What is wrong, in plain words (a generic message for 500).
    message: String,
    /// Always `null`.
    data: Null,
}

fn error_codes() -> utoipa::openapi::Object {
    use AccountError as E;
    let kinds = [
        E::BadRequest(String::new()),
        E::Unauthorized(String::new()),
        E::Forbidden(String::new()),
        E::NotFound(String::new()),
        E::Conflict(String::new()),
        E::TooManyRequests { retry_after_secs: 1 },
        E::Internal(anyhow::anyhow!("")),
    ];
    integer_enum("The HTTP status", kinds.iter().map(|kind| i64::from(kind.status().as_u16())))
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
        let body = AccountErrorEnvelope { code: status.as_u16(), message, data: Null };
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
