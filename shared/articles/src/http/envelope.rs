//! Envelope of the public and admin article areas: `{code, message, data}` with integer `code`
//! equal to the HTTP status, plus `errorCode` on errors.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{integer_enum, Null},
    error::{ApiError, Failure, Kind},
};

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
    let own = [
        ArticleError::ArticleNotFound,
        ArticleError::StatusInvalid(String::new()),
        ArticleError::AlreadyPublished,
        ArticleError::AlreadyArchived,
        ArticleError::VersionConflict,
    ];
    let kinds = Kind::FAILURES.into_iter().chain(own.iter().map(ApiError::kind));
    integer_enum("The HTTP status", kinds.map(|kind| i64::from(kind.status().as_u16())))
}

/// Business and technical errors of the article areas (spec 7.1): a core failure, or one of
/// the article's own.
#[derive(Debug, thiserror::Error)]
pub enum ArticleError {
    /// A core failure: PARAM_ERROR, UNAUTHORIZED, ACCESS_DENIED, NOT_FOUND (a resource other
    /// than the article), INVALID_OPERATION (a conflict) or SYSTEM_ERROR.
    #[error(transparent)]
    Failure(#[from] Failure),
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
}

impl ArticleError {
    fn error_code(&self) -> ArticleErrorCode {
        use ArticleErrorCode as C;
        match self {
            Self::Failure(Failure::Invalid(_)) => C::ParamError,
            Self::Failure(Failure::Unauthorized(_)) => C::Unauthorized,
            Self::Failure(Failure::Forbidden(_)) => C::AccessDenied,
            Self::Failure(Failure::NotFound(_)) => C::NotFound,
            Self::Failure(Failure::Conflict(_)) => C::InvalidOperation,
            Self::Failure(Failure::Internal(_)) => C::SystemError,
            Self::ArticleNotFound => C::ArticleNotFound,
            Self::StatusInvalid(_) => C::ArticleStatusInvalid,
            Self::AlreadyPublished => C::ArticleAlreadyPublished,
            Self::AlreadyArchived => C::ArticleAlreadyArchived,
            Self::VersionConflict => C::VersionConflict,
        }
    }
}

impl From<blog_core::ports::table::TableError> for ArticleError {
    fn from(error: blog_core::ports::table::TableError) -> Self {
        Self::Failure(error.into())
    }
}

impl From<anyhow::Error> for ArticleError {
    fn from(error: anyhow::Error) -> Self {
        Self::Failure(error.into())
    }
}

impl IntoResponse for ArticleError {
    fn into_response(self) -> Response {
        let (status, error_code) = (self.kind().status(), self.error_code());
        let message = match self {
            Self::Failure(failure) => failure.into_message(),
            own => own.to_string(),
        };
        let body = ArticleErrorEnvelope { code: status.as_u16(), message, data: Null, error_code };
        (status, Json(body)).into_response()
    }
}

impl ApiError for ArticleError {
    fn kind(&self) -> Kind {
        match self {
            Self::Failure(failure) => failure.kind(),
            Self::ArticleNotFound => Kind::NotFound,
            Self::StatusInvalid(_)
            | Self::AlreadyPublished
            | Self::AlreadyArchived
            | Self::VersionConflict => Kind::Conflict,
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
