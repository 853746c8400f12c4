//! ArticlePublishedEvent and its delivery through the outbox
//! ([`blog_core::ports::events::outbox`]): written in the same transaction as the state change,
//! sent after the commit, swept when the send failed; the worker is idempotent, so an event
//! delivered twice changes nothing twice.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use blog_core::ports::{
    events::outbox::{self, Outgoing},
    table::{TableError, Write},
};

use crate::{model::ArticleHead, Publishing};

/// Emitted when an article becomes PUBLISHED (publish, unarchive) or a published article is
/// updated, so that its follow-up work (embedding, related lists, statistics, notification, its
/// sitemap entry) runs. The same shape with `type` [`WITHDRAWN`] is emitted when a published
/// article stops being published (archive, delete): its sitemap entry goes.
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

/// `type` of the event of an article that stopped being published.
pub const WITHDRAWN: &str = "ArticleWithdrawnEvent";
/// `type` of the event of a published article whose category or tag was renamed: its search
/// document follows (nothing else the follow-up does depends on the names).
pub const RELABELLED: &str = "ArticleRelabelledEvent";

impl ArticlePublishedEvent {
    /// The event for an article that is published as `head`.
    pub fn of(head: &ArticleHead) -> Self {
        Self::typed("ArticlePublishedEvent", head)
    }

    /// The event for an article that was published and no longer is (`head`: as it is now).
    pub fn withdrawn(head: &ArticleHead) -> Self {
        Self::typed(WITHDRAWN, head)
    }

    /// The event for a published article, `head`, whose category or tag names changed.
    pub fn relabelled(head: &ArticleHead) -> Self {
        Self::typed(RELABELLED, head)
    }

    /// The event of an article changed from `before` to `after`, when the change concerns the
    /// public: published after it, or published before it.
    pub fn of_change(before: &ArticleHead, after: &ArticleHead) -> Option<Self> {
        match (before.is_listed(), after.is_listed()) {
            (_, true) => Some(Self::of(after)),
            (true, false) => Some(Self::withdrawn(after)),
            (false, false) => None,
        }
    }

    fn typed(kind: &str, head: &ArticleHead) -> Self {
        Self {
            kind: kind.into(),
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            article_id: head.id.to_string(),
            version: head.version,
            publish_time: head.publish_time.clone().unwrap_or_default(),
            created_at: chrono::Utc::now().timestamp_millis(),
        }
    }

    fn outgoing(&self) -> Result<Outgoing, TableError> {
        let body = serde_json::to_string(self).map_err(|e| TableError::Invalid(e.to_string()))?;
        Ok(Outgoing::new(body, self.created_at, &self.event_id))
    }
}

/// The outbox item to write in the transaction that publishes the article.
pub fn outbox_write(event: &ArticlePublishedEvent) -> Result<Write, TableError> {
    Ok(event.outgoing()?.write())
}

/// Sends a committed event and clears its outbox item; on failure the item stays for the sweep.
pub async fn deliver(ctx: &Publishing, event: &ArticlePublishedEvent) {
    let sent = match event.outgoing() {
        Ok(outgoing) => outgoing.send(ctx.table.as_ref(), ctx.port.as_ref()).await,
        Err(error) => Err(error.into()),
    };
    match sent {
        Ok(()) => {
            tracing::info!(article_id = %event.article_id, event_id = %event.event_id, kind = %event.kind, "article event sent")
        }
        Err(error) => tracing::warn!(
            article_id = %event.article_id,
            error = format!("{error:#}"),
            "article event not sent now; the outbox sweep will deliver it"
        ),
    }
}

/// Delivers every outbox event older than `min_age` (younger ones are still being sent by the
/// request that wrote them), whatever feature wrote it; returns how many were delivered.
pub async fn sweep(ctx: &Publishing, min_age: Duration) -> anyhow::Result<usize> {
    outbox::sweep(ctx.table.as_ref(), ctx.port.as_ref(), min_age).await
}
