//! The in-process queue of the local gateway: a bounded channel feeding the local worker.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{EventQueue, Message};

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
}
