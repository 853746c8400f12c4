//! The worker's handling of a [`FileConfirmedEvent`]: the resized copies of a public image
//! ([`crate::images::variants`]) stored beside it under `public/` and listed on its record.
//! Idempotent: a record that lists variants already (or is deleted, private, not an image, not
//! COMPLETED) is skipped, and an object that is there already is left as it is (the same
//! bytes: encoding is deterministic). An image the decoder refuses (a bomb whose header lied,
//! corrupt pixels) gets `variants: []` and `variantsError`, and the message is acknowledged;
//! a storage or table failure is an error, so the queue delivers the event again.

use std::time::Instant;

use anyhow::Context;

use blog_core::ports::{
    blobs::{Blobs, Fetched, PutCondition},
    table::Table,
};

use crate::events::FileConfirmedEvent;
use crate::images::{self, ImageKind};
use crate::model::{AccessPolicy, FileRecord, StoredVariant, UploadStatus};
use crate::repo::{self, WriteError};

/// What handling one event did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This many variants were stored and listed on the record.
    Made(usize),
    /// The image could not be decoded: `variants: []` and the reason are on the record.
    Refused,
    /// Nothing to do (see [`skip_reason`]), or the record was deleted meanwhile.
    Skipped,
}

/// Why the worker has nothing to make for `record` as read: deleted, not COMPLETED, private,
/// not an image, or its variants listed already; `None` when it has.
pub fn skip_reason(record: &FileRecord) -> Option<&'static str> {
    if record.deleted {
        Some("the file was deleted")
    } else if record.upload_status != UploadStatus::Completed {
        Some("the file is not COMPLETED")
    } else if record.access_policy != AccessPolicy::Public {
        Some("the file is private")
    } else if ImageKind::from_mime(&record.file_type).is_none() {
        Some("the file is not an image")
    } else if record.variants.is_some() {
        Some("its variants are listed already")
    } else {
        None
    }
}

/// Handles one FileConfirmedEvent `body`: makes, stores and lists the variants of its file.
pub async fn make(table: &dyn Table, blobs: &dyn Blobs, body: &str) -> anyhow::Result<Outcome> {
    let event: FileConfirmedEvent = serde_json::from_str(body).context("a FileConfirmedEvent")?;
    let id: u64 = event.file_id.parse().context("the event's fileId")?;
    let Some(record) = repo::find(table, id).await? else {
        tracing::info!(file_id = id, "no such file record; no variants to make");
        return Ok(Outcome::Skipped);
    };
    let kind = ImageKind::from_mime(&record.file_type);
    let (Some(kind), None) = (kind, skip_reason(&record)) else {
        let reason = skip_reason(&record).unwrap_or_default();
        tracing::info!(file_id = id, reason, "no variants to make");
        return Ok(Outcome::Skipped);
    };
    let bytes = match blobs.get(&record.file_key, None).await? {
        Fetched::Found { bytes, .. } => bytes,
        _ => anyhow::bail!("the object {} of file {id} is missing", record.file_key),
    };
    let started = Instant::now();
    let made = tokio::task::spawn_blocking(move || {
        images::inspect(&bytes, kind).and_then(|facts| images::variants(&bytes, &facts))
    })
    .await
    .context("the resizing thread")?;
    let elapsed_ms = started.elapsed().as_millis() as u64;
    let (stored, refusal) = match made {
        Ok(variants) => {
            let mut stored = Vec::with_capacity(variants.len());
            for variant in variants {
                let key = variant.key_beside(&record.file_key);
                let (width, height, content_type) =
                    (variant.width, variant.height, variant.content_type);
                // Already there: an earlier delivery stored the same bytes.
                blobs.put(&key, variant.bytes, content_type, PutCondition::Absent).await?;
                stored.push(StoredVariant {
                    width,
                    height,
                    key,
                    content_type: content_type.into(),
                });
            }
            tracing::info!(file_id = id, variants = stored.len(), elapsed_ms, "variants made");
            (stored, None)
        }
        Err(refusal) => {
            let message = refusal.to_string();
            tracing::warn!(file_id = id, error = %message, elapsed_ms, "no variants: image refused");
            (Vec::new(), Some(message))
        }
    };
    match repo::set_variants(table, id, &stored, refusal.as_deref()).await {
        Ok(()) if refusal.is_some() => Ok(Outcome::Refused),
        Ok(()) => Ok(Outcome::Made(stored.len())),
        Err(WriteError::Changed) => {
            drop_unlisted(table, blobs, &record, &stored).await?;
            Ok(Outcome::Skipped)
        }
        Err(WriteError::Table(error)) => Err(error.into()),
    }
}

/// After the list could not be written: when the record was deleted (or is gone) meanwhile
/// and no live record shares its object any more, the variants just stored go too. A record
/// that lists variants already (another delivery won) keeps them: they are the same objects.
async fn drop_unlisted(
    table: &dyn Table,
    blobs: &dyn Blobs,
    record: &FileRecord,
    stored: &[StoredVariant],
) -> anyhow::Result<()> {
    if repo::find(table, record.id).await?.is_some_and(|now| !now.deleted) {
        return Ok(());
    }
    if let Some(marker) = repo::marker_of(record) {
        let shared = repo::find_object(table, &marker).await?;
        if shared.is_some_and(|object| object.file_key == record.file_key && object.refs > 0) {
            return Ok(());
        }
    }
    for variant in stored {
        blobs.delete(&variant.key).await?;
    }
    tracing::info!(file_id = record.id, "file deleted meanwhile; its variants removed");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> FileRecord {
        FileRecord {
            id: 7,
            file_key: "public/2026/03/04/a.png".into(),
            staging_key: None,
            upload_status: UploadStatus::Completed,
            image_width: Some(700),
            image_height: Some(400),
            access_policy: AccessPolicy::Public,
            ..FileRecord::pending_for_tests()
        }
    }

    #[test]
    fn a_completed_public_image_without_variants_is_the_only_one_to_get_them() {
        assert_eq!(skip_reason(&record()), None);
        for kind in ["image/jpeg", "image/gif", "image/webp"] {
            assert_eq!(skip_reason(&FileRecord { file_type: kind.into(), ..record() }), None);
        }
    }

    #[test]
    fn a_deleted_pending_failed_private_or_non_image_file_is_skipped() {
        let skipped = [
            FileRecord { deleted: true, ..record() },
            FileRecord { upload_status: UploadStatus::Pending, ..record() },
            FileRecord { upload_status: UploadStatus::Failed, ..record() },
            FileRecord { access_policy: AccessPolicy::Private, ..record() },
            FileRecord { file_type: "application/pdf".into(), ..record() },
            FileRecord { file_type: "image/svg+xml".into(), ..record() },
        ];
        for record in skipped {
            assert!(skip_reason(&record).is_some(), "{record:?}");
        }
    }

    #[test]
    fn a_record_that_lists_variants_already_is_skipped_even_when_they_are_none() {
        let made = StoredVariant {
            width: 320,
            height: 183,
            key: "public/2026/03/04/a-w320.jpg".into(),
            content_type: "image/jpeg".into(),
        };
        let listed = FileRecord { variants: Some(vec![made]), ..record() };
        assert_eq!(skip_reason(&listed), Some("its variants are listed already"));
        let refused = FileRecord { variants: Some(Vec::new()), ..record() };
        assert!(skip_reason(&refused).is_some(), "a refused image is not tried again");
    }
}
