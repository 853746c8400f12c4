//! Query embeddings for semantic and hybrid search, bounded so that anonymous callers cannot
//! run up the embedder's bill: a process keeps the vectors of its last [`CACHED`] queries, and
//! a query it does not keep is embedded only while its client is within [`PER_CLIENT`] and all
//! clients together within [`OVERALL`] new embeddings a minute (windows in the table, so they
//! hold across every instance). Above either, the caller is told when to retry.

use std::{
    num::NonZeroUsize,
    sync::{Arc, Mutex},
};

use lru::LruCache;

use blog_core::{
    ports::{
        embedder::Embedder,
        table::{n, now_epoch_seconds, Condition, Key, Table, TableError, Update, TTL},
    },
    records,
};

/// Query vectors kept per process.
pub const CACHED: usize = 1_000;
/// New query embeddings a client may cause per minute.
pub const PER_CLIENT: i64 = 20;
/// New query embeddings all clients together may cause per minute.
pub const OVERALL: i64 = 600;

/// A query's vector, or how long to wait for one.
pub enum QueryVector {
    /// The query's embedding.
    Ready(Arc<Vec<f32>>),
    /// A window is full: retry after this many seconds.
    Limited {
        /// Seconds until the window ends.
        retry_after_secs: u64,
    },
}

/// The query embeddings of one process.
pub struct QueryVectors {
    embedder: Arc<dyn Embedder>,
    kept: Mutex<LruCache<String, Arc<Vec<f32>>>>,
}

impl QueryVectors {
    /// Query embeddings by `embedder`.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        let capacity = NonZeroUsize::new(CACHED).unwrap_or(NonZeroUsize::MIN);
        Self { embedder, kept: Mutex::new(LruCache::new(capacity)) }
    }

    /// The vector of `text` (as the engine reads it: the caller passes the normalised query),
    /// kept or embedded within `client`'s window and the overall one.
    pub async fn of(
        &self,
        table: &dyn Table,
        client: &str,
        text: &str,
    ) -> anyhow::Result<QueryVector> {
        self.at(table, client, text, now_epoch_seconds()).await
    }

    /// [`QueryVectors::of`] at `now` (epoch seconds).
    async fn at(
        &self,
        table: &dyn Table,
        client: &str,
        text: &str,
        now: i64,
    ) -> anyhow::Result<QueryVector> {
        if let Some(vector) = self.kept.lock().unwrap_or_else(|e| e.into_inner()).get(text) {
            return Ok(QueryVector::Ready(vector.clone()));
        }
        let minute = now.div_euclid(60);
        let retry_after_secs = ((minute + 1) * 60 - now).max(1) as u64;
        for (scope, limit) in [(client, PER_CLIENT), ("*", OVERALL)] {
            if !take_place(table, scope, minute, limit).await? {
                tracing::warn!(client, scope, limit, "query embeddings limited");
                return Ok(QueryVector::Limited { retry_after_secs });
            }
        }
        let vector = Arc::new(self.embedder.embed(text).await?);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.put(text.to_owned(), vector.clone());
        Ok(QueryVector::Ready(vector))
    }
}

/// Key of `scope`'s window of `minute` (`*`: every client).
fn window(scope: &str, minute: i64) -> Key {
    Key::new(format!("SEARCHRATE#{scope}"), minute.to_string())
}

/// Counts one embedding in `scope`'s window unless it holds `limit` already: one conditional
/// UpdateItem, and a conditional PutItem for the window's first.
async fn take_place(
    table: &dyn Table,
    scope: &str,
    minute: i64,
    limit: i64,
) -> Result<bool, TableError> {
    let key = window(scope, minute);
    let counted = Update::new().add("count", 1);
    match table.update(&key, counted, Some(Condition::LessThan("count".into(), limit))).await {
        Ok(_) => return Ok(true),
        Err(TableError::ConditionFailed) => {}
        Err(other) => return Err(other),
    }
    let mut first = records::key_item(&key);
    first.insert("count".into(), n(1));
    first.insert(TTL.into(), n((minute + 2) * 60));
    match table.put(first, Some(Condition::NotExists)).await {
        Ok(()) => Ok(true),
        // Full, or another request wrote the window's first meanwhile: read it as full once.
        Err(TableError::ConditionFailed) => Ok(false),
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::ports::{embedder::local::LocalEmbedder, table::embedded::SqliteTable};

    /// 30 s into a minute.
    const NOW: i64 = 1_800_000_030;

    fn vectors() -> QueryVectors {
        QueryVectors::new(Arc::new(LocalEmbedder::default()))
    }

    async fn ready(vectors: &QueryVectors, table: &dyn Table, client: &str, text: &str) -> bool {
        match vectors.at(table, client, text, NOW).await.unwrap() {
            QueryVector::Ready(vector) => !vector.is_empty(),
            QueryVector::Limited { retry_after_secs } => {
                assert_eq!(retry_after_secs, 30, "the rest of the minute");
                false
            }
        }
    }

    #[tokio::test]
    async fn a_client_gets_its_limit_of_new_query_vectors_a_minute_and_kept_ones_always() {
        let table = SqliteTable::in_memory().unwrap();
        let vectors = vectors();
        for n in 0..PER_CLIENT {
            assert!(ready(&vectors, &table, "192.0.2.1", &format!("query number {n}")).await);
        }
        assert!(!ready(&vectors, &table, "192.0.2.1", "one more").await, "the window is full");
        assert!(ready(&vectors, &table, "192.0.2.1", "query number 3").await, "kept: free");
        assert!(ready(&vectors, &table, "192.0.2.2", "one more").await, "another client");
        let next_minute = vectors.at(&table, "192.0.2.1", "later", NOW + 60).await.unwrap();
        assert!(matches!(next_minute, QueryVector::Ready(_)), "a new window");
    }

    #[tokio::test]
    async fn all_clients_together_get_the_overall_limit() {
        let table = SqliteTable::in_memory().unwrap();
        let vectors = vectors();
        let mut full = records::key_item(&window("*", NOW.div_euclid(60)));
        full.insert("count".into(), n(OVERALL - 1));
        table.put(full, None).await.unwrap();
        assert!(ready(&vectors, &table, "192.0.2.3", "the last one").await);
        assert!(!ready(&vectors, &table, "192.0.2.4", "anything new").await);
    }
}
