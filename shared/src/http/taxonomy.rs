//! Envelope of the categories and tags areas: `{code, message, data}` with `code` a *string*
//! ("200" on success, the HTTP status otherwise), plus `errorCode` on administration errors.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};
use crate::http::docs::{string_enum, Null};

/// A successful categories/tags response.
pub struct TaxonomyOk<T>(pub T);

impl<T: Serialize> IntoResponse for TaxonomyOk<T> {
    fn into_response(self) -> Response {
        Json(TaxonomyEnvelope { code: "200", message: "success", data: self.0 }).into_response()
    }
}

/// Body of a successful categories/tags answer.
#[derive(Serialize, ToSchema)]
pub struct TaxonomyEnvelope<T> {
    /// Always the string `"200"`.
    #[schema(schema_with = success_code)]
    code: &'static str,
    /// Always `success`.
    #[schema(schema_with = success_message)]
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
}

fn success_code() -> utoipa::openapi::Object {
    string_enum("Always the string `200`", ["200"])
}

fn success_message() -> utoipa::openapi::Object {
    string_enum("Always `success`", ["success"])
}

/// Body of a categories/tags error.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaxonomyErrorEnvelope {
    /// The HTTP status, as a string.
    #[schema(schema_with = error_codes)]
    code: String,
    /// What is wrong, in plain words (a generic message for 500).
    message: String,
    /// Always `null`.
    data: Null,
    /// The kind of error.
    error_code: TaxonomyErrorCode,
}

/// `errorCode` of a categories/tags error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaxonomyErrorCode {
    /// 400: validation failed.
    ParamError,
    /// 401: not signed in, token missing or expired.
    Unauthorized,
    /// 403: insufficient role.
    AccessDenied,
    /// 404: the category or tag does not exist.
    NotFound,
    /// 409: duplicate slug, category still in use, or a lost race.
    Conflict,
    /// 500: internal error.
    SystemError,
}

fn error_codes() -> utoipa::openapi::Object {
    use TaxonomyError as E;
    let kinds = [
        E::Param(String::new()),
        E::Unauthorized(String::new()),
        E::AccessDenied(String::new()),
        E::NotFound(String::new()),
        E::Conflict(String::new()),
        E::System(anyhow::anyhow!("")),
    ];
    string_enum(
        "The HTTP status, as a string",
        kinds.iter().map(|kind| kind.status_and_code().0.as_u16().to_string()),
    )
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
    fn status_and_code(&self) -> (StatusCode, TaxonomyErrorCode) {
        use TaxonomyErrorCode as C;
        match self {
            Self::Param(_) => (StatusCode::BAD_REQUEST, C::ParamError),
            Self::Unauthorized(_) => (StatusCode::UNAUTHORIZED, C::Unauthorized),
            Self::AccessDenied(_) => (StatusCode::FORBIDDEN, C::AccessDenied),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, C::NotFound),
            Self::Conflict(_) => (StatusCode::CONFLICT, C::Conflict),
            Self::System(_) => (StatusCode::INTERNAL_SERVER_ERROR, C::SystemError),
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
        let body = TaxonomyErrorEnvelope {
            code: status.as_u16().to_string(),
            message,
            data: Null,
            error_code,
        };
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
