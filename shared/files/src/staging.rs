//! Staged uploads. An upload URL writes to a staging key, `incoming/<32 hex>.<extension>`, never
//! to the key the file keeps (`uploads/YYYY/MM/DD/<same hex>.<extension>`). Confirm checks the
//! staged bytes against the record (size, and MD5 when one was declared) and copies exactly
//! those bytes to the file's key, so nothing done with the upload URL afterwards (a repeated
//! PUT, a retry) reaches a confirmed object. Staged objects nobody confirms go after a day: by
//! the bucket's lifecycle rule on S3, by [`run_stale_upload_removal`] in the local gateway.

use std::{
    sync::Arc,
    time::{Duration, SystemTime},
};

use blog_core::ports::blobs::{Blobs, Fetched, ObjectInfo};

use super::model::FileRecord;

/// Prefix of every staging key (the S3 lifecycle rule expires objects under it).
pub const STAGING_PREFIX: &str = "incoming/";

/// Age after which a staged object that nobody confirmed is removed.
pub const STALE_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// How often [`run_stale_upload_removal`] looks for stale staged objects.
const REMOVAL_EVERY: Duration = Duration::from_secs(60 * 60);

/// The staging key of the upload whose file will live at `file_key`: the same name under
/// [`STAGING_PREFIX`].
pub fn staging_key(file_key: &str) -> String {
    let name = file_key.rsplit('/').next().unwrap_or(file_key);
    format!("{STAGING_PREFIX}{name}")
}

/// What the storage holds for a PENDING record, once confirm looked.
#[derive(Debug, PartialEq, Eq)]
pub enum Placement {
    /// The verified bytes are at the record's `fileKey`; for an image, its width and height as
    /// read from them.
    Placed(Option<(u32, u32)>),
    /// Nothing was uploaded (or it expired).
    NothingUploaded,
    /// The uploaded bytes contradict the record: why, in plain words.
    Mismatch(String),
    /// The staged object was overwritten or removed between the look and the copy.
    Changed,
}

/// Why `object` is not what `record` declares, if it is not.
fn mismatch(record: &FileRecord, object: &ObjectInfo) -> Option<String> {
    if object.size != record.file_size {
        return Some(format!(
            "The uploaded bytes do not match the declared size: fileSize is {}, {} bytes were \
             stored; the file is FAILED, start a new upload",
            record.file_size, object.size
        ));
    }
    let declared = record.md5.as_deref()?;
    (object.md5_hex().as_deref() != Some(declared)).then(|| {
        "The uploaded bytes do not match the declared md5; the file is FAILED, start a new upload"
            .to_string()
    })
}

/// Checks the bytes uploaded for `record` and copies them to its `fileKey` (records written
/// before uploads were staged hold them there already). When nothing is staged, bytes already
/// at `fileKey` that match the record count as placed: an earlier or a concurrent confirm
/// copied them and the staged object is gone.
pub async fn place(blobs: &dyn Blobs, record: &FileRecord) -> anyhow::Result<Placement> {
    let uploaded = record.uploaded_key();
    if let Some(object) = blobs.head(uploaded).await? {
        if let Some(problem) = mismatch(record, &object) {
            return Ok(Placement::Mismatch(problem));
        }
        let image = match image_of(blobs, record, uploaded, &object.etag).await? {
            Ok(image) => image,
            Err(placement) => return Ok(placement),
        };
        if uploaded == record.file_key
            || blobs.copy_if_match(uploaded, &record.file_key, &object.etag).await?
        {
            return Ok(Placement::Placed(image));
        }
        return Ok(Placement::Changed);
    }
    if uploaded != record.file_key {
        if let Some(object) = blobs.head(&record.file_key).await? {
            if mismatch(record, &object).is_none() {
                let image = image_of(blobs, record, &record.file_key, &object.etag).await?;
                return Ok(image.map_or_else(|placement| placement, Placement::Placed));
            }
        }
    }
    Ok(Placement::NothingUploaded)
}

/// For a record of an image type, the width and height its bytes at `key` (entity tag `etag`)
/// show, read from their header; `Err` with the placement when they are not that image
/// ([`Placement::Mismatch`]) or changed since their entity tag was read
/// ([`Placement::Changed`]). `None` for other types.
async fn image_of(
    blobs: &dyn Blobs,
    record: &FileRecord,
    key: &str,
    etag: &str,
) -> anyhow::Result<Result<Option<(u32, u32)>, Placement>> {
    let Some(kind) = crate::images::ImageKind::from_mime(&record.file_type) else {
        return Ok(Ok(None));
    };
    let bytes = match blobs.get(key, None).await? {
        Fetched::Found { bytes, etag: read } if read == etag => bytes,
        _ => return Ok(Err(Placement::Changed)),
    };
    Ok(match crate::images::inspect(&bytes, kind) {
        Ok(facts) => Ok(Some((facts.width(), facts.height()))),
        Err(refusal) => Err(Placement::Mismatch(format!(
            "The uploaded bytes are not the declared image: {refusal}; the file is FAILED, start \
             a new upload"
        ))),
    })
}

/// Removes the staged objects last written before `now` - [`STALE_AFTER`]; answers how many.
pub async fn remove_stale_uploads(blobs: &dyn Blobs, now: SystemTime) -> anyhow::Result<usize> {
    let cutoff = now.checked_sub(STALE_AFTER).unwrap_or(SystemTime::UNIX_EPOCH);
    let mut removed = 0;
    for object in blobs.list(STAGING_PREFIX).await? {
        if object.modified < cutoff {
            blobs.delete(&object.key).await?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes stale staged objects now and then every hour, for as long as it runs (the local
/// gateway spawns it; on AWS the bucket's lifecycle rule does this). Failures are logged.
pub async fn run_stale_upload_removal(blobs: Arc<dyn Blobs>) {
    let mut ticks = tokio::time::interval(REMOVAL_EVERY);
    loop {
        ticks.tick().await;
        match remove_stale_uploads(blobs.as_ref(), SystemTime::now()).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "stale staged uploads removed"),
            Err(error) => {
                tracing::warn!(error = format!("{error:#}"), "removing stale staged uploads failed")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staging_key_carries_the_name_of_the_file_key() {
        let key = "uploads/2026/03/04/0123456789abcdef0123456789abcdef.png";
        assert_eq!(staging_key(key), "incoming/0123456789abcdef0123456789abcdef.png");
    }

    fn record(md5: Option<&str>) -> FileRecord {
        FileRecord { md5: md5.map(Into::into), ..FileRecord::pending_for_tests() }
    }

    #[test]
    fn stored_bytes_must_have_the_declared_size_and_md5() {
        let md5 = "5d41402abc4b2a76b9719d911017c592";
        let object = |size, etag: &str| ObjectInfo { size, etag: etag.into() };
        assert_eq!(mismatch(&record(Some(md5)), &object(5, md5)), None);
        assert_eq!(mismatch(&record(None), &object(5, "anything")), None, "size only");
        let size = mismatch(&record(None), &object(6, md5)).unwrap();
        assert!(size.contains("declared size"), "{size}");
        let other = mismatch(&record(Some(md5)), &object(5, "00000000000000000000000000000000"));
        assert!(other.unwrap().contains("declared md5"));
        let unverifiable = mismatch(&record(Some(md5)), &object(5, &format!("{md5}-2")));
        assert!(unverifiable.is_some(), "an entity tag that is no MD5 verifies nothing");
    }
}
