//! Envelope of the auth and users areas: `{code, message, data}` with integer `code` 0 on
//! success and `code` = HTTP status on errors. It sits with the accounts, which auth uses.

use axum::{
    http::{header, HeaderValue},
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{integer_enum, string_enum, Null},
    error::{ApiError, Failure, Kind},
};

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
    let kinds = Kind::FAILURES.into_iter().chain([Kind::TooManyRequests]);
    integer_enum("The HTTP status", kinds.map(|kind| i64::from(kind.status().as_u16())))
}

/// Errors of the auth and users areas: a core failure (the body's `code` is its status), or a
/// refusal of the login throttle or the registration limit.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// Any of the core failures.
    #[error(transparent)]
    Failure(#[from] Failure),
    /// 429 with `Retry-After`: the login throttle.
    #[error("too many failed logins, retry in {retry_after_secs} seconds")]
    TooManyRequests {
        /// Seconds until the throttle window passes.
        retry_after_secs: u64,
    },
    /// 429 with `Retry-After`: the client address registered its limit of accounts this hour.
    #[error("too many registrations from this address, retry in {retry_after_secs} seconds")]
    TooManyRegistrations {
        /// Seconds until the address's window ends.
        retry_after_secs: u64,
    },
}

impl From<blog_core::ports::table::TableError> for AccountError {
    fn from(error: blog_core::ports::table::TableError) -> Self {
        Self::Failure(error.into())
    }
}

impl From<anyhow::Error> for AccountError {
    fn from(error: anyhow::Error) -> Self {
        Self::Failure(error.into())
    }
}

impl IntoResponse for AccountError {
    fn into_response(self) -> Response {
        let status = self.kind().status();
        let (message, retry_after) = match self {
            Self::Failure(failure) => (failure.into_message(), None),
            Self::TooManyRequests { retry_after_secs }
            | Self::TooManyRegistrations { retry_after_secs } => {
                (self.to_string(), Some(retry_after_secs.max(1)))
            }
        };
        let body = AccountErrorEnvelope { code: status.as_u16(), message, data: Null };
        let mut response = (status, Json(body)).into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl ApiError for AccountError {
    fn kind(&self) -> Kind {
        match self {
            Self::Failure(failure) => failure.kind(),
            Self::TooManyRequests { .. } | Self::TooManyRegistrations { .. } => {
                Kind::TooManyRequests
            }
        }
    }
    fn invalid(message: impl Into<String>) -> Self {
        Failure::Invalid(message.into()).into()
    }
    fn unauthorized(message: impl Into<String>) -> Self {
        Failure::Unauthorized(message.into()).into()
    }
    fn forbidden(message: impl Into<String>) -> Self {
        Failure::Forbidden(message.into()).into()
    }
    fn internal(error: anyhow::Error) -> Self {
        Failure::Internal(error).into()
    }
}
