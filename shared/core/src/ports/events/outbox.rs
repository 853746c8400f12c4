//! The outbox: an event is written to an `OUTBOX` item in the same transaction as the change it
//! reports, sent after the commit, and its item removed once the queue accepted it. A send that
//! fails leaves the item for [`sweep`] (scheduled in AWS, periodic in the local gateway), so no
//! event of a committed change is ever lost; the handlers are idempotent, so an event delivered
//! twice changes nothing twice. The outbox knows bodies only: features define the events.

use std::time::Duration;

use crate::ports::table::{n, s, AttributeValue, Index, Key, Query, SortKey, Table, Write};

use super::EventQueue;

const OUTBOX: &str = "OUTBOX";

/// An event on its way: its body and where it waits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    key: Key,
    body: String,
    created_at: i64,
}

impl Outgoing {
    /// The event `body` (JSON), created at `created_at` (epoch milliseconds) with the unique
    /// `event_id`.
    pub fn new(body: String, created_at: i64, event_id: &str) -> Self {
        Self { key: Key::new(OUTBOX, format!("{created_at:015}#{event_id}")), body, created_at }
    }

    /// The outbox item to write in the transaction of the change.
    pub fn write(&self) -> Write {
        let item = crate::ports::table::Item::from(std::collections::HashMap::from([
            ("pk".to_string(), s(&self.key.pk)),
            ("sk".to_string(), s(&self.key.sk)),
            ("body".to_string(), s(&self.body)),
            ("createdAt".to_string(), n(self.created_at)),
        ]));
        Write::Put { item, condition: None }
    }

    /// Sends the committed event and clears its outbox item; an error leaves the item for the
    /// sweep.
    pub async fn send(&self, table: &dyn Table, queue: &dyn EventQueue) -> anyhow::Result<()> {
        queue.send(self.body.clone()).await?;
        table.delete(&self.key, None).await?;
        Ok(())
    }
}

/// Sends every outbox event older than `min_age` (younger ones are still being sent by the
/// request that wrote them), oldest first, at most 100 a run; returns how many were sent.
pub async fn sweep(
    table: &dyn Table,
    queue: &dyn EventQueue,
    min_age: Duration,
) -> anyhow::Result<usize> {
    let cutoff = chrono::Utc::now().timestamp_millis() - min_age.as_millis() as i64;
    // Every event created at `cutoff` or before, that millisecond included (its keys are
    // `<cutoff>#<id>`, which sort after `<cutoff>`).
    let query = Query::partition(Index::Primary, OUTBOX)
        .sort(SortKey::Lt(format!("{:015}", cutoff + 1)))
        .limit(100);
    let pending = table.query(query).await?.items;
    let mut delivered = 0;
    for item in pending {
        let (Some(key), Some(AttributeValue::S(body))) = (Key::of(&item), item.get("body")) else {
            tracing::error!("an outbox item without a body left in place");
            continue;
        };
        let created_at = match item.get("createdAt") {
            Some(AttributeValue::N(n)) => n.parse().unwrap_or_default(),
            _ => 0,
        };
        Outgoing { key, body: body.clone(), created_at }.send(table, queue).await?;
        delivered += 1;
    }
    if delivered > 0 {
        tracing::info!(delivered, "outbox sweep delivered events");
    }
    Ok(delivered)
}
