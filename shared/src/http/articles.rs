//! Envelope of the public and admin article areas: `{code, message, data}` with integer `code`
//! equal to the HTTP status, plus `errorCode` on errors.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};
use crate::http::docs::{integer_enum, Null};

/// A successful article response with its status (200, or 201 on create) and message.
pub struct ArticleOk<T> {
    /// HTTP status, also the body's `code`.
    pub status: StatusCode,
    /// Body `message`.
    pub message: &'static str,
    /// Body `data`.
    pub data: T,
}

impl<T> ArticleOk<T> {
    /// 200 with message `success`.
    pub fn ok(data: T) -> Self {
        Self { status: StatusCode::OK, message: "success", data }
    }
}

impl<T: Serialize> IntoResponse for ArticleOk<T> {
    fn into_response(self) -> Response {
        let body =
            ArticleEnvelope { code: self.status.as_u16(), message: self.message, data: self.data };
        (self.status, Json(body)).into_response()
    }
}

/// Body of a successful article answer.
#[derive(Serialize, ToSchema)]
pub struct ArticleEnvelope<T> {
    /// The HTTP status: 200.
    #[schema(schema_with = success_code)]
    code: u16,
    /// `success`, or what was done (e.g. `article created successfully`).
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
}

fn success_code() -> utoipa::openapi::Object {
    integer_enum("The HTTP status: 200", [200])
}

/// Body of an article error.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArticleErrorEnvelope {
    /// The HTTP status.
    #[schema(schema_with = error_codes)]
    code: u16,
    /// What is wrong, in plain words (a generic message for 500).
    message: String,
    /// Always `null`.
    data: Null,
    /// The business error.
    error_code: ArticleErrorCode,
}

/// `errorCode` of an article error (spec 7.1, plus VERSION_CONFLICT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ArticleErrorCode {
    /// 400: validation failed.
    ParamError,
    /// 401: not signed in, token missing or expired.
    Unauthorized,
    /// 403: insufficient role.
    AccessDenied,
    /// 404: a resource other than the article does not exist.
    NotFound,
    /// 409: illegal operation.
    InvalidOperation,
    /// 404: the article does not exist.
    ArticleNotFound,
    /// 409: the status does not allow the operation.
    ArticleStatusInvalid,
    /// 409: already published.
    ArticleAlreadyPublished,
    /// 409: already archived.
    ArticleAlreadyArchived,
    /// 409: the article changed since the given `version`.
    VersionConflict,
    /// 500: internal error.
    SystemError,
}

fn error_codes() -> utoipa::openapi::Object {
    use ArticleError as E;
    let kinds = [
        E::Param(String::new()),
        E::Unauthorized(String::new()),
        E::AccessDenied(String::new()),
        E::NotFound(String::new()),
        E::InvalidOperation(String::new()),
        E::ArticleNotFound,
        E::StatusInvalid(String::new()),
        E::AlreadyPublished,
        E::AlreadyArchived,
        E::VersionConflict,
        E::System(anyhow::anyhow!("")),
    ];
    integer_enum(
        "The HTTP status",
        kinds.iter().map(|kind| i64::from(kind.status_and_code().0.as_u16())),
    )
}

/// Business and technical errors of the article areas (spec 7.1).
#[derive(Debug, thiserror::Error)]
pub enum ArticleError {
    /// 400 PARAM_ERROR.
    #[error("{0}")]
    Param(String),
    /// 401 UNAUTHORIZED.
    #[error("{0}")]
    Unauthorized(String),
    /// 403 ACCESS_DENIED.
    #[error("{0}")]
    AccessDenied(String),
    /// 404 NOT_FOUND (a resource other than the article).
    #[error("{0}")]
    NotFound(String),
    /// 409 INVALID_OPERATION.
    #[error("{0}")]
    InvalidOperation(String),
    /// 404 ARTICLE_NOT_FOUND.
    #[error("article does not exist")]
    ArticleNotFound,
    /// 409 ARTICLE_STATUS_INVALID.
    #[error("{0}")]
    StatusInvalid(String),
    /// 409 ARTICLE_ALREADY_PUBLISHED.
    #[error("article is already published")]
    AlreadyPublished,
    /// 409 ARTICLE_ALREADY_ARCHIVED.
    #[error("article is already archived")]
    AlreadyArchived,
    /// 409 VERSION_CONFLICT.
    #[error("article was changed by someone else (stale version)")]
    VersionConflict,
    /// 500 SYSTEM_ERROR; logged, never described to the client.
    #[error(transparent)]
    System(#[from] anyhow::Error),
}

impl ArticleError {
    fn status_and_code(&self) -> (StatusCode, ArticleErrorCode) {
        use ArticleErrorCode as C;
        match self {
            Self::Param(_) => (StatusCode::BAD_REQUEST, C::ParamError),
            Self::Unauthorized(_) => (StatusCode::UNAUTHORIZED, C::Unauthorized),
            Self::AccessDenied(_) => (StatusCode::FORBIDDEN, C::AccessDenied),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, C::NotFound),
            Self::InvalidOperation(_) => (StatusCode::CONFLICT, C::InvalidOperation),
            Self::ArticleNotFound => (StatusCode::NOT_FOUND, C::ArticleNotFound),
            Self::StatusInvalid(_) => (StatusCode::CONFLICT, C::ArticleStatusInvalid),
            Self::AlreadyPublished => (StatusCode::CONFLICT, C::ArticleAlreadyPublished),
            Self::AlreadyArchived => (StatusCode::CONFLICT, C::ArticleAlreadyArchived),
            Self::VersionConflict => (StatusCode::CONFLICT, C::VersionConflict),
            Self::System(_) => (StatusCode::INTERNAL_SERVER_ERROR, C::SystemError),
        }
    }
}

impl From<crate::ports::table::TableError> for ArticleError {
    fn from(error: crate::ports::table::TableError) -> Self {
        Self::System(error.into())
    }
}

impl IntoResponse for ArticleError {
    fn into_response(self) -> Response {
        let (status, error_code) = self.status_and_code();
        let message = match &self {
            Self::System(error) => {
                log_internal(error);
                INTERNAL_MESSAGE.to_string()
            }
            other => other.to_string(),
        };
        let body = ArticleErrorEnvelope { code: status.as_u16(), message, data: Null, error_code };
        (status, Json(body)).into_response()
    }
}

impl ApiError for ArticleError {
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
