//! The worker's part of a rename (AuthorRenamedEvent, emitted by the users feature through the
//! outbox): the author card on every head of that author, found through the author link items
//! (`A#AUTHOR`, gsi2 partition `AUTHOR#<userId>`), then whatever else shows the author's name
//! ([`WhenAnAuthorIsRenamed`], wired where the features are composed: the comments and the
//! replies to them).
//!
//! Each head's card is rewritten with one UpdateItem of `authorName`, `authorAvatar` and
//! `authorRenamedAt`, on condition the head's card is older than the event: so a redelivered
//! event, or an older one delivered after a newer one, changes nothing, and nothing else of the
//! head (its version, its counters) is touched.

use std::sync::Arc;

use async_trait::async_trait;

use futures::{stream, StreamExt, TryStreamExt};
use serde::Deserialize;

use blog_core::{
    area::Port,
    context::AppContext,
    ports::table::{s, Index, Query, Table, TableError, Update},
    records::{number, query_all, update_if_older},
};

use crate::{followup::Outcome, keys, Embedding};

/// The `type` of the event (as the users feature writes it).
pub const AUTHOR_RENAMED: &str = "AuthorRenamedEvent";

/// Heads rewritten at once.
const CONCURRENCY: usize = 8;

/// A rename as the worker reads it from the event (its wire format: docs/decisions.md,
/// "Worker").
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AuthorRename {
    /// The account renamed.
    #[serde(deserialize_with = "id_string")]
    pub user_id: u64,
    /// Its new name (nickname, else user name).
    pub name: String,
    /// Its new avatar URL (may be empty).
    pub avatar: String,
    /// When the profile changed (epoch milliseconds): orders the renames.
    pub created_at: i64,
}

fn id_string<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let raw = String::deserialize(deserializer)?;
    raw.parse().map_err(|_| serde::de::Error::custom(format!("userId `{raw}` is not an id")))
}

/// What else shows an author's name and avatar beside the articles' heads (the comments),
/// wired where the features are composed; the worker calls it after the heads, so articles
/// never uses that feature.
#[async_trait]
pub trait WhenAnAuthorIsRenamed: Send + Sync {
    /// Shows `rename` wherever the author is shown, unless a newer rename is shown there
    /// already; idempotent (a redelivered event changes nothing).
    async fn author_renamed(&self, table: &dyn Table, rename: &AuthorRename) -> anyhow::Result<()>;
}

/// The effects of an author's rename a process was wired with ([`AppContext::with_effect`]),
/// taken by the worker when it starts.
#[derive(Clone)]
pub struct AuthorEffects(Arc<dyn WhenAnAuthorIsRenamed>);

impl AuthorEffects {
    /// The effects `what_follows` carries out.
    pub fn new(what_follows: impl WhenAnAuthorIsRenamed + 'static) -> Self {
        Self(Arc::new(what_follows))
    }
}

impl Port for AuthorEffects {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        ctx.require_effect()
    }
}

/// Handles one AuthorRenamedEvent body: every head of the author gets the card unless it has a
/// newer one, then the followers (comments) follow.
pub async fn handle(ctx: &Embedding, body: &str) -> anyhow::Result<Outcome> {
    let rename: AuthorRename = serde_json::from_str(body)?;
    let table = ctx.table.as_ref();
    let links = query_all(table, Query::partition(Index::Gsi2, keys::author_links(rename.user_id)));
    let ids: Vec<u64> = links
        .await?
        .iter()
        .filter_map(|link| number(link, "articleId"))
        .map(|id| id as u64)
        .collect();
    let renamed: Vec<bool> = stream::iter(ids)
        .map(|id| rename_head(table, id, &rename))
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await?;
    let count = renamed.iter().filter(|r| **r).count();
    tracing::info!(
        user_id = rename.user_id,
        articles = count,
        "author card rewritten on the articles"
    );
    ctx.port.authors.0.author_renamed(table, &rename).await?;
    Ok(Outcome::Done)
}

/// Rewrites one head's card when the head's is older; whether it did.
async fn rename_head(
    table: &dyn Table,
    id: u64,
    rename: &AuthorRename,
) -> Result<bool, TableError> {
    let update =
        Update::new().set("authorName", s(&rename.name)).set("authorAvatar", s(&rename.avatar));
    update_if_older(table, &keys::head(id), update, "authorRenamedAt", rename.created_at).await
}
