//! The worker's delivery loops around [`handle`] (the follow-up of a publication, or a rename): a batch of SQS records in Lambda
//! (failed ones reported back for redelivery, poison ones ending in the dead-letter queue), and
//! the local gateway's in-process loop with the same retry semantics and a periodic outbox sweep.

use std::{sync::Arc, time::Duration};

use crate::{
    area::WithPort,
    context::AppContext,
    ports::{
        events::{local::InProcessQueue, local::Receiver, EventQueue, Message},
        table::{n, s},
    },
    records,
};

use super::{authors, events, followup, views, Embedding};

/// Deliveries of one message before it is dead-lettered (SQS: the redrive policy's count).
pub const MAX_DELIVERIES: u32 = 5;

/// Handles one message body: an AuthorRenamedEvent, else an ArticlePublishedEvent.
pub async fn handle(ctx: &Embedding, body: &str) -> anyhow::Result<followup::Outcome> {
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let kind = serde_json::from_str::<Kind>(body).ok().and_then(|k| k.kind);
    match kind.as_deref() {
        Some(authors::AUTHOR_RENAMED) => authors::handle(ctx, body).await,
        _ => followup::handle(ctx, body).await,
    }
}

/// Handles a batch; returns the ids of the messages that failed (to be redelivered).
pub async fn process_batch(ctx: &Embedding, messages: &[Message]) -> Vec<String> {
    let mut failed = Vec::new();
    for message in messages {
        match handle(ctx, &message.body).await {
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

/// Keeps a message that failed every delivery (the local dead-letter queue: `DEADLETTER` items).
async fn dead_letter(ctx: &AppContext, message: &Message) {
    let key = crate::ports::table::Key::new(
        "DEADLETTER",
        format!("{}#{}", crate::time::now_string(), message.id),
    );
    let mut item = records::key_item(&key);
    item.insert("body".into(), s(&message.body));
    item.insert("deliveries".into(), n(message.receive_count as i64));
    if let Err(error) = ctx.table.put(item, None).await {
        tracing::error!(%error, message_id = %message.id, "dead letter could not be stored");
    }
    tracing::error!(message_id = %message.id, "event dead-lettered after {MAX_DELIVERIES} deliveries");
}

/// The local worker: handles in-process messages, redelivers failures with a growing delay,
/// dead-letters a message after [`MAX_DELIVERIES`], and sweeps the outbox and the pending views
/// every `sweep_every`.
pub async fn run_local(
    ctx: Embedding,
    queue: Arc<InProcessQueue>,
    mut receiver: Receiver,
    sweep_every: Duration,
) {
    let publishing = WithPort::new(AppContext::clone(&ctx), queue.clone() as Arc<dyn EventQueue>);
    let mut sweep = tokio::time::interval(sweep_every);
    loop {
        tokio::select! {
            message = receiver.0.recv() => {
                let Some(message) = message else { return };
                if process_batch(&ctx, std::slice::from_ref(&message)).await.is_empty() {
                    continue;
                }
                if message.receive_count >= MAX_DELIVERIES {
                    dead_letter(&ctx, &message).await;
                    continue;
                }
                let queue = queue.clone();
                let delay = Duration::from_millis(200 * 2u64.pow(message.receive_count));
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    if let Err(error) = queue.redeliver(message) {
                        tracing::error!(%error, "event could not be redelivered");
                    }
                });
            }
            _ = sweep.tick() => {
                if let Err(error) = events::sweep(&publishing, sweep_every).await {
                    tracing::warn!(error = format!("{error:#}"), "outbox sweep failed");
                }
                if let Err(error) = views::sweep(ctx.table.as_ref()).await {
                    tracing::warn!(%error, "views sweep failed");
                }
            }
        }
    }
}
