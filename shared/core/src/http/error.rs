//! The core of every area's errors: what went wrong ([`Failure`]), the one place a kind of
//! failure becomes an HTTP status ([`Kind::status`]), and what the shared extractors and the
//! principal check need of an area's error ([`ApiError`]). Every area writes its errors with the
//! one implementation of [`super::envelope`] (where a 5xx's details go to the log and never to
//! the client), in its own family of bodies and codes beside its feature (`users::envelope`,
//! `taxonomy::envelope`, ...).

use axum::{http::StatusCode, response::IntoResponse};

use crate::ports::table::TableError;

/// Message sent to clients for every 5xx.
pub const INTERNAL_MESSAGE: &str = "internal server error";

/// The kinds of failure the API answers, each with its one HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A parameter or body field breaks its rule (400).
    Invalid,
    /// Not signed in: token missing, malformed, tampered or expired (401).
    Unauthorized,
    /// Signed in without the required role (403).
    Forbidden,
    /// No such resource (404).
    NotFound,
    /// The state does not allow the change, or a concurrent change won (409).
    Conflict,
    /// Refused until a window passes (429): the login throttle's.
    TooManyRequests,
    /// Something failed inside (500).
    Internal,
}

impl Kind {
    /// Every kind a [`Failure`] can be, by status.
    pub const FAILURES: [Kind; 6] = [
        Kind::Invalid,
        Kind::Unauthorized,
        Kind::Forbidden,
        Kind::NotFound,
        Kind::Conflict,
        Kind::Internal,
    ];

    /// The HTTP status of this kind: the only mapping from failures to statuses.
    pub const fn status(self) -> StatusCode {
        match self {
            Kind::Invalid => StatusCode::BAD_REQUEST,
            Kind::Unauthorized => StatusCode::UNAUTHORIZED,
            Kind::Forbidden => StatusCode::FORBIDDEN,
            Kind::NotFound => StatusCode::NOT_FOUND,
            Kind::Conflict => StatusCode::CONFLICT,
            Kind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Kind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// What went wrong, in the terms every area shares; the message names what is wrong in plain
/// words (a parameter error names the field).
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// 400: a parameter or body field breaks its rule.
    #[error("{0}")]
    Invalid(String),
    /// 401.
    #[error("{0}")]
    Unauthorized(String),
    /// 403.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 409.
    #[error("{0}")]
    Conflict(String),
    /// 500: logged, never described to the client.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl Failure {
    /// The kind, which fixes the HTTP status.
    pub fn kind(&self) -> Kind {
        match self {
            Failure::Invalid(_) => Kind::Invalid,
            Failure::Unauthorized(_) => Kind::Unauthorized,
            Failure::Forbidden(_) => Kind::Forbidden,
            Failure::NotFound(_) => Kind::NotFound,
            Failure::Conflict(_) => Kind::Conflict,
            Failure::Internal(_) => Kind::Internal,
        }
    }
}

impl From<TableError> for Failure {
    fn from(error: TableError) -> Self {
        Failure::Internal(error.into())
    }
}

/// Turns any error into an internal [`Failure`] with context, on its way into an area's error.
pub trait ResultExt<T> {
    /// The error, with `context`, as a 500 (logged with its chain, never sent).
    fn or_internal(self, context: &'static str) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> ResultExt<T> for Result<T, E> {
    fn or_internal(self, context: &'static str) -> Result<T, Failure> {
        self.map_err(|error| Failure::Internal(error.into().context(context)))
    }
}

/// What every area's error offers the shared extractors and the principal check, which answer
/// bad input in the caller's envelope.
pub trait ApiError: IntoResponse + Send + Sized + 'static {
    /// The kind, which fixes the HTTP status ([`Kind::status`]).
    fn kind(&self) -> Kind;
    /// A parameter error (400 in every area); `message` names the field.
    fn invalid(message: impl Into<String>) -> Self;
    /// Not signed in, token missing, malformed, tampered or expired (401).
    fn unauthorized(message: impl Into<String>) -> Self;
    /// Signed in without the required role (403).
    fn forbidden(message: impl Into<String>) -> Self;
    /// Something failed inside; details go to the log, never to the client (500).
    fn internal(error: anyhow::Error) -> Self;
}
