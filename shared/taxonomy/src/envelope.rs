//! Envelope of the categories and tags areas: `{code, message, data}` with `code` a *string*
//! ("200" on success, the HTTP status otherwise), plus `errorCode` on administration errors.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{string_enum, Null},
    error::{Failure, Kind},
    Answer, AreaError, Family,
};

/// A successful categories/tags answer.
pub type TaxonomyOk<T> = Answer<TaxonomyFault, T>;

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
pub type TaxonomyError = AreaError<TaxonomyFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type TaxonomyErrors<K> = blog_core::http::responses::Errors<TaxonomyFault, K>;

/// The categories and tags areas' family: they have no errors of their own.
#[derive(Debug, thiserror::Error)]
pub enum TaxonomyFault {}

impl Family for TaxonomyFault {
    type Success<T: Serialize> = TaxonomyEnvelope<T>;
    type ErrorBody = TaxonomyErrorEnvelope;
    const NAME: &'static str = "Taxonomy";

    fn success<T: Serialize>(_message: &'static str, data: T) -> TaxonomyEnvelope<T> {
        TaxonomyEnvelope { code: "200", message: "success", data }
    }

    fn error_body(status: StatusCode, message: String, error: &TaxonomyError) -> Self::ErrorBody {
        use TaxonomyErrorCode as C;
        let error_code = match error {
            AreaError::Failure(Failure::Invalid(_)) => C::ParamError,
            AreaError::Failure(Failure::Unauthorized(_)) => C::Unauthorized,
            AreaError::Failure(Failure::Forbidden(_)) => C::AccessDenied,
            AreaError::Failure(Failure::NotFound(_)) => C::NotFound,
            AreaError::Failure(Failure::Conflict(_)) => C::Conflict,
            AreaError::Failure(Failure::Internal(_)) => C::SystemError,
            AreaError::Own(own) => match *own {},
        };
        let code = status.as_u16().to_string();
        TaxonomyErrorEnvelope { code, message, data: Null, error_code }
    }

    fn kind(&self) -> Kind {
        match *self {}
    }
}
