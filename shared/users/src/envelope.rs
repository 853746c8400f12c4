//! Envelope of the auth and users areas: `{code, message, data}` with integer `code` 0 on
//! success and `code` = HTTP status on errors. It sits with the accounts, which auth uses.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{integer_enum, string_enum, Null},
    error::Kind,
    Answer, AreaError, Family,
};

/// A successful auth/users answer.
pub type AccountOk<T> = Answer<AccountFault, T>;

/// Body of a successful auth/users answer.
#[derive(Serialize, ToSchema)]
pub struct AccountEnvelope<T> {
    /// Always 0.
    #[schema(schema_with = success_code)]
    code: u16,
    /// Always `success`.
    #[schema(schema_with = success_message)]
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
}

fn success_code() -> utoipa::openapi::Object {
    integer_enum("Always 0", [0])
}

fn success_message() -> utoipa::openapi::Object {
    string_enum("Always `success`", ["success"])
}

/// Body of an auth/users error.
#[derive(Serialize, ToSchema)]
pub struct AccountErrorEnvelope {
    /// The HTTP status.
    #[schema(schema_with = error_codes)]
    code: u16,
    /// What is wrong, in plain words (a generic message for 500).
    message: String,
    /// Always `null`.
    data: Null,
}

fn error_codes() -> utoipa::openapi::Object {
    let kinds = Kind::FAILURES.into_iter().chain([Kind::TooManyRequests]);
    integer_enum("The HTTP status", kinds.map(|kind| i64::from(kind.status().as_u16())))
}

/// Errors of the auth and users areas: a core failure (the body's `code` is its status), or a
/// refusal of the login throttle or the registration limit.
pub type AccountError = AreaError<AccountFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type AccountErrors<K> = blog_core::http::responses::Errors<AccountFault, K>;

/// The auth and users areas' own errors: refusals for a window, sent with `Retry-After`.
#[derive(Debug, thiserror::Error)]
pub enum AccountFault {
    /// 429: the login throttle.
    #[error("too many failed logins, retry in {retry_after_secs} seconds")]
    TooManyRequests {
        /// Seconds until the throttle window passes.
        retry_after_secs: u64,
    },
    /// 429: the client address registered its limit of accounts this hour.
    #[error("too many registrations from this address, retry in {retry_after_secs} seconds")]
    TooManyRegistrations {
        /// Seconds until the address's window ends.
        retry_after_secs: u64,
    },
}

impl Family for AccountFault {
    type Success<T: Serialize> = AccountEnvelope<T>;
    type ErrorBody = AccountErrorEnvelope;
    const NAME: &'static str = "Account";

    fn success<T: Serialize>(_message: &'static str, data: T) -> AccountEnvelope<T> {
        AccountEnvelope { code: 0, message: "success", data }
    }

    fn error_body(status: StatusCode, message: String, _: &AccountError) -> AccountErrorEnvelope {
        AccountErrorEnvelope { code: status.as_u16(), message, data: Null }
    }

    fn kind(&self) -> Kind {
        Kind::TooManyRequests
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            Self::TooManyRequests { retry_after_secs }
            | Self::TooManyRegistrations { retry_after_secs } => Some(*retry_after_secs),
        }
    }
}
