//! `PATCH /api/v1/files/{id}/confirm`: the uploaded bytes are checked, put at the file's key,
//! and the record completes (or fails).

use axum::extract::State;

use crate::envelope::FileErrors;
use crate::FilesContext;
use blog_core::http::responses::kinds::*;
use blog_core::http::{
    docs::{IdParam, Null},
    extract::PathId,
};
use blog_users::principal::Authenticated;

use super::{
    envelope::{
        FileEnvelope as Envelope, FileError, FileErrorEnvelope as Error, FileFault, FileOk,
    },
    events::FileConfirmedEvent,
    handlers::{back_off, table_error, visible, Caller, Id, ATTEMPTS, NOT_FOUND, STORAGE},
    model::{self, UploadStatus},
    removal::remove_objects,
    repo::{self, WriteError},
    staging::{self, Placement},
};

const NOTHING_UPLOADED: &str = "Nothing was uploaded for this file yet: PUT the bytes to its \
    upload URL, then confirm";
const FAILED_BEFORE: &str = "This upload failed: its bytes did not match the declared size or \
    md5; start a new upload";

/// Confirms an upload: PENDING → COMPLETED once the uploaded bytes are checked (a COMPLETED file
/// answers success unchanged).
///
/// The staged bytes must have the declared size, and the declared MD5 when there is one; they
/// are copied to the file's key, and the staged object is removed. Bytes that do not match
/// make the file FAILED. A PUBLIC image's resized copies (`variants`) are made shortly after, by
/// the worker. A file with an MD5 becomes the one its owner's instant uploads of that
/// content share.
#[utoipa::path(
    patch,
    path = "/{id}/confirm",
    operation_id = "confirmUpload",
    tag = "files",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "COMPLETED (also when it was already)", body = Envelope<Null>),
        (status = 400, description = "A bad id; nothing uploaded yet (the file stays PENDING); \
            the uploaded bytes do not match the declared size or md5 (the file is now FAILED), \
            or the file is FAILED already (all 10001)", body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 500, description = STORAGE, body = Error),
        FileErrors<Unauthorized>,
    )
)]
pub async fn confirm(
    State(ctx): State<FilesContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<()>, FileError> {
    let blobs = ctx.port.blobs.clone();
    let table = ctx.table.as_ref();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            back_off(attempt - 1).await;
        }
        let record = visible(&ctx, &caller, id).await?;
        match record.upload_status {
            UploadStatus::Completed => return Ok(FileOk::ok(())),
            UploadStatus::Failed => return Err(FileFault::Validation(FAILED_BEFORE.into()).into()),
            UploadStatus::Pending => {}
        }
        let placement =
            staging::place(blobs.as_ref(), &record).await.map_err(FileFault::Storage)?;
        let now = blog_core::time::now_string();
        let mut event = None;
        let written = match &placement {
            Placement::NothingUploaded => {
                return Err(FileFault::Validation(NOTHING_UPLOADED.into()).into());
            }
            Placement::Changed => continue,
            Placement::Mismatch(_) => repo::fail(table, &record, &now).await,
            Placement::Placed(image) => {
                let (image_width, image_height) = image.unzip();
                let record = model::FileRecord { image_width, image_height, ..record.clone() };
                event = FileConfirmedEvent::of(&record);
                let write = event.as_ref().map(FileConfirmedEvent::write).transpose()?;
                repo::complete(table, &record, &now, write).await.map(drop)
            }
        };
        match written {
            Ok(()) => {
                if let Some(event) = &event {
                    event.deliver(table, ctx.port.events.as_ref()).await;
                }
                remove_objects(&ctx, blobs, record.staging_key.into_iter().collect()).await;
                return match placement {
                    Placement::Mismatch(problem) => Err(FileFault::Validation(problem).into()),
                    _ => Ok(FileOk::ok(())),
                };
            }
            Err(WriteError::Changed) => {}
            Err(other) => return Err(table_error(other)),
        }
    }
    Err(table_error(WriteError::Changed))
}
