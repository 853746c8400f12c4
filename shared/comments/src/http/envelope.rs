//! Envelope of the comment areas: the articles' family (comments-and-stats.md): `{code,
//! message, data, timestamp}` with `code` 200 on success; on errors `code` equal to the HTTP
//! status plus `errorCode`; 429 also sends `Retry-After`.

use axum::{
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    caching::validators::weak_entity_tag,
    docs::{api_time, integer_enum, Null},
    error::{Failure, Kind},
    Answer, AreaError, Family,
};

/// A successful comment answer (200).
pub type CommentOk<T> = Answer<CommentFault, T>;

/// A successful comment answer that HTTP caches keep (a page of the tree), with its headers:
/// its entity tag is a weak one computed from `data` and those headers alone (`http::caching`),
/// as the envelope's `timestamp`, the time of the answer, changes every second while the
/// comments stay the same, and a page whose comments stay the same may gain a next page.
pub struct CommentRead<T>(pub T, pub HeaderMap);

impl<T: Serialize> IntoResponse for CommentRead<T> {
    fn into_response(self) -> Response {
        // The data serialised on its own for the tag: the envelope's serialisation cannot leave
        // the timestamp out.
        let mut tagged = match serde_json::to_vec(&self.0) {
            Ok(data) => data,
            Err(error) => {
                let error = anyhow::Error::new(error).context("serialising a comment answer");
                return CommentError::from(error).into_response();
            }
        };
        for (name, value) in &self.1 {
            tagged.extend_from_slice(b"\n");
            tagged.extend_from_slice(name.as_str().as_bytes());
            tagged.extend_from_slice(value.as_bytes());
        }
        let tag = weak_entity_tag(&tagged);
        let mut response = CommentOk::ok(self.0).into_response();
        response.headers_mut().extend(self.1);
        response.headers_mut().insert(header::ETAG, tag);
        response
    }
}

/// Body of a successful comment answer.
#[derive(Serialize, ToSchema)]
pub struct CommentEnvelope<T> {
    /// The HTTP status: 200.
    #[schema(schema_with = success_code)]
    code: u16,
    /// `success`.
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
    /// When the answer was made.
    #[schema(schema_with = api_time)]
    timestamp: String,
}

fn success_code() -> utoipa::openapi::Object {
    integer_enum("The HTTP status: 200", [200])
}

/// Body of a comment error.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentErrorEnvelope {
    /// The HTTP status.
    #[schema(schema_with = error_codes)]
    code: u16,
    /// What is wrong, in plain words (a generic message for 500).
    message: String,
    /// Always `null`.
    data: Null,
    /// The business error.
    error_code: CommentErrorCode,
    /// When the answer was made.
    #[schema(schema_with = api_time)]
    timestamp: String,
}

/// `errorCode` of a comment error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommentErrorCode {
    /// 400: a parameter or field breaks its rule (the message names it).
    ParamError,
    /// 401: not signed in, token missing or expired.
    Unauthorized,
    /// 403: signed in without the role.
    Forbidden,
    /// 404: a resource other than a comment or an article (a report).
    NotFound,
    /// 409: the state does not allow the change.
    Conflict,
    /// 404: no such comment, or one the caller may not see.
    CommentNotFound,
    /// 403: someone else's comment.
    CommentForbidden,
    /// 403: the article's comments are disabled.
    CommentsDisabled,
    /// 400: a reply deeper than 5 levels.
    CommentTooDeep,
    /// 404: no readable article.
    ArticleNotFound,
    /// 429: more than 5 comments, 10 edits or 10 reports in a minute.
    TooManyRequests,
    /// 500: internal error.
    SystemError,
}

fn error_codes() -> utoipa::openapi::Object {
    let own = [Kind::TooManyRequests];
    integer_enum(
        "The HTTP status",
        Kind::FAILURES.into_iter().chain(own).map(|kind| i64::from(kind.status().as_u16())),
    )
}

/// Errors of the comment areas: a core failure (PARAM_ERROR, UNAUTHORIZED, FORBIDDEN, NOT_FOUND,
/// CONFLICT, SYSTEM_ERROR), or one of the comments' own.
pub type CommentError = AreaError<CommentFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type CommentErrors<K> = blog_core::http::responses::Errors<CommentFault, K>;

/// The comment areas' own errors.
#[derive(Debug, thiserror::Error)]
pub enum CommentFault {
    /// 404 COMMENT_NOT_FOUND.
    #[error("comment does not exist")]
    CommentNotFound,
    /// 403 COMMENT_FORBIDDEN.
    #[error("this comment is someone else's")]
    CommentForbidden,
    /// 403 COMMENTS_DISABLED.
    #[error("comments are disabled on this article")]
    CommentsDisabled,
    /// 400 COMMENT_TOO_DEEP.
    #[error("replies nest at most 5 levels deep: this comment takes no reply")]
    TooDeep,
    /// 404 ARTICLE_NOT_FOUND.
    #[error("article does not exist")]
    ArticleNotFound,
    /// 429 TOO_MANY_REQUESTS with `Retry-After`.
    #[error("at most {per_minute} {what} a minute: retry in {retry_after_secs} s")]
    TooManyRequests {
        /// Seconds until the window ends.
        retry_after_secs: u64,
        /// The limit.
        per_minute: i64,
        /// What is limited (`comments`, `edits`, `reports`).
        what: &'static str,
    },
}

impl Family for CommentFault {
    type Success<T: Serialize> = CommentEnvelope<T>;
    type ErrorBody = CommentErrorEnvelope;
    const NAME: &'static str = "Comment";

    fn success<T: Serialize>(_message: &'static str, data: T) -> CommentEnvelope<T> {
        let timestamp = blog_core::time::now_string();
        CommentEnvelope { code: 200, message: "success", data, timestamp }
    }

    fn error_body(status: StatusCode, message: String, error: &CommentError) -> Self::ErrorBody {
        use CommentErrorCode as C;
        let error_code = match error {
            AreaError::Failure(Failure::Invalid(_)) => C::ParamError,
            AreaError::Failure(Failure::Unauthorized(_)) => C::Unauthorized,
            AreaError::Failure(Failure::Forbidden(_)) => C::Forbidden,
            AreaError::Failure(Failure::NotFound(_)) => C::NotFound,
            AreaError::Failure(Failure::Conflict(_)) => C::Conflict,
            AreaError::Failure(Failure::Internal(_)) => C::SystemError,
            AreaError::Own(Self::CommentNotFound) => C::CommentNotFound,
            AreaError::Own(Self::CommentForbidden) => C::CommentForbidden,
            AreaError::Own(Self::CommentsDisabled) => C::CommentsDisabled,
            AreaError::Own(Self::TooDeep) => C::CommentTooDeep,
            AreaError::Own(Self::ArticleNotFound) => C::ArticleNotFound,
            AreaError::Own(Self::TooManyRequests { .. }) => C::TooManyRequests,
        };
        let timestamp = blog_core::time::now_string();
        CommentErrorEnvelope { code: status.as_u16(), message, data: Null, error_code, timestamp }
    }

    fn kind(&self) -> Kind {
        match self {
            Self::CommentNotFound | Self::ArticleNotFound => Kind::NotFound,
            Self::CommentForbidden | Self::CommentsDisabled => Kind::Forbidden,
            Self::TooDeep => Kind::Invalid,
            Self::TooManyRequests { .. } => Kind::TooManyRequests,
        }
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            Self::TooManyRequests { retry_after_secs, .. } => Some(*retry_after_secs),
            _ => None,
        }
    }
}
