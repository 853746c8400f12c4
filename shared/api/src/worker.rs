//! The worker's messages routed by their `type`: a FileConfirmedEvent to the files feature
//! (the variants of a public image, [`blog_files::variants::make`]), every other message to
//! the articles' worker ([`blog_articles::worker::handle`]). The Lambda worker
//! (`lambda::worker_invocation`), the local gateway's in-process worker and the tests' harness
//! all hand their messages to [`process_batch`] or [`run_local`], so a message goes the same
//! way everywhere.

use std::{sync::Arc, time::Duration};

use futures::future::BoxFuture;

use crate::articles::{
    worker::{self, followup::Outcome},
    Embedding,
};
use crate::files::{events::FILE_CONFIRMED, variants};
use crate::ports::events::{
    local::{InProcessQueue, Receiver},
    Message,
};

/// Handles one message body by its `type`.
pub async fn handle(ctx: &Embedding, body: &str) -> anyhow::Result<Outcome> {
    let message = serde_json::from_str::<serde_json::Value>(body).unwrap_or_default();
    match message["type"].as_str() {
        Some(FILE_CONFIRMED) => {
            let blobs = ctx.require_blobs()?;
            Ok(match variants::make(ctx.table.as_ref(), blobs.as_ref(), body).await? {
                variants::Outcome::Skipped => Outcome::Skipped,
                variants::Outcome::Made(_) | variants::Outcome::Refused => Outcome::Done,
            })
        }
        _ => worker::handle(ctx, body).await,
    }
}

/// [`handle`] as the articles' worker takes a route.
pub fn route<'a>(ctx: &'a Embedding, body: &'a str) -> BoxFuture<'a, anyhow::Result<Outcome>> {
    Box::pin(handle(ctx, body))
}

/// Handles a batch; returns the ids of the messages that failed (to be redelivered).
pub async fn process_batch(ctx: &Embedding, messages: &[Message]) -> Vec<String> {
    worker::process_batch(ctx, messages, route).await
}

/// The local worker ([`worker::run_local`]) with every message routed by [`handle`].
pub async fn run_local(
    ctx: Embedding,
    queue: Arc<InProcessQueue>,
    receiver: Receiver,
    sweep_every: Duration,
) {
    worker::run_local(ctx, queue, receiver, sweep_every, route).await
}
