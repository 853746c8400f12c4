//! The worker's side of a publication: the events the measured requests sent to SQS (moto),
//! each handed to the worker's handler alone, as a one-record SQS batch, with its table calls
//! and embeddings (one Bedrock `InvokeModel` each with the Bedrock embedder) counted.

use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use blog_api::worker;

use crate::{
    harness::Harness,
    measure::{summarise, Measurement},
};

/// How long the events may take to show up on the queue.
const WAIT: Duration = Duration::from_secs(30);

/// Receives `expected` events from the harness's SQS queue and runs the worker on each.
pub async fn worker_events(harness: &Harness, expected: usize) -> Result<Measurement> {
    let sqs = harness.sqs.as_ref().context("the worker's measurement needs the SQS queue")?;
    let deadline = Instant::now() + WAIT;
    let mut samples = Vec::with_capacity(expected);
    while samples.len() < expected {
        ensure!(
            Instant::now() < deadline,
            "only {} of {expected} events arrived on SQS within {WAIT:?}",
            samples.len()
        );
        for received in sqs.receive(10, 1).await? {
            harness.reset();
            let message = std::slice::from_ref(&received.message);
            let worker = blog_api::area::AreaState::from_context(&harness.ctx)?;
            let failed = worker::process_batch(&worker, message).await;
            ensure!(failed.is_empty(), "the worker failed on {}", received.message.body);
            samples.push(harness.sample());
            sqs.delete(&received.receipt).await?;
        }
    }
    ensure!(!samples.is_empty(), "the measured requests sent no event");
    Ok(summarise("worker: one ArticlePublishedEvent (one SQS record)".into(), &samples))
}
