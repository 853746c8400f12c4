//! The one envelope implementation every area writes its answers with. An area's family
//! ([`Family`]) says only what is its own: its success body, its error body, its own errors
//! with their kinds, and the headers its errors add. The rest is written here once: the status
//! from [`Kind::status`], the conversions into an area's error ([`AreaError`]), the
//! [`ApiError`] the shared extractors need, and the rule that the details of a 5xx are logged
//! once and never sent.

use std::marker::PhantomData;

use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;

use super::error::{ApiError, Failure, Kind, INTERNAL_MESSAGE};
use crate::ports::table::TableError;

/// An area's family of answers, implemented by the area's own errors (an empty enum when the
/// area has none): how its bodies are written and what its own errors are.
pub trait Family: std::error::Error + Send + Sync + Sized + 'static {
    /// Body of a successful answer carrying `T`.
    type Success<T: Serialize>: Serialize;
    /// Body of an error answer.
    type ErrorBody: Serialize + utoipa::ToSchema;
    /// The family's name in the OpenAPI description, the prefix of its shared error answers
    /// ([`super::responses`]).
    const NAME: &'static str;
    /// What the description says of a 401.
    const UNAUTHORIZED: &'static str = super::docs::UNAUTHORIZED;
    /// `WWW-Authenticate` challenge sent with every 401, if the area sends one.
    const CHALLENGE: Option<&'static str> = None;

    /// The body of a successful answer: `message` (`success` unless the handler says what was
    /// done) and the payload.
    fn success<T: Serialize>(message: &'static str, data: T) -> Self::Success<T>;

    /// The body of an error answer with `status` and `message` (already the generic message
    /// for a core 5xx); `error` gives the area's code.
    fn error_body(status: StatusCode, message: String, error: &AreaError<Self>) -> Self::ErrorBody;

    /// The kind of one of the area's own errors, which fixes its status.
    fn kind(&self) -> Kind;

    /// The cause of one of the area's own 5xx, logged where it is answered. The message sent
    /// is the error's own (`Display`), which for a 5xx must be fixed text.
    fn internal_cause(&self) -> Option<&anyhow::Error> {
        None
    }

    /// Seconds for `Retry-After` (at least 1 is sent) when this own error is a refusal that
    /// lasts a window.
    fn retry_after(&self) -> Option<u64> {
        None
    }

    /// A core failure in the area's terms: kept as it is unless the area writes some of them
    /// as errors of its own.
    fn adopt(failure: Failure) -> AreaError<Self> {
        AreaError::Failure(failure)
    }
}

/// An area's error: a core [`Failure`] or one of the area's own (its family).
#[derive(Debug, thiserror::Error)]
pub enum AreaError<F: Family> {
    /// Any of the core failures.
    #[error(transparent)]
    Failure(Failure),
    /// One of the area's own errors.
    #[error(transparent)]
    Own(F),
}

/// Logs an internal error once, with its chain, where it is turned into a 5xx.
fn log_internal(error: &anyhow::Error) {
    tracing::error!(error = format!("{error:#}"), "internal error");
}

impl<F: Family> AreaError<F> {
    /// The message a client reads. The details of a 5xx are logged here, once, and never sent:
    /// a core one answers [`INTERNAL_MESSAGE`], an area's own its fixed message.
    fn public_message(&self) -> String {
        match self {
            Self::Failure(Failure::Internal(cause)) => {
                log_internal(cause);
                INTERNAL_MESSAGE.to_string()
            }
            Self::Failure(failure) => failure.to_string(),
            Self::Own(own) => {
                if let (Kind::Internal, Some(cause)) = (own.kind(), own.internal_cause()) {
                    log_internal(cause);
                }
                own.to_string()
            }
        }
    }
}

impl<F: Family> AreaError<F> {
    fn own(&self) -> Option<&F> {
        match self {
            Self::Own(own) => Some(own),
            Self::Failure(_) => None,
        }
    }
}

impl<F: Family> From<F> for AreaError<F> {
    fn from(own: F) -> Self {
        Self::Own(own)
    }
}

impl<F: Family> From<Failure> for AreaError<F> {
    fn from(failure: Failure) -> Self {
        F::adopt(failure)
    }
}

impl<F: Family> From<TableError> for AreaError<F> {
    fn from(error: TableError) -> Self {
        F::adopt(error.into())
    }
}

impl<F: Family> From<anyhow::Error> for AreaError<F> {
    fn from(error: anyhow::Error) -> Self {
        F::adopt(error.into())
    }
}

impl<F: Family> IntoResponse for AreaError<F> {
    fn into_response(self) -> Response {
        let status = self.kind().status();
        let body = F::error_body(status, self.public_message(), &self);
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        if let Some(seconds) = self.own().and_then(Family::retry_after) {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        }
        if let (StatusCode::UNAUTHORIZED, Some(challenge)) = (status, F::CHALLENGE) {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
        }
        response
    }
}

impl<F: Family> ApiError for AreaError<F> {
    fn kind(&self) -> Kind {
        match self {
            Self::Failure(failure) => failure.kind(),
            Self::Own(own) => own.kind(),
        }
    }
    fn invalid(message: impl Into<String>) -> Self {
        F::adopt(Failure::Invalid(message.into()))
    }
    fn unauthorized(message: impl Into<String>) -> Self {
        F::adopt(Failure::Unauthorized(message.into()))
    }
    fn forbidden(message: impl Into<String>) -> Self {
        F::adopt(Failure::Forbidden(message.into()))
    }
    fn internal(error: anyhow::Error) -> Self {
        F::adopt(Failure::Internal(error))
    }
}

/// A successful answer (200) in the family `F`'s body, with `message` and the payload.
pub struct Answer<F, T> {
    /// Body `message`: `success`, or what was done.
    pub message: &'static str,
    /// Body `data`.
    pub data: T,
    family: PhantomData<fn() -> F>,
}

impl<F, T> Answer<F, T> {
    /// 200 with message `success`.
    pub fn ok(data: T) -> Self {
        Self { message: "success", data, family: PhantomData }
    }

    /// The same answer saying what was done (in families whose body has a free message).
    pub fn saying(self, message: &'static str) -> Self {
        Self { message, ..self }
    }
}

impl<F: Family, T: Serialize> IntoResponse for Answer<F, T> {
    fn into_response(self) -> Response {
        Json(F::success(self.message, self.data)).into_response()
    }
}
