//! ArticlePublishedEvent: sent through the events port after a publish is committed.

use serde::{Deserialize, Serialize};

use crate::context::AppContext;

use super::model::ArticleHead;

/// Emitted when an article becomes PUBLISHED (spec 6).
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
    /// Its version when published.
    pub version: i64,
    /// Its publish time.
    pub publish_time: String,
}

impl ArticlePublishedEvent {
    /// The event for a just-published article.
    pub fn of(head: &ArticleHead) -> Self {
        Self {
            kind: "ArticlePublishedEvent".into(),
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            article_id: head.id.to_string(),
            version: head.version,
            publish_time: head.publish_time.clone().unwrap_or_default(),
        }
    }
}

/// Sends the event; the publish is already committed, so a failed send is logged, not
/// reported to the caller.
pub async fn emit(ctx: &AppContext, event: ArticlePublishedEvent) {
    let Some(queue) = ctx.events.as_ref() else {
        tracing::error!(article_id = %event.article_id, "no event queue configured: ArticlePublishedEvent not sent");
        return;
    };
    let body = match serde_json::to_string(&event) {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(%error, "ArticlePublishedEvent could not be serialised");
            return;
        }
    };
    match queue.send(body).await {
        Ok(()) => {
            tracing::info!(article_id = %event.article_id, event_id = %event.event_id, "ArticlePublishedEvent sent")
        }
        Err(error) => {
            tracing::error!(article_id = %event.article_id, error = format!("{error:#}"), "ArticlePublishedEvent not sent")
        }
    }
}
