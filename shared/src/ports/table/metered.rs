//! A table wrapper that counts the calls made through it, per operation: the tests prove the
//! data model's cost claims with it, and benchmarks report them.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

use async_trait::async_trait;

use super::{Condition, Item, Key, Query, QueryPage, Table, TableError, Update, Write};

/// Calls made through a [`Metered`] table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallCounts {
    /// GetItem.
    pub get: u64,
    /// BatchGetItem.
    pub get_many: u64,
    /// PutItem.
    pub put: u64,
    /// UpdateItem.
    pub update: u64,
    /// DeleteItem.
    pub delete: u64,
    /// Query.
    pub query: u64,
    /// TransactWriteItems.
    pub transact: u64,
    /// Items written by those transactions (DynamoDB charges each item; not a call).
    pub transact_items: u64,
}

impl CallCounts {
    /// Every call.
    pub fn total(&self) -> u64 {
        self.get + self.get_many + self.put + self.update + self.delete + self.query + self.transact
    }

    /// Read calls (GetItem, BatchGetItem, Query).
    pub fn reads(&self) -> u64 {
        self.get + self.get_many + self.query
    }
}

#[derive(Default)]
struct Counters([AtomicU64; 8]);

/// Counts the calls to an inner table.
pub struct Metered {
    inner: Arc<dyn Table>,
    counters: Counters,
}

impl Metered {
    /// Wraps a table.
    pub fn new(inner: impl Table) -> Self {
        Self { inner: Arc::new(inner), counters: Counters::default() }
    }

    /// The calls counted so far.
    pub fn counts(&self) -> CallCounts {
        let c = |i: usize| self.counters.0[i].load(Ordering::Relaxed);
        CallCounts {
            get: c(0),
            get_many: c(1),
            put: c(2),
            update: c(3),
            delete: c(4),
            query: c(5),
            transact: c(6),
            transact_items: c(7),
        }
    }

    /// Starts counting from zero.
    pub fn reset(&self) {
        self.counters.0.iter().for_each(|c| c.store(0, Ordering::Relaxed));
    }

    /// The wrapped table.
    pub fn inner(&self) -> &dyn Table {
        self.inner.as_ref()
    }

    fn count(&self, index: usize) {
        self.counters.0[index].fetch_add(1, Ordering::Relaxed);
    }
}

#[async_trait]
impl Table for Metered {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.count(0);
        self.inner.get(key).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        self.count(1);
        self.inner.get_many(keys).await
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.count(2);
        self.inner.put(item, condition).await
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.count(3);
        self.inner.update(key, update, condition).await
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.count(4);
        self.inner.delete(key, condition).await
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        self.count(5);
        self.inner.query(query).await
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.count(6);
        self.counters.0[7].fetch_add(writes.len() as u64, Ordering::Relaxed);
        self.inner.transact(writes).await
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.inner.ping().await
    }

    fn change_stamp(&self) -> Option<u64> {
        self.inner.change_stamp()
    }
}
