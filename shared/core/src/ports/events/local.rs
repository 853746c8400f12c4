//! The in-process queue of the local gateway: a bounded channel, and the delivery loop that
//! feeds its messages to a handler with SQS's semantics (a failed message is delivered again
//! with a growing delay and, after [`MAX_DELIVERIES`], kept as a `DEADLETTER` item).

use std::{future::Future, sync::Arc, time::Duration};

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{EventQueue, Message, MAX_DELIVERIES};
use crate::ports::table::{n, s, Key, Table, PK, SK};

/// Messages waiting at most; a full queue refuses further sends.
pub const CAPACITY: usize = 10_000;

/// Sending half of the in-process queue.
pub struct InProcessQueue {
    sender: mpsc::Sender<Message>,
    sequence: std::sync::atomic::AtomicU64,
}

/// Receiving half, given to the local worker.
pub struct Receiver(pub mpsc::Receiver<Message>);

impl InProcessQueue {
    /// A queue and its receiving half.
    pub fn new() -> (Self, Receiver) {
        let (sender, receiver) = mpsc::channel(CAPACITY);
        (Self { sender, sequence: Default::default() }, Receiver(receiver))
    }

    /// Puts a message back for another delivery (the local worker's retry).
    pub fn redeliver(&self, mut message: Message) -> anyhow::Result<()> {
        message.receive_count += 1;
        self.sender.try_send(message).map_err(|e| anyhow::anyhow!("in-process queue: {e}"))
    }
}

#[async_trait]
impl EventQueue for InProcessQueue {
    async fn send(&self, body: String) -> anyhow::Result<()> {
        let id = self.sequence.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let message = Message { id: format!("local-{id}"), body, receive_count: 1 };
        self.sender.try_send(message).map_err(|e| anyhow::anyhow!("in-process queue: {e}"))
    }

    async fn ping(&self) -> anyhow::Result<Option<u64>> {
        anyhow::ensure!(!self.sender.is_closed(), "in-process queue: the worker has stopped");
        Ok(Some((self.sender.max_capacity() - self.sender.capacity()) as u64))
    }
}

/// What the delivery loop hands each message to.
pub trait Handler: Send + Sync {
    /// Handles one delivery of `message`: whether it succeeded (else it is delivered again).
    fn handle(&self, message: &Message) -> impl Future<Output = bool> + Send;
}

/// The local delivery loop: hands each message of `receiver` to `handler`; a failed one is
/// delivered again after 0.4 s, 0.8 s, 1.6 s, ... and after [`MAX_DELIVERIES`] deliveries kept
/// in `dead_letters` (`DEADLETTER` / `<time>#<message id>`, with its body and deliveries) and
/// logged. Returns when every sender is gone.
pub async fn deliver(
    queue: Arc<InProcessQueue>,
    mut receiver: Receiver,
    dead_letters: Arc<dyn Table>,
    handler: &impl Handler,
) {
    while let Some(message) = receiver.0.recv().await {
        if handler.handle(&message).await {
            continue;
        }
        if message.receive_count >= MAX_DELIVERIES {
            dead_letter(dead_letters.as_ref(), &message).await;
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
}

/// Keeps a message that failed every delivery (the local dead-letter queue).
async fn dead_letter(table: &dyn Table, message: &Message) {
    let key = Key::new("DEADLETTER", format!("{}#{}", crate::time::now_string(), message.id));
    let mut item = crate::ports::table::Item::default();
    item.insert(PK.into(), s(&key.pk));
    item.insert(SK.into(), s(&key.sk));
    item.insert("body".into(), s(&message.body));
    item.insert("deliveries".into(), n(message.receive_count as i64));
    if let Err(error) = table.put(item, None).await {
        tracing::error!(%error, message_id = %message.id, "dead letter could not be stored");
    }
    tracing::error!(message_id = %message.id, "event dead-lettered after {MAX_DELIVERIES} deliveries");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sent_messages_arrive_in_order_with_ids() {
        let (queue, mut receiver) = InProcessQueue::new();
        queue.send("a".into()).await.unwrap();
        queue.send("b".into()).await.unwrap();
        let first = receiver.0.recv().await.unwrap();
        assert_eq!(
            (first.id.as_str(), first.body.as_str(), first.receive_count),
            ("local-1", "a", 1)
        );
        queue.redeliver(first).unwrap();
        assert_eq!(receiver.0.recv().await.unwrap().body, "b");
        assert_eq!(receiver.0.recv().await.unwrap().receive_count, 2);
    }

    /// Fails the deliveries of its first `failures` messages, noting each delivery's count.
    struct Flaky {
        failures: u32,
        seen: Arc<std::sync::Mutex<Vec<(String, u32)>>>,
    }

    impl Handler for Flaky {
        async fn handle(&self, message: &Message) -> bool {
            let mut seen = self.seen.lock().unwrap();
            seen.push((message.body.clone(), message.receive_count));
            seen.len() as u32 > self.failures
        }
    }

    /// Runs the delivery loop of a fresh queue with `handler` over `table`.
    fn running(handler: Flaky, table: Arc<dyn Table>) -> Arc<InProcessQueue> {
        let (queue, receiver) = InProcessQueue::new();
        let queue = Arc::new(queue);
        let delivering = queue.clone();
        tokio::spawn(async move { deliver(delivering, receiver, table, &handler).await });
        queue
    }

    async fn until(what: &str, done: impl Fn() -> bool) {
        for _ in 0..200 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{what} never happened");
    }

    fn table() -> Arc<dyn Table> {
        Arc::new(crate::ports::table::embedded::SqliteTable::in_memory().unwrap())
    }

    #[tokio::test]
    async fn a_failed_delivery_is_delivered_again_until_handled() {
        let seen = Arc::default();
        let queue = running(Flaky { failures: 1, seen: Arc::clone(&seen) }, table());
        queue.send("flaky".into()).await.unwrap();
        until("the second delivery", || seen.lock().unwrap().len() == 2).await;
        let expected = [("flaky".to_string(), 1), ("flaky".to_string(), 2)];
        assert_eq!(*seen.lock().unwrap(), expected);
    }

    #[tokio::test]
    async fn a_message_failing_its_last_delivery_is_kept_as_a_dead_letter() {
        let seen = Arc::default();
        let table = table();
        let queue = running(Flaky { failures: u32::MAX, seen: Arc::clone(&seen) }, table.clone());
        let message = Message { id: "m1".into(), body: "poison".into(), receive_count: 4 };
        queue.redeliver(message).unwrap();
        let query = crate::ports::table::Query::partition(
            crate::ports::table::Index::Primary,
            "DEADLETTER",
        );
        let mut letters = Vec::new();
        for _ in 0..200 {
            letters = table.query(query.clone()).await.unwrap().items;
            if !letters.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(letters.len(), 1, "one dead letter");
        assert_eq!(
            (letters[0].get("body"), letters[0].get("deliveries")),
            (Some(&s("poison")), Some(&n(5)))
        );
        let key = letters[0].get(SK);
        assert!(
            matches!(key, Some(crate::ports::table::AttributeValue::S(sk)) if sk.ends_with("#m1")),
            "{key:?}"
        );
        assert_eq!(*seen.lock().unwrap(), [("poison".to_string(), MAX_DELIVERIES)]);
    }
}
