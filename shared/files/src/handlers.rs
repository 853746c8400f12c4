//! Handlers of /api/v1/files (confirm has its own module, `confirm`) and the helpers they share.
//! Every route needs a token; a record answers only its owner or an administrator (others get
//! 11008, as if it did not exist).

use std::time::Duration;

use axum::extract::State;
use futures::try_join;
use serde::Deserialize;

use crate::envelope::FileErrors;
use crate::FilesContext;
use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        extract::{JsonBody, PathId, QueryParams},
    },
    ports::{
        blobs::{Blobs, UploadSpec},
        table::{Key, Table, TableError},
    },
};
use blog_users::principal::{Authenticated, Principal};

use super::{
    envelope::{
        FileEnvelope as Envelope, FileError, FileErrorEnvelope as Error, FileFault, FileOk,
    },
    events::FileConfirmedEvent,
    input::{self, NewUpload, PresignInput},
    model::{AccessPolicy, FileRecord, FileView, ObjectRecord, PresignedView, UploadStatus},
    removal::remove_objects,
    repo::{self, WriteError},
    staging,
};

pub(super) type Caller = Authenticated<FileError>;
pub(super) type Id = PathId<FileError>;

pub(super) const NOT_FOUND: &str = "No such file, a deleted one, or someone else's (11008)";
pub(super) const STORAGE: &str = "The storage failed or none is configured (11006)";

/// How often a write that lost a race is re-read and retried before giving up.
pub(super) const ATTEMPTS: usize = 8;

/// Waits a random moment before the retry after lost race number `attempt` (0-based), up to
/// twice as long each time (at most 128 ms), so that requests contending for one record or
/// one stored-object marker spread out instead of colliding again (half a second in all at most).
pub(super) async fn back_off(attempt: usize) {
    let bound = 4u64 << attempt.min(5);
    tokio::time::sleep(Duration::from_millis(rand::random_range(0..=bound))).await;
}

/// 11006 for a race lost [`ATTEMPTS`] times, else the table's error.
pub(super) fn table_error(error: WriteError) -> FileError {
    match error {
        WriteError::Table(error) => error.into(),
        WriteError::Changed => FileFault::Storage(anyhow::anyhow!(
            "a file record kept changing during {ATTEMPTS} attempts"
        ))
        .into(),
    }
}

/// The record `id` when `caller` may act on it, else 11008.
pub(super) async fn visible(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
) -> Result<FileRecord, FileError> {
    repo::find(ctx.table.as_ref(), id)
        .await?
        .filter(|record| record.visible_to(caller.id, caller.is_admin()))
        .ok_or(FileFault::NotFound.into())
}

/// A new record of `owner`'s upload, PENDING until confirmed, at `file_key`.
fn new_record(
    id: u64,
    owner: &Principal,
    upload: &NewUpload,
    file_key: String,
    blobs: &dyn Blobs,
) -> FileRecord {
    let now = blog_core::time::now_string();
    FileRecord {
        id,
        owner_id: owner.id,
        file_name: upload.file_name.clone(),
        file_size: upload.file_size,
        file_type: upload.file_type.clone(),
        file_key,
        staging_key: None,
        md5: upload.md5.clone(),
        object_marker: None,
        storage_type: blobs.storage_type().into(),
        bucket_name: blobs.bucket(),
        upload_status: UploadStatus::Pending,
        image_width: None,
        image_height: None,
        variants: None,
        variants_error: None,
        access_policy: upload.access_policy,
        ref_type: upload.reference.map(|(kind, _)| kind),
        ref_id: upload.reference.and_then(|(_, id)| id),
        deleted: false,
        create_time: now.clone(),
        update_time: now,
    }
}

/// Starts an upload: a PENDING record and a signed upload URL.
///
/// When the caller has a completed file of the same verified MD5 and size, the upload is
/// instant: a COMPLETED record pointing at its stored object, and nothing to upload.
#[utoipa::path(
    post,
    path = "/presigned",
    operation_id = "presignUpload",
    tag = "files",
    security(("bearerAuth" = [])),
    request_body = PresignInput,
    responses(
        (status = 200, description = "A PENDING record and where to PUT the bytes, or (`instant`) \
            a COMPLETED record sharing the caller's stored content", body = Envelope<PresignedView>),
        (status = 400, description = "A field is missing or malformed (10001), the type is not \
            permitted or does not fit the extension (11002), the size is outside 1 byte-10 MB \
            (11003), or the name is invalid (11004)", body = Error),
        (status = 500, description = "The storage failed (11006) or could not sign (11007)",
            body = Error),
        FileErrors<Unauthorized>,
    )
)]
pub async fn presigned(
    State(ctx): State<FilesContext>,
    Authenticated(caller, ..): Caller,
    JsonBody(body, ..): JsonBody<PresignInput, FileError>,
) -> Result<FileOk<PresignedView>, FileError> {
    let upload = input::validate(body)?;
    let blobs = ctx.port.blobs.clone();
    let table = ctx.table.as_ref();
    // Both outcomes need a new id: it is drawn while the caller's object of the same content is
    // looked up, so the two calls cost one round trip.
    let (id, object) = try_join!(repo::new_id(table), stored_object(table, &caller, &upload))?;
    if let Some(object) = object {
        if let Some(view) = instant(&ctx, &caller, &upload, blobs.as_ref(), id, object).await? {
            return Ok(FileOk::ok(view));
        }
    }
    let file_key = input::new_key(&upload.extension, upload.access_policy, chrono::Utc::now());
    let cdn_url = public_url(blobs.as_ref(), &upload, &file_key)?;
    let staging_key = staging::staging_key(&file_key);
    let spec = UploadSpec {
        key: staging_key.clone(),
        content_type: upload.file_type.clone(),
        content_length: upload.file_size,
        expires: ctx.config.upload_url_ttl,
    };
    let signed = blobs.presign_put(&spec).await.map_err(FileFault::PresignFailed)?;
    let record = FileRecord {
        staging_key: Some(staging_key),
        ..new_record(id, &caller, &upload, file_key.clone(), blobs.as_ref())
    };
    repo::create(table, &record).await?;
    Ok(FileOk::ok(PresignedView {
        upload_url: Some(signed.url),
        upload_headers: Some(signed.headers.into_iter().collect()),
        file_id: id.to_string(),
        file_key,
        instant: false,
        cdn_url,
    }))
}

/// Where a public upload will be served; `None` for a private one. A storage that serves no
/// public files refuses a public upload (11006) rather than store what nobody could show.
fn public_url(
    blobs: &dyn Blobs,
    upload: &NewUpload,
    file_key: &str,
) -> Result<Option<String>, FileError> {
    if upload.access_policy == AccessPolicy::Private {
        return Ok(None);
    }
    let url = blobs.public_url(file_key).ok_or_else(|| {
        FileFault::Storage(anyhow::anyhow!(
            "a PUBLIC upload, but the storage serves no public files (BLOG_PUBLIC_FILES_URL)"
        ))
    })?;
    Ok(Some(url))
}

/// The marker (key and item) of the caller's stored object with the upload's content, when the
/// upload declares an MD5.
async fn stored_object(
    table: &dyn Table,
    caller: &Principal,
    upload: &NewUpload,
) -> Result<Option<(Key, ObjectRecord)>, TableError> {
    let Some(md5) = &upload.md5 else { return Ok(None) };
    let key = repo::object_key(caller.id, md5, upload.file_size, upload.access_policy);
    Ok(repo::find_object(table, &key).await?.map(|object| (key, object)))
}

/// A new COMPLETED record `id` for `caller` pointing at `object`, the caller's stored object of
/// the same content, re-read after each lost race; `None` once it is gone. Nothing of the other
/// records sharing the object is revealed.
async fn instant(
    ctx: &FilesContext,
    caller: &Principal,
    upload: &NewUpload,
    blobs: &dyn Blobs,
    id: u64,
    (marker, mut object): (Key, ObjectRecord),
) -> Result<Option<PresignedView>, FileError> {
    let table = ctx.table.as_ref();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            match stored_object(table, caller, upload).await? {
                Some((_, current)) => object = current,
                None => return Ok(None),
            }
        }
        let record = FileRecord {
            upload_status: UploadStatus::Completed,
            object_marker: Some(marker.pk.clone()),
            image_width: object.image_width,
            image_height: object.image_height,
            ..new_record(id, caller, upload, object.file_key.clone(), blobs)
        };
        // Its own event, for the worker's idempotent handling: the marker does not say
        // whether the shared object's variants are made (they are the same objects).
        let event = FileConfirmedEvent::of(&record);
        let write = event.as_ref().map(FileConfirmedEvent::write).transpose()?;
        match repo::create_instant(table, &record, marker.clone(), &object, write).await {
            Ok(()) => {
                if let Some(event) = event {
                    event.deliver(table, ctx.port.events.as_ref()).await;
                }
                return Ok(Some(PresignedView {
                    upload_url: None,
                    upload_headers: None,
                    file_id: id.to_string(),
                    cdn_url: public_url(blobs, upload, &object.file_key)?,
                    file_key: object.file_key,
                    instant: true,
                }));
            }
            Err(WriteError::Changed) => back_off(attempt).await,
            Err(WriteError::Table(error)) => return Err(error.into()),
        }
    }
    Ok(None)
}

/// A file record.
#[utoipa::path(
    get,
    path = "/{id}",
    operation_id = "getFile",
    tag = "files",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The file record", body = Envelope<FileView>),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 500, description = STORAGE, body = Error),
        FileErrors<(Invalid, Unauthorized)>,
    )
)]
pub async fn metadata(
    State(ctx): State<FilesContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<FileView>, FileError> {
    let record = visible(&ctx, &caller, id).await?;
    Ok(FileOk::ok(record.view(|key| ctx.port.blobs.public_url(key))))
}

/// Query of access-url.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AccessQuery {
    /// Validity of the URL in minutes (default 60).
    #[param(minimum = 1, maximum = 60)]
    expire_minutes: Option<i64>,
}

/// A signed download URL of a COMPLETED file, valid `expireMinutes` (1-60, default 60).
#[utoipa::path(
    get,
    path = "/{id}/access-url",
    operation_id = "fileAccessUrl",
    tag = "files",
    security(("bearerAuth" = [])),
    params(IdParam, AccessQuery),
    responses(
        (status = 200, description = "`data` is a signed GET URL of the object",
            body = Envelope<String>),
        (status = 400, description = "A bad id, or `expireMinutes` outside 1-60 (10001)",
            body = Error),
        (status = 404, description = "No such file, someone else's, or not COMPLETED (11008)",
            body = Error),
        (status = 500, description = "The storage failed (11006) or could not sign (11007)",
            body = Error),
        FileErrors<Unauthorized>,
    )
)]
pub async fn access_url(
    State(ctx): State<FilesContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
    QueryParams(query, ..): QueryParams<AccessQuery, FileError>,
) -> Result<FileOk<String>, FileError> {
    let minutes = query.expire_minutes.unwrap_or(60);
    if !(1..=60).contains(&minutes) {
        return Err(FileFault::Validation(format!(
            "expireMinutes must be between 1 and 60, got {minutes}"
        ))
        .into());
    }
    let blobs = ctx.port.blobs.clone();
    let record = visible(&ctx, &caller, id).await?;
    if record.upload_status != UploadStatus::Completed {
        return Err(FileFault::NotFound.into());
    }
    let expires = Duration::from_secs(minutes as u64 * 60);
    let served = super::served::served(&record);
    let url = blobs
        .presign_get(&record.file_key, expires, &served)
        .await
        .map_err(FileFault::PresignFailed)?;
    Ok(FileOk::ok(url))
}

/// Deletes a file record (success also when there is no such record, or it is someone else's:
/// the answer tells nothing about other users' files, and theirs stays).
///
/// The stored object is removed after the answer when no live record points at it any more,
/// and so is anything still staged for the record.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteFile",
    tag = "files",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Deleted, or there was no such file of the caller's (someone \
            else's stays, unchanged)", body = Envelope<Null>),
        (status = 500, description = STORAGE, body = Error),
        FileErrors<(Invalid, Unauthorized)>,
    )
)]
pub async fn delete(
    State(ctx): State<FilesContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<FileOk<()>, FileError> {
    let blobs = ctx.port.blobs.clone();
    let table = ctx.table.as_ref();
    for attempt in 0..ATTEMPTS {
        let Some(record) = repo::find(table, id).await?.filter(|r| !r.deleted) else {
            return Ok(FileOk::ok(()));
        };
        if !record.visible_to(caller.id, caller.is_admin()) {
            // Someone else's file answers as an absent one: nothing tells the two apart.
            return Ok(FileOk::ok(()));
        }
        let release = repo::release_of(table, &record).await?;
        let now = blog_core::time::now_string();
        match repo::mark_deleted(table, &record, &release, &now).await {
            Ok(()) => {
                let mut unused: Vec<String> = record.staging_key.into_iter().collect();
                if release.removes_object() {
                    let variants = record.variants.unwrap_or_default();
                    unused.extend(variants.into_iter().map(|variant| variant.key));
                    unused.push(record.file_key);
                }
                remove_objects(&ctx, blobs, unused).await;
                return Ok(FileOk::ok(()));
            }
            Err(WriteError::Changed) => back_off(attempt).await,
            Err(other) => return Err(table_error(other)),
        }
    }
    Err(table_error(WriteError::Changed))
}
