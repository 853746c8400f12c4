//! The worker's part of a rename (AuthorRenamedEvent, emitted by the users feature through the
//! outbox): the author card on every head of that author, found through the author link items
//! (`A#AUTHOR`, gsi2 partition `AUTHOR#<userId>`).
//!
//! Each head's card is rewritten with one UpdateItem of `authorName`, `authorAvatar` and
//! `authorRenamedAt`, on condition the head's card is older than the event: so a redelivered
//! event, or an older one delivered after a newer one, changes nothing, and nothing else of the
//! head (its version, its counters) is touched.
//!
//! Extension point: the comments feature keeps the author's name on its comments too
//! (`UCOMMENTS#<userId>`); their rename belongs in [`handle`], after the heads.

use futures::{stream, StreamExt, TryStreamExt};
use serde::Deserialize;

use crate::{
    ports::table::{n, s, Condition, Index, Query, Table, TableError, Update},
    records::{number, query_all},
};

use super::{followup::Outcome, keys};

/// The `type` of the event (as the users feature writes it).
pub const AUTHOR_RENAMED: &str = "AuthorRenamedEvent";

/// Heads rewritten at once.
const CONCURRENCY: usize = 8;

/// What the worker reads of the event (its wire format: docs/decisions.md, "Worker").
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthorRenamed {
    user_id: String,
    name: String,
    avatar: String,
    created_at: i64,
}

/// Handles one AuthorRenamedEvent body: every head of the author gets the card unless it has a
/// newer one.
pub async fn handle(table: &dyn Table, body: &str) -> anyhow::Result<Outcome> {
    let event: AuthorRenamed = serde_json::from_str(body)?;
    let user_id: u64 = event.user_id.parse()?;
    let links = query_all(table, Query::partition(Index::Gsi2, keys::author_links(user_id)));
    let ids: Vec<u64> = links
        .await?
        .iter()
        .filter_map(|link| number(link, "articleId"))
        .map(|id| id as u64)
        .collect();
    let renamed: Vec<bool> = stream::iter(ids)
        .map(|id| rename_head(table, id, &event))
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await?;
    let count = renamed.iter().filter(|r| **r).count();
    tracing::info!(user_id, articles = count, "author card rewritten on the articles");
    Ok(Outcome::Done)
}

/// Rewrites one head's card when the head's is older; whether it did.
async fn rename_head(
    table: &dyn Table,
    id: u64,
    event: &AuthorRenamed,
) -> Result<bool, TableError> {
    let update = Update::new()
        .set("authorName", s(&event.name))
        .set("authorAvatar", s(&event.avatar))
        .set("authorRenamedAt", n(event.created_at));
    let key = keys::head(id);
    let older = Condition::LessThan("authorRenamedAt".into(), event.created_at);
    match table.update(&key, update.clone(), Some(older)).await {
        Ok(_) => return Ok(true),
        Err(TableError::ConditionFailed) => {}
        Err(other) => return Err(other),
    }
    // A head written before cards carried their time.
    let unstamped = Condition::LacksAttribute("authorRenamedAt".into());
    match table.update(&key, update, Some(unstamped)).await {
        Ok(_) => Ok(true),
        Err(TableError::ConditionFailed) => Ok(false),
        Err(other) => Err(other),
    }
}
