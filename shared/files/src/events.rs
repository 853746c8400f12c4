//! FileConfirmedEvent and its delivery through the outbox
//! ([`blog_core::ports::events::outbox`]): written in the transaction that completes a public
//! image, sent after the commit, swept when the send failed. The worker makes the image's
//! variants from it ([`crate::variants::make`]), idempotently.

use serde::{Deserialize, Serialize};

use blog_core::ports::{
    events::{outbox::Outgoing, EventQueue},
    table::{Table, TableError, Write},
};

use crate::images::ImageKind;
use crate::model::{AccessPolicy, FileRecord};

/// `type` of the event.
pub const FILE_CONFIRMED: &str = "FileConfirmedEvent";

/// Emitted when a PUBLIC image (JPEG, PNG, GIF, WebP) completes, by confirm or by an instant
/// upload, so that the worker makes its resized copies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileConfirmedEvent {
    /// Always [`FILE_CONFIRMED`].
    #[serde(rename = "type")]
    pub kind: String,
    /// Unique id of this emission.
    pub event_id: String,
    /// The file record's id.
    pub file_id: String,
    /// When the event was created (epoch milliseconds).
    pub created_at: i64,
}

impl FileConfirmedEvent {
    /// The event of `record` once it is COMPLETED, when it is a public image; `None` for a
    /// private file or another type (nothing to make).
    pub fn of(record: &FileRecord) -> Option<Self> {
        wants_variants(record).then(|| Self {
            kind: FILE_CONFIRMED.into(),
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            file_id: record.id.to_string(),
            created_at: chrono::Utc::now().timestamp_millis(),
        })
    }

    fn outgoing(&self) -> Result<Outgoing, TableError> {
        let body = serde_json::to_string(self).map_err(|e| TableError::Invalid(e.to_string()))?;
        Ok(Outgoing::new(body, self.created_at, &self.event_id))
    }

    /// The outbox item to write in the transaction that completes the record.
    pub fn write(&self) -> Result<Write, TableError> {
        Ok(self.outgoing()?.write())
    }

    /// Sends the committed event and clears its outbox item; on failure the item stays for
    /// the sweep (logged).
    pub async fn deliver(&self, table: &dyn Table, queue: &dyn EventQueue) {
        let sent = match self.outgoing() {
            Ok(outgoing) => outgoing.send(table, queue).await,
            Err(error) => Err(error.into()),
        };
        match sent {
            Ok(()) => {
                tracing::info!(file_id = %self.file_id, event_id = %self.event_id, "file event sent")
            }
            Err(error) => tracing::warn!(
                file_id = %self.file_id,
                error = format!("{error:#}"),
                "file event not sent now; the outbox sweep will deliver it"
            ),
        }
    }
}

/// Whether the record is a public image of a type whose variants are made (its status and
/// whether it has them aside).
pub(crate) fn wants_variants(record: &FileRecord) -> bool {
    record.access_policy == AccessPolicy::Public
        && ImageKind::from_mime(&record.file_type).is_some()
}
