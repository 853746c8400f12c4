//! The AWS side of the harness: the event queue on SQS (moto at `BLOG_TEST_SQS_ENDPOINT`), a
//! worker that consumes it the way Lambda's SQS event source does (batches of up to ten
//! records handed to the worker function's real handler, `lambda::worker_invocation`, only the
//! messages it did not report as failed deleted, the rest redelivered by SQS until its redrive
//! policy dead-letters them), and the stack's stub of Bedrock Runtime's `InvokeModel` for Titan
//! Text Embeddings V2 (the local embedder's vectors, so related articles still rank by topic).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use blog_api::{
    articles::worker::MAX_DELIVERIES,
    context::AppContext,
    ports::{
        blobs::{s3::S3Blobs, Blobs},
        events::sqs::{Received, SqsQueue},
    },
};
use serde_json::{json, Value};

/// Seconds a received message stays invisible: short, so failed messages come back quickly.
const VISIBILITY_SECONDS: u32 = 1;

/// A message the queue's redrive policy moved to the dead-letter queue.
#[derive(Debug)]
pub struct DeadLetter {
    /// The message id (SQS keeps it when it moves a message).
    pub id: String,
    /// The message body, as sent.
    pub body: String,
    /// How often the worker was handed the message before SQS gave up on it.
    pub deliveries: u32,
}

/// A fresh queue on moto with its dead-letter queue (after [`MAX_DELIVERIES`] receives, like
/// the template's redrive policy), and the bookkeeping of the harness's worker.
pub struct SqsEvents {
    queue: SqsQueue,
    dead_letters: SqsQueue,
    /// Deliveries per message id, counted by the worker loop.
    deliveries: Arc<Mutex<HashMap<String, u32>>>,
    endpoint: String,
}

impl SqsEvents {
    /// Creates the queues on the emulator at `BLOG_TEST_SQS_ENDPOINT`.
    pub async fn create() -> SqsEvents {
        let endpoint = std::env::var("BLOG_TEST_SQS_ENDPOINT")
            .expect("BLOG_TEST_SQS_ENDPOINT must point at moto (make test sets it)");
        let client = SqsQueue::test_client(&endpoint);
        let name = format!("events-{}", super::uuid_like());
        let (queue, dead_letters) =
            SqsQueue::create_with_dead_letter_queue(&client, &name, MAX_DELIVERIES)
                .await
                .expect("queues on moto");
        queue.set_visibility_timeout(VISIBILITY_SECONDS).await.expect("visibility timeout");
        SqsEvents { queue, dead_letters, deliveries: Arc::default(), endpoint }
    }

    /// The queues of a stack: `queue_url` and `dead_letter_url` on moto at `endpoint`.
    pub fn existing(endpoint: &str, queue_url: &str, dead_letter_url: &str) -> SqsEvents {
        let client = SqsQueue::test_client(endpoint);
        SqsEvents {
            queue: SqsQueue::new(client.clone(), queue_url),
            dead_letters: SqsQueue::new(client, dead_letter_url),
            deliveries: Arc::default(),
            endpoint: endpoint.to_string(),
        }
    }

    /// Sends `body` to the queue.
    pub async fn send(&self, body: &str) {
        use blog_api::ports::events::EventQueue;
        self.queue.send(body.to_string()).await.expect("SendMessage");
    }

    /// The configuration that points a process at this queue (`BLOG_EVENTS_QUEUE_URL`,
    /// `BLOG_SQS_ENDPOINT`).
    pub fn config_vars(&self) -> [(&'static str, String); 2] {
        [
            ("BLOG_EVENTS_QUEUE_URL", self.queue.queue_url().to_string()),
            ("BLOG_SQS_ENDPOINT", self.endpoint.clone()),
        ]
    }

    /// The next message of the queue (waiting up to `wait`), deleted, its body as JSON.
    pub async fn next_event(&self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let seconds = left.as_secs().min(20) as i32;
            let received = self.queue.receive(1, seconds).await.expect("ReceiveMessage");
            if let Some(first) = received.into_iter().next() {
                self.queue.delete(&first.receipt).await.expect("DeleteMessage");
                return serde_json::from_str(&first.message.body).ok();
            }
            if seconds == 0 {
                return None;
            }
        }
    }

    /// Spawns the worker: what Lambda's event source mapping does with the queue.
    pub fn start_worker(&self, ctx: AppContext) {
        let queue = self.queue.clone();
        let deliveries = self.deliveries.clone();
        tokio::spawn(async move {
            loop {
                match queue.receive(10, 1).await {
                    Ok(batch) if !batch.is_empty() => {
                        deliver(&ctx, &queue, &deliveries, batch).await;
                    }
                    Ok(_) => {}
                    Err(error) => {
                        eprintln!("worker: {error:#}");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }
        });
    }

    /// The next message of the dead-letter queue, if one is there within a second.
    pub async fn dead_letter(&self) -> Option<DeadLetter> {
        let received = self.dead_letters.receive(1, 1).await.expect("ReceiveMessage (DLQ)");
        let letter = received.into_iter().next()?;
        let deliveries =
            self.deliveries.lock().unwrap().get(&letter.message.id).copied().unwrap_or_default();
        Some(DeadLetter { id: letter.message.id, body: letter.message.body, deliveries })
    }
}

/// Hands one received batch to the worker function's handler as the SQS event Lambda would
/// build, then deletes the messages it did not report as failed (an error fails them all).
async fn deliver(
    ctx: &AppContext,
    queue: &SqsQueue,
    deliveries: &Mutex<HashMap<String, u32>>,
    batch: Vec<Received>,
) {
    let records: Vec<Value> = batch
        .iter()
        .map(|received| {
            *deliveries.lock().unwrap().entry(received.message.id.clone()).or_default() += 1;
            sqs_record(&received.message, &received.receipt)
        })
        .collect();
    let answer = blog_api::lambda::worker_invocation(
        &blog_api::area::AreaState::from_context(ctx).expect("an embedder"),
        json!({ "Records": records }),
    )
    .await;
    let failed: Vec<String> = match answer {
        Ok(response) => response["batchItemFailures"]
            .as_array()
            .expect("an SQS batch response")
            .iter()
            .map(|failure| failure["itemIdentifier"].as_str().unwrap().to_string())
            .collect(),
        Err(error) => {
            eprintln!("worker invocation failed: {error}");
            batch.iter().map(|received| received.message.id.clone()).collect()
        }
    };
    for received in batch.iter().filter(|received| !failed.contains(&received.message.id)) {
        if let Err(error) = queue.delete(&received.receipt).await {
            eprintln!("worker: {error:#}");
        }
    }
}

/// The record of `message` in the SQS event Lambda hands a function.
pub fn sqs_record(message: &blog_api::ports::events::Message, receipt: &str) -> Value {
    json!({
        "messageId": message.id,
        "receiptHandle": receipt,
        "body": message.body,
        "attributes": { "ApproximateReceiveCount": message.receive_count.to_string() },
        "messageAttributes": {},
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:events",
        "awsRegion": "us-east-1",
    })
}

/// Object storage of the API over HTTP: a fresh bucket on s3s-fs (`BLOG_TEST_S3_ENDPOINT`),
/// which verifies signatures like S3; without it, the local store served by the gateway at
/// `base`.
pub async fn blobs(base: &str) -> (Arc<dyn Blobs>, Option<tempfile::TempDir>) {
    match std::env::var("BLOG_TEST_S3_ENDPOINT") {
        Ok(endpoint) => {
            let client = S3Blobs::test_client(&endpoint);
            let bucket = format!("files-{}", super::uuid_like());
            let blobs = S3Blobs::create_bucket(&client, &bucket).await.expect("s3s-fs bucket");
            // Public files through a distribution of their own, as the template serves them.
            let cdn = blog_stack::distribution::serve_public_objects(client, &bucket)
                .expect("the public files' distribution");
            (Arc::new(blobs.with_public_files_url(Some(&cdn))), None)
        }
        Err(_) => {
            let (blobs, dir) = super::local_blobs(base);
            (blobs, Some(dir))
        }
    }
}

/// Starts the Bedrock Runtime stub the stack uses; returns its endpoint
/// (`BLOG_BEDROCK_ENDPOINT`).
pub async fn bedrock_stub() -> String {
    format!("http://{}", blog_stack::bedrock::start().await.expect("Bedrock stub"))
}
