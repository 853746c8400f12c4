//! Handlers of /api/v1/files. Every route needs a token; a record answers only its owner or an
//! administrator (others get 11008, as if it did not exist).

use std::{sync::Arc, time::Duration};

use axum::extract::State;
use serde::Deserialize;

use crate::{
    auth::principal::{Authenticated, Principal},
    context::AppContext,
    http::{
        extract::{JsonBody, PathId, QueryParams},
        files::{FileError, FileOk},
    },
    ports::blobs::{Blobs, UploadSpec},
};

use super::{
    input::{self, NewUpload, PresignInput},
    model::{FileRecord, FileView, PresignedView, COMPLETED, PENDING},
    repo::{self, Release, WriteError},
};

type Caller = Authenticated<FileError>;
type Id = PathId<FileError>;

/// How often a write that lost a race is re-read and retried before giving up.
const ATTEMPTS: usize = 8;

fn blobs(ctx: &AppContext) -> Result<Arc<dyn Blobs>, FileError> {
    ctx.blobs
        .clone()
        .ok_or_else(|| FileError::Storage(anyhow::anyhow!("no object storage is configured")))
}

fn table_error(error: WriteError) -> FileError {
    match error {
        WriteError::Table(error) => error.into(),
        WriteError::Changed => FileError::Storage(anyhow::anyhow!(
            "a file record kept changing during {ATTEMPTS} attempts"
        )),
    }
}

/// The record `id` when `caller` may act on it, else 11008.
async fn visible(ctx: &AppContext, caller: &Principal, id: u64) -> Result<FileRecord, FileError> {
    repo::find(ctx.table.as_ref(), id)
        .await?
        .filter(|record| record.visible_to(caller.id, caller.is_admin()))
        .ok_or(FileError::NotFound)
}

fn new_record(
    id: u64,
    owner: &Principal,
    upload: &NewUpload,
    file_key: String,
    status: u8,
    blobs: &dyn Blobs,
) -> FileRecord {
    let now = crate::time::now_string();
    FileRecord {
        id,
        owner_id: owner.id,
        file_name: upload.file_name.clone(),
        file_size: upload.file_size,
        file_type: upload.file_type.clone(),
        file_key,
        md5: upload.md5.clone(),
        storage_type: blobs.storage_type().into(),
        bucket_name: blobs.bucket(),
        upload_status: status,
        deleted: false,
        create_time: now.clone(),
        update_time: now,
    }
}

/// POST /presigned: an instant upload when a completed object of the same MD5 and size is
/// stored already, else a PENDING record and a signed upload URL.
pub async fn presigned(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    JsonBody(body, ..): JsonBody<PresignInput, FileError>,
) -> Result<FileOk<PresignedView>, FileError> {
    let upload = input::validate(body)?;
    let blobs = blobs(&ctx)?;
    if let Some(view) = instant(&ctx, &caller, &upload, blobs.as_ref()).await? {
        return Ok(FileOk(view));
    }
    let file_key = input::new_key(&upload.extension, chrono::Utc::now());
    let spec = UploadSpec {
        key: file_key.clone(),
        content_type: upload.file_type.clone(),
        content_length: upload.file_size,
        md5: upload.md5_bytes(),
        expires: ctx.config.upload_url_ttl,
    };
    let signed = blobs.presign_put(&spec).await.map_err(FileError::PresignFailed)?;
    let id = repo::new_id(ctx.table.as_ref()).await?;
    let record = new_record(id, &caller, &upload, file_key.clone(), PENDING, blobs.as_ref());
    repo::create(ctx.table.as_ref(), &record).await?;
    Ok(FileOk(PresignedView {
        upload_url: Some(signed.url),
        upload_headers: Some(signed.headers.into_iter().collect()),
        file_id: id.to_string(),
        file_key,
        instant: false,
    }))
}

/// A new COMPLETED record for `caller` pointing at the stored object of the same content,
/// when there is one. Nothing of the other records sharing the object is revealed.
async fn instant(
    ctx: &AppContext,
    caller: &Principal,
    upload: &NewUpload,
    blobs: &dyn Blobs,
) -> Result<Option<PresignedView>, FileError> {
    let Some(md5) = &upload.md5 else {
        return Ok(None);
    };
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let Some(object) = repo::find_object(table, md5, upload.file_size).await? else {
            return Ok(None);
        };
        let id = repo::new_id(table).await?;
        let record = new_record(id, caller, upload, object.file_key.clone(), COMPLETED, blobs);
        match repo::create_instant(table, &record, &object).await {
            Ok(()) => {
                return Ok(Some(PresignedView {
                    upload_url: None,
                    upload_headers: None,
                    file_id: id.to_string(),
                    file_key: object.file_key,
                    instant: true,
                }))
            }
            Err(WriteError::Changed) => continue,
            Err(WriteError::Table(error)) => return Err(error.into()),
        }
    }
    Ok(None)
}

/// PATCH /{id}/confirm: PENDING → COMPLETED; a COMPLETED file answers success unchanged.
/// The storage makes the object permanent; when it holds the object and the uploader declared
/// an MD5 (which the storage verified on upload), the object becomes the one instant uploads
/// of that content share.
pub async fn confirm(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<()>, FileError> {
    let blobs = blobs(&ctx)?;
    let mut record = visible(&ctx, &caller, id).await?;
    for _ in 0..ATTEMPTS {
        if record.upload_status == COMPLETED {
            return Ok(FileOk(()));
        }
        let stored = blobs.confirm(&record.file_key).await.map_err(FileError::Storage)?;
        let now = crate::time::now_string();
        match repo::complete(ctx.table.as_ref(), &record, stored, &now).await {
            Ok(_) => return Ok(FileOk(())),
            Err(WriteError::Changed) => record = visible(&ctx, &caller, id).await?,
            Err(other) => return Err(table_error(other)),
        }
    }
    Err(table_error(WriteError::Changed))
}

/// GET /{id}: the File object.
pub async fn metadata(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<FileView>, FileError> {
    Ok(FileOk(visible(&ctx, &caller, id).await?.view()))
}

/// Query of access-url.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessQuery {
    expire_minutes: Option<i64>,
}

/// GET /{id}/access-url: a signed download URL valid `expireMinutes` (1-60, default 60) of a
/// COMPLETED file.
pub async fn access_url(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
    QueryParams(query, ..): QueryParams<AccessQuery, FileError>,
) -> Result<FileOk<String>, FileError> {
    let minutes = query.expire_minutes.unwrap_or(60);
    if !(1..=60).contains(&minutes) {
        return Err(FileError::Validation(format!(
            "expireMinutes must be between 1 and 60, got {minutes}"
        )));
    }
    let blobs = blobs(&ctx)?;
    let record = visible(&ctx, &caller, id).await?;
    if record.upload_status != COMPLETED {
        return Err(FileError::NotFound);
    }
    let expires = Duration::from_secs(minutes as u64 * 60);
    let url =
        blobs.presign_get(&record.file_key, expires).await.map_err(FileError::PresignFailed)?;
    Ok(FileOk(url))
}

/// DELETE /{id}: marks the record deleted (success also when there is no such record); the
/// stored object is removed after the answer when no live record points at it any more.
pub async fn delete(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<()>, FileError> {
    let blobs = blobs(&ctx)?;
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let Some(record) = repo::find(table, id).await?.filter(|r| !r.deleted) else {
            return Ok(FileOk(()));
        };
        if !record.visible_to(caller.id, caller.is_admin()) {
            return Err(FileError::NotFound);
        }
        let release = release_of(table, &record).await?;
        let now = crate::time::now_string();
        match repo::mark_deleted(table, &record, &release, &now).await {
            Ok(()) => {
                if release.removes_object() {
                    super::removal::remove_object(&ctx, blobs, record.file_key).await;
                }
                return Ok(FileOk(()));
            }
            Err(WriteError::Changed) => continue,
            Err(other) => return Err(table_error(other)),
        }
    }
    Err(table_error(WriteError::Changed))
}

/// Whether `record` is counted in its content's marker: it is COMPLETED, declared an MD5, and
/// the marker points at its object.
async fn release_of(
    table: &dyn crate::ports::table::Table,
    record: &FileRecord,
) -> Result<Release, FileError> {
    let (COMPLETED, Some(md5)) = (record.upload_status, &record.md5) else {
        return Ok(Release::Sole);
    };
    Ok(match repo::find_object(table, md5, record.file_size).await? {
        Some(object) if object.file_key == record.file_key => Release::Counted(object),
        _ => Release::Sole,
    })
}
