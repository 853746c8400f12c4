//! Envelope of the categories and tags areas: `{code, message, data}` with `code` a *string*
//! ("200" on success, the HTTP status otherwise), plus `errorCode` on administration errors.

use axum::{
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{string_enum, Null},
    error::{ApiError, Failure, Kind},
};

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
    string_enum(
        "The HTTP status, as a string",
        Kind::FAILURES.map(|kind| kind.status().as_u16().to_string()),
    )
}

/// Errors of the categories and tags areas: the core failures, each with its `errorCode`.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct TaxonomyError(#[from] pub Failure);

impl TaxonomyError {
    fn error_code(&self) -> TaxonomyErrorCode {
        use TaxonomyErrorCode as C;
        match &self.0 {
            Failure::Invalid(_) => C::ParamError,
            Failure::Unauthorized(_) => C::Unauthorized,
            Failure::Forbidden(_) => C::AccessDenied,
            Failure::NotFound(_) => C::NotFound,
            Failure::Conflict(_) => C::Conflict,
            Failure::Internal(_) => C::SystemError,
        }
    }
}

impl From<blog_core::ports::table::TableError> for TaxonomyError {
    fn from(error: blog_core::ports::table::TableError) -> Self {
        Self(error.into())
    }
}

impl From<anyhow::Error> for TaxonomyError {
    fn from(error: anyhow::Error) -> Self {
        Self(error.into())
    }
}

impl IntoResponse for TaxonomyError {
    fn into_response(self) -> Response {
        let (status, error_code) = (self.kind().status(), self.error_code());
        let body = TaxonomyErrorEnvelope {
            code: status.as_u16().to_string(),
            message: self.0.into_message(),
            data: Null,
            error_code,
        };
        (status, Json(body)).into_response()
    }
}

impl ApiError for TaxonomyError {
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
        Self(Failure::Forbidden(message.into()))
    }
    fn internal(error: anyhow::Error) -> Self {
        Self(Failure::Internal(error))
    }
}
