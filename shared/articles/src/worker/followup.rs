//! The asynchronous follow-up of ArticlePublishedEvent (spec 6), run by the worker: embed the
//! article, refresh the related lists it affects, record it among the latest, sync its sitemap
//! entry and its search document, initialise its statistics and notify. Every step is idempotent, so a redelivered or duplicated event changes
//! nothing twice. (The service keeps no caches of articles, so there is none to invalidate.)
//! Steps that do not depend on each other run together, and so do the writes of the neighbour
//! lists an article enters (16 at a time): an event waits for a few round trips to the table,
//! not one per call.

use anyhow::Context;
use futures::try_join;

use blog_core::{
    context::AppContext,
    ports::table::{n, Condition, Key, TableError},
    records,
};

use crate::{
    content, events::ArticlePublishedEvent, keys, notify, read, related, sitemap_pages, Embedding,
};

/// What handling an event did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every follow-up ran.
    Done,
    /// The article is no longer published (or gone); nothing to do.
    Skipped,
}

/// Text an article is embedded from: title, summary (unless it merely repeats the start of the
/// content, as a derived one does) and content as plain text.
fn embedding_text(title: &str, summary: &str, markdown: &str) -> String {
    let plain = content::render(markdown).plain_text;
    let derived = plain.contains(summary.trim_end_matches('…').trim());
    let mut text =
        if derived { format!("{title}\n{plain}") } else { format!("{title}\n{summary}\n{plain}") };
    if text.len() > 20_000 {
        let cut = (0..=20_000).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        text.truncate(cut);
    }
    text
}

/// Handles an ArticleWithdrawnEvent: the article's sitemap entry and search document go (or
/// follow its head, if it was published again meanwhile).
pub async fn withdrawn(ctx: &Embedding, body: &str) -> anyhow::Result<Outcome> {
    let event: ArticlePublishedEvent =
        serde_json::from_str(body).context("not an ArticleWithdrawnEvent")?;
    let id: u64 = event.article_id.parse().context("articleId is not an id")?;
    let table = ctx.table.as_ref();
    let sitemap = async { Ok::<_, anyhow::Error>(sitemap_pages::sync(table, id).await?) };
    try_join!(sitemap, ctx.port.search.sync(table, ctx.port.embedder.model_id(), id))?;
    Ok(Outcome::Done)
}

/// Handles an ArticleRelabelledEvent: the article's search document shows its category's and
/// tags' names as they are now.
pub async fn relabelled(ctx: &Embedding, body: &str) -> anyhow::Result<Outcome> {
    let event: ArticlePublishedEvent =
        serde_json::from_str(body).context("not an ArticleRelabelledEvent")?;
    let id: u64 = event.article_id.parse().context("articleId is not an id")?;
    ctx.port.search.sync(ctx.table.as_ref(), ctx.port.embedder.model_id(), id).await?;
    Ok(Outcome::Done)
}

/// Handles one message body: the article's sitemap entry (whatever its state now) beside the
/// rest, which runs while it is published.
pub async fn handle(ctx: &Embedding, body: &str) -> anyhow::Result<Outcome> {
    let event: ArticlePublishedEvent =
        serde_json::from_str(body).context("not an ArticlePublishedEvent")?;
    let id: u64 = event.article_id.parse().context("articleId is not an id")?;
    let sitemap =
        async { Ok::<_, anyhow::Error>(sitemap_pages::sync(ctx.table.as_ref(), id).await?) };
    let (outcome, ()) = try_join!(follow_up(ctx, &event, id), sitemap)?;
    Ok(outcome)
}

async fn follow_up(
    ctx: &Embedding,
    event: &ArticlePublishedEvent,
    id: u64,
) -> anyhow::Result<Outcome> {
    let table = ctx.table.as_ref();
    let (article, existing) = try_join!(read::load(table, id), related::vector(table, id))?;
    let Some((head, body)) = article else {
        return Ok(Outcome::Skipped);
    };
    if !head.is_listed() {
        return Ok(Outcome::Skipped);
    }
    let embedder = &ctx.port.embedder;
    let revision = existing.as_ref().map_or(0, |record| record.revision);
    let embedding = match existing {
        Some(record) if record.version >= head.version && record.model == embedder.model_id() => {
            record.embedding()
        }
        _ => embedder.embed(&embedding_text(&head.title, &head.summary, &body.content)).await?,
    };
    let model = embedder.model_id();
    let nearest =
        ctx.port.search.nearest(table, model, (id, &embedding), related::NEIGHBOURS).await?;
    try_join!(
        related::relate(table, (id, head.version), model, &embedding, revision, &nearest),
        related::note_recent(table, &head),
        initialise_statistics(ctx, id),
    )?;
    // After the vector item is written: the search document carries the embedding stored.
    ctx.port.search.sync(table, embedder.model_id(), id).await?;
    notify::notify(ctx, event, &head).await?;
    Ok(Outcome::Done)
}

async fn initialise_statistics(ctx: &AppContext, id: u64) -> Result<(), TableError> {
    let mut item = records::key_item(&Key::new(keys::partition(id), "A#STATS"));
    item.insert("views".into(), n(0));
    item.insert("initialisedAt".into(), n(chrono::Utc::now().timestamp()));
    match ctx.table.put(item, Some(Condition::NotExists)).await {
        Ok(()) | Err(TableError::ConditionFailed) => Ok(()),
        Err(other) => Err(other),
    }
}
