//! A pass-through [`Table`] that counts the items written by transactions: DynamoDB charges
//! every item of a transaction on its own (2 WCU per started KB), which DynamoDB Local's
//! reported capacity does not reflect, so the item count is reported next to the units.

use std::sync::{
    atomic::{AtomicU64, Ordering::Relaxed},
    Arc,
};

use async_trait::async_trait;
use blog_shared::ports::table::{
    Condition, Item, Key, Query, QueryPage, Table, TableError, Update, Write,
};

/// Delegates every call to `inner`, counting transaction items in a shared counter.
pub struct Census<T> {
    inner: T,
    transact_items: Arc<AtomicU64>,
}

impl<T: Table> Census<T> {
    /// Wraps `inner`; `transact_items` receives the counts (keep a clone to read it).
    pub fn new(inner: T, transact_items: Arc<AtomicU64>) -> Self {
        Self { inner, transact_items }
    }
}

#[async_trait]
impl<T: Table> Table for Census<T> {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.inner.get(key).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        self.inner.get_many(keys).await
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.inner.put(item, condition).await
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.inner.update(key, update, condition).await
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.inner.delete(key, condition).await
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        self.inner.query(query).await
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.transact_items.fetch_add(writes.len() as u64, Relaxed);
        self.inner.transact(writes).await
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.inner.ping().await
    }
}
