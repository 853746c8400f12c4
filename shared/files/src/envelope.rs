//! Envelope of the files area: `{code, message, data, timestamp}` with integer `code` 0 on
//! success and the numeric codes of spec 7.3 on errors (which differ from the HTTP status).
//! Every error has its own code there, so the area keeps its own enum; each case maps to a core
//! kind for its status, and the 5xx cases answer their fixed message while the cause is logged.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use blog_core::http::{
    docs::{integer_enum, string_enum, Null},
    error::{Failure, Kind},
    Answer, AreaError, Family,
};

fn timestamp() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A successful files answer.
pub type FileOk<T> = Answer<FileFault, T>;

/// Body of a successful files answer.
#[derive(Serialize, ToSchema)]
pub struct FileEnvelope<T> {
    /// Always 0.
    #[schema(schema_with = success_code)]
    code: u32,
    /// Always `success`.
    #[schema(schema_with = success_message)]
    message: &'static str,
    /// The payload; `null` when there is none.
    data: T,
    /// When the answer was made, in epoch milliseconds.
    timestamp: i64,
}

fn success_code() -> utoipa::openapi::Object {
    integer_enum("Always 0", [0])
}

fn success_message() -> utoipa::openapi::Object {
    string_enum("Always `success`", ["success"])
}

/// Body of a files error.
#[derive(Serialize, ToSchema)]
pub struct FileErrorEnvelope {
    /// The error's code of spec 7.3 (10001 parameter, 10002 unauthorized, 11002 type not
    /// allowed, 11003 too large, 11004 bad name, 11006 storage failure, 11007 signing failure,
    /// 11008 not found, ...), which differs from the HTTP status.
    #[schema(schema_with = error_codes)]
    code: u32,
    /// What is wrong, in plain words.
    message: String,
    /// Always `null`.
    data: Null,
    /// When the answer was made, in epoch milliseconds.
    timestamp: i64,
}

fn error_codes() -> utoipa::openapi::Object {
    use FileFault as E;
    let failure = || anyhow::anyhow!("");
    let kinds = [
        E::Validation(String::new()),
        E::Unauthorized(String::new()),
        E::Forbidden(String::new()),
        E::UploadFailed(failure()),
        E::InvalidType(String::new()),
        E::ExceedMaxSize(String::new()),
        E::InvalidName(String::new()),
        E::Storage(failure()),
        E::PresignFailed(failure()),
        E::NotFound,
    ];
    integer_enum(
        "The code of spec 7.3, which differs from the HTTP status",
        kinds.iter().map(|kind| i64::from(kind.code())),
    )
}

/// Errors of the files area (spec 7.3): all the area's own, as every one has its code there.
pub type FileError = AreaError<FileFault>;

/// The shared error answers `K` of these areas, for their operations' descriptions.
pub type FileErrors<K> = blog_core::http::responses::Errors<FileFault, K>;

/// The files area's errors (spec 7.3).
#[derive(Debug, thiserror::Error)]
pub enum FileFault {
    /// 10001 / 400.
    #[error("{0}")]
    Validation(String),
    /// 10002 / 401.
    #[error("{0}")]
    Unauthorized(String),
    /// 10003 / 403.
    #[error("{0}")]
    Forbidden(String),
    /// 11001 / 500 FILE_UPLOAD_FAILED.
    #[error("upload failed")]
    UploadFailed(#[source] anyhow::Error),
    /// 11002 / 400 FILE_INVALID_TYPE.
    #[error("{0}")]
    InvalidType(String),
    /// 11003 / 400 FILE_EXCEED_MAX_SIZE.
    #[error("{0}")]
    ExceedMaxSize(String),
    /// 11004 / 400 FILE_INVALID_NAME.
    #[error("{0}")]
    InvalidName(String),
    /// 11006 / 500 FILE_STORAGE_ERROR.
    #[error("storage service failure")]
    Storage(#[source] anyhow::Error),
    /// 11007 / 500 FILE_PRESIGNED_URL_FAILED.
    #[error("pre-signed address could not be created")]
    PresignFailed(#[source] anyhow::Error),
    /// 11008 / 404 FILE_NOT_FOUND.
    #[error("file does not exist")]
    NotFound,
}

impl FileFault {
    /// The core kind (which fixes the HTTP status) and the code of spec 7.3.
    fn kind_and_code(&self) -> (Kind, u32) {
        match self {
            Self::Validation(_) => (Kind::Invalid, 10001),
            Self::Unauthorized(_) => (Kind::Unauthorized, 10002),
            Self::Forbidden(_) => (Kind::Forbidden, 10003),
            Self::UploadFailed(_) => (Kind::Internal, 11001),
            Self::InvalidType(_) => (Kind::Invalid, 11002),
            Self::ExceedMaxSize(_) => (Kind::Invalid, 11003),
            Self::InvalidName(_) => (Kind::Invalid, 11004),
            Self::Storage(_) => (Kind::Internal, 11006),
            Self::PresignFailed(_) => (Kind::Internal, 11007),
            Self::NotFound => (Kind::NotFound, 11008),
        }
    }

    fn code(&self) -> u32 {
        self.kind_and_code().1
    }
}

impl Family for FileFault {
    type Success<T: Serialize> = FileEnvelope<T>;
    type ErrorBody = FileErrorEnvelope;
    const NAME: &'static str = "File";
    const UNAUTHORIZED: &'static str = "Token missing, malformed, tampered or expired, or the \
        account is disabled or deleted (10002)";

    fn success<T: Serialize>(_message: &'static str, data: T) -> FileEnvelope<T> {
        FileEnvelope { code: 0, message: "success", data, timestamp: timestamp() }
    }

    fn error_body(status: StatusCode, message: String, error: &FileError) -> FileErrorEnvelope {
        let code = match error {
            AreaError::Own(fault) => fault.code(),
            // Not built: `adopt` writes every core failure as one of the area's own.
            AreaError::Failure(_) => u32::from(status.as_u16()),
        };
        FileErrorEnvelope { code, message, data: Null, timestamp: timestamp() }
    }

    fn kind(&self) -> Kind {
        self.kind_and_code().0
    }

    fn internal_cause(&self) -> Option<&anyhow::Error> {
        match self {
            Self::UploadFailed(cause) | Self::Storage(cause) | Self::PresignFailed(cause) => {
                Some(cause)
            }
            _ => None,
        }
    }

    /// The core failures as the spec's: a parameter, sign-in or role error by its code, a
    /// missing file, and any other failure (a lost race included) as a storage failure.
    fn adopt(failure: Failure) -> FileError {
        AreaError::Own(match failure {
            Failure::Invalid(message) => Self::Validation(message),
            Failure::Unauthorized(message) => Self::Unauthorized(message),
            Failure::Forbidden(message) => Self::Forbidden(message),
            Failure::NotFound(_) => Self::NotFound,
            Failure::Conflict(message) => Self::Storage(anyhow::anyhow!(message)),
            Failure::Internal(cause) => Self::Storage(cause),
        })
    }
}
