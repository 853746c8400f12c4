//! Counting wrappers of the event queue and the embedder ports: how many SQS `SendMessage` and
//! Bedrock `InvokeModel` calls a request or an event costs (each adapter makes exactly one such
//! call per [`EventQueue::send`] and at most one per [`Embedder::embed`]).

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

use async_trait::async_trait;
use blog_api::ports::{embedder::Embedder, events::EventQueue};

/// An [`EventQueue`] that counts the messages sent through it.
pub struct CountingQueue {
    inner: Arc<dyn EventQueue>,
    sends: AtomicU64,
}

impl CountingQueue {
    /// Wraps a queue.
    pub fn new(inner: Arc<dyn EventQueue>) -> Self {
        Self { inner, sends: AtomicU64::new(0) }
    }

    /// Sends since creation or the last [`CountingQueue::reset`].
    pub fn sends(&self) -> u64 {
        self.sends.load(Ordering::Relaxed)
    }

    /// Starts counting from zero.
    pub fn reset(&self) {
        self.sends.store(0, Ordering::Relaxed);
    }
}

#[async_trait]
impl EventQueue for CountingQueue {
    async fn send(&self, body: String) -> anyhow::Result<()> {
        self.sends.fetch_add(1, Ordering::Relaxed);
        self.inner.send(body).await
    }

    async fn ping(&self) -> anyhow::Result<Option<u64>> {
        self.inner.ping().await
    }
}

/// An [`Embedder`] that counts the texts embedded through it.
pub struct CountingEmbedder {
    inner: Arc<dyn Embedder>,
    calls: AtomicU64,
}

impl CountingEmbedder {
    /// Wraps an embedder.
    pub fn new(inner: Arc<dyn Embedder>) -> Self {
        Self { inner, calls: AtomicU64::new(0) }
    }

    /// Embeddings since creation or the last [`CountingEmbedder::reset`].
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Starts counting from zero.
    pub fn reset(&self) {
        self.calls.store(0, Ordering::Relaxed);
    }
}

#[async_trait]
impl Embedder for CountingEmbedder {
    async fn embed(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.embed(text).await
    }

    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_api::ports::{embedder::local::LocalEmbedder, events::local::InProcessQueue};

    #[tokio::test]
    async fn the_queue_counts_each_send_and_forwards_it() {
        let (queue, mut receiver) = InProcessQueue::new();
        let counting = CountingQueue::new(Arc::new(queue));
        counting.send("a".into()).await.unwrap();
        counting.send("b".into()).await.unwrap();
        assert_eq!(counting.sends(), 2);
        assert_eq!(receiver.0.recv().await.unwrap().body, "a");
        counting.reset();
        assert_eq!(counting.sends(), 0);
    }

    #[tokio::test]
    async fn the_embedder_counts_each_text_and_keeps_the_inner_model() {
        let counting = CountingEmbedder::new(Arc::new(LocalEmbedder::new(64)));
        let vector = counting.embed("rust lambdas").await.unwrap();
        assert_eq!((vector.len(), counting.calls(), counting.dimensions()), (64, 1, 64));
    }
}
