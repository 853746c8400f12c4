//! Envelope of the public and admin article areas: `{code, message, data}` with integer `code`
//! equal to the HTTP status, plus `errorCode` on errors.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use serde_json::json;

use super::{log_internal, ApiError, INTERNAL_MESSAGE};

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
            json!({ "code": self.status.as_u16(), "message": self.message, "data": self.data });
        (self.status, Json(body)).into_response()
    }
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
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Param(_) => (StatusCode::BAD_REQUEST, "PARAM_ERROR"),
            Self::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "UNAUTHORIZED"),
            Self::AccessDenied(_) => (StatusCode::FORBIDDEN, "ACCESS_DENIED"),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            Self::InvalidOperation(_) => (StatusCode::CONFLICT, "INVALID_OPERATION"),
            Self::ArticleNotFound => (StatusCode::NOT_FOUND, "ARTICLE_NOT_FOUND"),
            Self::StatusInvalid(_) => (StatusCode::CONFLICT, "ARTICLE_STATUS_INVALID"),
            Self::AlreadyPublished => (StatusCode::CONFLICT, "ARTICLE_ALREADY_PUBLISHED"),
            Self::AlreadyArchived => (StatusCode::CONFLICT, "ARTICLE_ALREADY_ARCHIVED"),
            Self::VersionConflict => (StatusCode::CONFLICT, "VERSION_CONFLICT"),
            Self::System(_) => (StatusCode::INTERNAL_SERVER_ERROR, "SYSTEM_ERROR"),
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
        let body = json!({
            "code": status.as_u16(), "message": message, "data": null, "errorCode": error_code,
        });
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
