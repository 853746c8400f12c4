//! ArticlePublishedEvent and its delivery. The event is written to an outbox item in the same
//! transaction as the state change, sent after the commit, and its outbox item removed once
//! the queue accepted it. A send that fails leaves the outbox item for [`sweep`] (scheduled in
//! AWS, periodic in the local gateway), so no event is ever lost; the worker is idempotent, so
//! an event delivered twice changes nothing twice.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{
    ports::table::{n, s, Index, Key, Query, SortKey, TableError, Write},
    records::{self, number},
};

use super::{model::ArticleHead, Publishing};

const OUTBOX: &str = "OUTBOX";

/// Emitted when an article becomes PUBLISHED (publish, unarchive) or a published article is
/// updated, so that its follow-up work (embedding, related lists, statistics, notification) runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticlePublishedEvent {
    /// Always `ArticlePublishedEvent`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Unique id of this emission.
    pub event_id: String,
    /// The article.
    pub article_id: String,
    /// Its version at emission.
    pub version: i64,
    /// Its publish time.
    pub publish_time: String,
    /// When the event was created (epoch milliseconds).
    pub created_at: i64,
}

impl ArticlePublishedEvent {
    /// The event for an article that is published as `head`.
    pub fn of(head: &ArticleHead) -> Self {
        Self {
            kind: "ArticlePublishedEvent".into(),
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            article_id: head.id.to_string(),
            version: head.version,
            publish_time: head.publish_time.clone().unwrap_or_default(),
            created_at: chrono::Utc::now().timestamp_millis(),
        }
    }

    fn outbox_key(&self) -> Key {
        Key::new(OUTBOX, format!("{:015}#{}", self.created_at, self.event_id))
    }
}

/// The outbox item to write in the transaction that publishes the article.
pub fn outbox_write(event: &ArticlePublishedEvent) -> Result<Write, TableError> {
    let mut item = records::key_item(&event.outbox_key());
    let body = serde_json::to_string(event).map_err(|e| TableError::Invalid(e.to_string()))?;
    item.insert("body".into(), s(body));
    item.insert("createdAt".into(), n(event.created_at));
    Ok(Write::Put { item, condition: None })
}

/// Sends a committed event and clears its outbox item; on failure the item stays for the sweep.
pub async fn deliver(ctx: &Publishing, event: &ArticlePublishedEvent) {
    match send(ctx, event).await {
        Ok(()) => {
            tracing::info!(article_id = %event.article_id, event_id = %event.event_id, "ArticlePublishedEvent sent")
        }
        Err(error) => tracing::warn!(
            article_id = %event.article_id,
            error = format!("{error:#}"),
            "ArticlePublishedEvent not sent now; the outbox sweep will deliver it"
        ),
    }
}

async fn send(ctx: &Publishing, event: &ArticlePublishedEvent) -> anyhow::Result<()> {
    ctx.port.send(serde_json::to_string(event)?).await?;
    ctx.table.delete(&event.outbox_key(), None).await?;
    Ok(())
}

/// Delivers every outbox event older than `min_age` (younger ones are still being sent by the
/// request that wrote them); returns how many were delivered.
pub async fn sweep(ctx: &Publishing, min_age: Duration) -> anyhow::Result<usize> {
    let cutoff = chrono::Utc::now().timestamp_millis() - min_age.as_millis() as i64;
    let query = Query::partition(Index::Primary, OUTBOX)
        .sort(SortKey::Lt(format!("{cutoff:015}")))
        .limit(100);
    let pending = ctx.table.query(query).await?.items;
    let mut delivered = 0;
    for item in pending {
        let Some(crate::ports::table::AttributeValue::S(body)) = item.get("body") else { continue };
        let event: ArticlePublishedEvent = match serde_json::from_str(body) {
            Ok(event) => event,
            Err(error) => {
                tracing::error!(%error, created_at = number(&item, "createdAt"), "unreadable outbox item left in place");
                continue;
            }
        };
        send(ctx, &event).await?;
        delivered += 1;
    }
    if delivered > 0 {
        tracing::info!(delivered, "outbox sweep delivered events");
    }
    Ok(delivered)
}
