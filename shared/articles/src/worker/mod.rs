//! The worker's handling of the queue's messages ([`handle`]: the follow-up of a publication, or
//! a rename): a batch of SQS records in Lambda (failed ones reported back for redelivery,
//! poison ones ending in the dead-letter queue), and the local gateway's in-process queue, whose
//! delivery loop (the same retry semantics) is the events port's, beside a periodic sweep.

pub mod authors;
pub mod events;
pub mod followup;
pub mod notify;
pub mod related;
pub mod schedule;
pub mod sitemap_pages;

use std::{sync::Arc, time::Duration};

use futures::future::BoxFuture;

use blog_core::{
    area::WithPort,
    context::AppContext,
    ports::events::{
        local::{self, InProcessQueue, Receiver},
        EventQueue, Message,
    },
};

use crate::{views, Embedding};

pub use blog_core::ports::events::MAX_DELIVERIES;

/// `type` of the command that rebuilds the search index from the table (a message sent to
/// the queue: `{"type":"SearchIndexRebuildRequested"}`), after a deployment over an existing
/// table or a change of the embedder.
pub const REBUILD_SEARCH_INDEX: &str = "SearchIndexRebuildRequested";

/// Handles one message body: an AuthorRenamedEvent, an ArticleWithdrawnEvent, an
/// ArticleRelabelledEvent, a SearchIndexRebuildRequested command, else an
/// ArticlePublishedEvent.
pub async fn handle(ctx: &Embedding, body: &str) -> anyhow::Result<followup::Outcome> {
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let kind = serde_json::from_str::<Kind>(body).ok().and_then(|k| k.kind);
    match kind.as_deref() {
        Some(authors::AUTHOR_RENAMED) => authors::handle(ctx, body).await,
        Some(events::WITHDRAWN) => followup::withdrawn(ctx, body).await,
        Some(events::RELABELLED) => followup::relabelled(ctx, body).await,
        Some(REBUILD_SEARCH_INDEX) => {
            let table = ctx.table.as_ref();
            let articles = ctx.port.search.rebuild(table, ctx.port.embedder.model_id()).await?;
            tracing::info!(articles, "search index rebuilt");
            Ok(followup::Outcome::Done)
        }
        _ => followup::handle(ctx, body).await,
    }
}

/// Where the worker hands one message body: [`handle`] for the articles' own messages, or a
/// composition that routes other features' events elsewhere first (blog-api's worker).
pub type Route =
    for<'a> fn(&'a Embedding, &'a str) -> BoxFuture<'a, anyhow::Result<followup::Outcome>>;

/// Handles a batch, each message through `route`; returns the ids of the messages that failed
/// (to be redelivered).
pub async fn process_batch(ctx: &Embedding, messages: &[Message], route: Route) -> Vec<String> {
    let mut failed = Vec::new();
    for message in messages {
        match route(ctx, &message.body).await {
            Ok(outcome) => {
                ctx.telemetry.registry.count("blog.worker.events", &[("outcome", "processed")], 1);
                tracing::info!(message_id = %message.id, ?outcome, "event handled")
            }
            Err(error) => {
                ctx.telemetry.registry.count("blog.worker.events", &[("outcome", "failed")], 1);
                tracing::error!(message_id = %message.id, receive_count = message.receive_count, error = format!("{error:#}"), "event failed");
                failed.push(message.id.clone());
            }
        }
    }
    failed
}

/// The worker feature as the local delivery loop's handler: one delivery is a batch of one.
struct LocalHandler<'a>(&'a Embedding, Route);

impl local::Handler for LocalHandler<'_> {
    async fn handle(&self, message: &Message) -> bool {
        process_batch(self.0, std::slice::from_ref(message), self.1).await.is_empty()
    }
}

/// The local worker: the in-process queue's delivery loop ([`local::deliver`]: redeliveries,
/// dead letters) around `route`, beside a sweep of the outbox and the pending views (and a
/// step of the sitemap's rebuild, until it is done) every `sweep_every`. Returns when the queue's senders are gone.
pub async fn run_local(
    ctx: Embedding,
    queue: Arc<InProcessQueue>,
    receiver: Receiver,
    sweep_every: Duration,
    route: Route,
) {
    let publishing = WithPort::new(AppContext::clone(&ctx), queue.clone() as Arc<dyn EventQueue>);
    let sweeps = async {
        let mut sweep = tokio::time::interval(sweep_every);
        loop {
            sweep.tick().await;
            if let Err(error) = events::sweep(&publishing, sweep_every).await {
                tracing::warn!(error = format!("{error:#}"), "outbox sweep failed");
            }
            if let Err(error) = views::sweep(ctx.table.as_ref()).await {
                tracing::warn!(%error, "views sweep failed");
            }
            if let Err(error) = sitemap_pages::rebuild_step(ctx.table.as_ref()).await {
                tracing::warn!(%error, "sitemap rebuild failed");
            }
        }
    };
    let handler = LocalHandler(&ctx, route);
    let deliveries = local::deliver(queue.clone(), receiver, ctx.table.clone(), &handler);
    tokio::select! {
        () = deliveries => {}
        () = sweeps => {}
    }
}
