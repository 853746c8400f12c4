//! Envelope of the public and admin article areas: `{code, message, data}` with integer `code`
//! equal to the HTTP status, plus `errorCode` on errors.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{integer_enum, Null},
    error::{Failure, Kind},
    Answer, AreaError, Family,
};

/// A successful article answer (200), with `success` or what was done as its message.
pub type ArticleOk<T> = Answer<ArticleFault, T>;

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
    /// 429: too many new semantic searches this minute (`Retry-After` says when to retry).
    TooManyRequests,
    /// 500: internal error.
    SystemError,
}

fn error_codes() -> utoipa::openapi::Object {
    let own = [
        ArticleFault::ArticleNotFound,
        ArticleFault::StatusInvalid(String::new()),
        ArticleFault::AlreadyPublished,
        ArticleFault::AlreadyArchived,
        ArticleFault::VersionConflict,
        ArticleFault::TooManyRequests { retry_after_secs: 1 },
    ];
    let kinds = Kind::FAILURES.into_iter().chain(own.iter().map(Family::kind));
    integer_enum("The HTTP status", kinds.map(|kind| i64::from(kind.status().as_u16())))
}

/// Business and technical errors of the article areas (spec 7.1): a core failure
/// (PARAM_ERROR, UNAUTHORIZED, ACCESS_DENIED, NOT_FOUND for a resource other than the article,
/// INVALID_OPERATION for a conflict, SYSTEM_ERROR), or one of the article's own.
pub type ArticleError = AreaError<ArticleFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type ArticleErrors<K> = blog_core::http::responses::Errors<ArticleFault, K>;

/// The article areas' own errors.
#[derive(Debug, thiserror::Error)]
pub enum ArticleFault {
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
    /// 429 TOO_MANY_REQUESTS with `Retry-After`: new semantic searches are limited per client
    /// and overall ([`crate::search::query_vectors`]).
    #[error("too many new semantic searches this minute: retry in {retry_after_secs} s")]
    TooManyRequests {
        /// Seconds until the window ends.
        retry_after_secs: u64,
    },
}

impl Family for ArticleFault {
    type Success<T: Serialize> = ArticleEnvelope<T>;
    type ErrorBody = ArticleErrorEnvelope;
    const NAME: &'static str = "Article";

    fn success<T: Serialize>(message: &'static str, data: T) -> ArticleEnvelope<T> {
        ArticleEnvelope { code: StatusCode::OK.as_u16(), message, data }
    }

    fn error_body(status: StatusCode, message: String, error: &ArticleError) -> Self::ErrorBody {
        use ArticleErrorCode as C;
        let error_code = match error {
            AreaError::Failure(Failure::Invalid(_)) => C::ParamError,
            AreaError::Failure(Failure::Unauthorized(_)) => C::Unauthorized,
            AreaError::Failure(Failure::Forbidden(_)) => C::AccessDenied,
            AreaError::Failure(Failure::NotFound(_)) => C::NotFound,
            AreaError::Failure(Failure::Conflict(_)) => C::InvalidOperation,
            AreaError::Failure(Failure::Internal(_)) => C::SystemError,
            AreaError::Own(Self::ArticleNotFound) => C::ArticleNotFound,
            AreaError::Own(Self::StatusInvalid(_)) => C::ArticleStatusInvalid,
            AreaError::Own(Self::AlreadyPublished) => C::ArticleAlreadyPublished,
            AreaError::Own(Self::AlreadyArchived) => C::ArticleAlreadyArchived,
            AreaError::Own(Self::VersionConflict) => C::VersionConflict,
            AreaError::Own(Self::TooManyRequests { .. }) => C::TooManyRequests,
        };
        ArticleErrorEnvelope { code: status.as_u16(), message, data: Null, error_code }
    }

    fn kind(&self) -> Kind {
        match self {
            Self::ArticleNotFound => Kind::NotFound,
            Self::StatusInvalid(_)
            | Self::AlreadyPublished
            | Self::AlreadyArchived
            | Self::VersionConflict => Kind::Conflict,
            Self::TooManyRequests { .. } => Kind::TooManyRequests,
        }
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            Self::TooManyRequests { retry_after_secs } => Some(*retry_after_secs),
            _ => None,
        }
    }
}
