//! The events port: a queue of JSON messages between the functions that emit events and the
//! worker that handles them. Locally an in-process queue; in AWS an SQS queue. The port knows
//! only message bodies; features define what the messages mean.

use async_trait::async_trait;

pub mod local;
pub mod outbox;
#[cfg(feature = "sqs")]
pub mod sqs;

/// Deliveries of one message before it is dead-lettered: the SQS queue's redrive policy
/// (template.yaml) and the local delivery loop ([`local::deliver`]).
pub const MAX_DELIVERIES: u32 = 5;

/// A message as the worker receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Queue-assigned id (SQS MessageId; a counter locally).
    pub id: String,
    /// JSON body, as sent.
    pub body: String,
    /// How many times this message has been delivered (1 on first delivery).
    pub receive_count: u32,
}

/// Sending side of the queue.
#[async_trait]
pub trait EventQueue: Send + Sync + 'static {
    /// Enqueues one message; an error means it was not accepted.
    async fn send(&self, body: String) -> anyhow::Result<()>;

    /// Checks that the queue answers (for health reports) and tells how many messages wait,
    /// when the queue knows.
    async fn ping(&self) -> anyhow::Result<Option<u64>>;
}
