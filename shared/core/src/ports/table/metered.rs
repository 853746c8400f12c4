//! A table wrapper that counts the calls made through it, per operation, and the round trips
//! they took: the tests prove the data model's cost and latency claims with it, and benchmarks
//! report them.

use std::{
    future::Future,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
};

use async_trait::async_trait;

use super::{Condition, Item, Key, Query, QueryPage, Scan, Table, TableError, Update, Write};

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
    /// Scan (maintenance only: no request of the API scans).
    pub scan: u64,
    /// TransactWriteItems.
    pub transact: u64,
    /// Items written by those transactions (DynamoDB charges each item; not a call).
    pub transact_items: u64,
    /// Round trips waited for: the longest chain of calls each begun after the one before it
    /// had finished. Calls begun while none of the others had finished overlap them and share
    /// their round trip.
    pub round_trips: u64,
    /// Items the reads returned (GetItem: 0 or 1; BatchGetItem and Query: theirs), which is
    /// what their read capacity grows with.
    pub items_read: u64,
}

impl CallCounts {
    /// Every call.
    pub fn total(&self) -> u64 {
        self.reads() + self.put + self.update + self.delete + self.transact
    }

    /// Read calls (GetItem, BatchGetItem, Query, Scan).
    pub fn reads(&self) -> u64 {
        self.get + self.get_many + self.query + self.scan
    }
}

#[derive(Default)]
struct Counters([AtomicU64; 10]);

/// Counts the calls to an inner table.
///
/// Every call yields to the runtime once before it reaches the inner table, as a network call
/// would, so calls that a request makes concurrently overlap on an in-process table too.
pub struct Metered {
    inner: Arc<dyn Table>,
    counters: Counters,
    chains: Chains,
}

/// The round trips of the calls: a call's place in its chain is one more than the furthest
/// place among the calls that had finished when it began (each of them may have fed it).
#[derive(Default)]
struct Chains {
    finished: AtomicU64,
    longest: AtomicU64,
}

/// A call in flight; it ends its chain link when dropped, also when cancelled.
struct Link<'a> {
    chains: &'a Chains,
    place: u64,
}

impl Drop for Link<'_> {
    fn drop(&mut self) {
        self.chains.finished.fetch_max(self.place, Ordering::Relaxed);
    }
}

impl Metered {
    /// Wraps a table.
    pub fn new(inner: impl Table) -> Self {
        Self { inner: Arc::new(inner), counters: Counters::default(), chains: Chains::default() }
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
            scan: c(9),
            transact: c(6),
            transact_items: c(7),
            round_trips: self.chains.longest.load(Ordering::Relaxed),
            items_read: c(8),
        }
    }

    /// Starts counting from zero.
    pub fn reset(&self) {
        self.counters.0.iter().for_each(|c| c.store(0, Ordering::Relaxed));
        self.chains.finished.store(0, Ordering::Relaxed);
        self.chains.longest.store(0, Ordering::Relaxed);
    }

    /// The wrapped table.
    pub fn inner(&self) -> &dyn Table {
        self.inner.as_ref()
    }

    /// Counts `items` read.
    fn read(&self, items: usize) {
        self.counters.0[8].fetch_add(items as u64, Ordering::Relaxed);
    }

    /// Counts a call of operation `index`, then runs it as a link of its chain.
    async fn call<T>(&self, index: usize, call: impl Future<Output = T>) -> T {
        self.counters.0[index].fetch_add(1, Ordering::Relaxed);
        let place = self.chains.finished.load(Ordering::Relaxed) + 1;
        self.chains.longest.fetch_max(place, Ordering::Relaxed);
        let _link = Link { chains: &self.chains, place };
        tokio::task::yield_now().await;
        call.await
    }
}

#[async_trait]
impl Table for Metered {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        let item = self.call(0, self.inner.get(key)).await?;
        self.read(usize::from(item.is_some()));
        Ok(item)
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        let items = self.call(1, self.inner.get_many(keys)).await?;
        self.read(items.len());
        Ok(items)
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.call(2, self.inner.put(item, condition)).await
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.call(3, self.inner.update(key, update, condition)).await
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.call(4, self.inner.delete(key, condition)).await
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        let page = self.call(5, self.inner.query(query)).await?;
        self.read(page.items.len());
        Ok(page)
    }

    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        let page = self.call(9, self.inner.scan(scan)).await?;
        self.read(page.items.len());
        Ok(page)
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.counters.0[7].fetch_add(writes.len() as u64, Ordering::Relaxed);
        self.call(6, self.inner.transact(writes)).await
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.inner.ping().await
    }

    fn change_stamp(&self) -> Option<u64> {
        self.inner.change_stamp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::table::embedded::SqliteTable;

    fn metered() -> Metered {
        Metered::new(SqliteTable::in_memory().expect("in-memory table"))
    }

    fn key(n: u32) -> Key {
        Key::new(format!("T#{n}"), "ITEM")
    }

    #[tokio::test]
    async fn calls_made_one_after_another_each_take_a_round_trip() {
        let table = metered();
        for n in 0..3 {
            table.get(&key(n)).await.unwrap();
        }
        assert_eq!(table.counts().get, 3);
        assert_eq!(table.counts().round_trips, 3);
    }

    #[tokio::test]
    async fn calls_made_together_share_one_round_trip() {
        let table = metered();
        let keys = [key(1), key(2), key(3)];
        let (a, b, c) = tokio::join!(table.get(&keys[0]), table.get(&keys[1]), table.get(&keys[2]));
        assert!(a.is_ok() && b.is_ok() && c.is_ok());
        assert_eq!(table.counts().get, 3);
        assert_eq!(table.counts().round_trips, 1);
    }

    #[tokio::test]
    async fn the_longest_chain_of_overlapping_calls_counts() {
        let table = metered();
        let chain = async {
            table.get(&key(1)).await.unwrap();
            table.get(&key(2)).await.unwrap();
        };
        let other = key(3);
        tokio::join!(chain, async { table.get(&other).await.unwrap() });
        assert_eq!(table.counts().round_trips, 2);
    }

    #[tokio::test]
    async fn reads_count_the_items_they_return() {
        let table = metered();
        for n in 1..=3 {
            let key = key(n);
            let item = [(super::super::PK, key.pk), (super::super::SK, key.sk)];
            let item = item.map(|(name, value)| (name.to_string(), super::super::s(value)));
            table.put(Item::from(std::collections::HashMap::from(item)), None).await.unwrap();
        }
        table.reset();
        table.get(&key(1)).await.unwrap();
        table.get(&key(9)).await.unwrap();
        table.get_many(&[key(2), key(3), key(9)]).await.unwrap();
        table.query(Query::partition(crate::ports::table::Index::Primary, "T#3")).await.unwrap();
        assert_eq!(table.counts().items_read, 1 + 2 + 1);
    }

    #[tokio::test]
    async fn a_reset_starts_the_chains_anew() {
        let table = metered();
        table.get(&key(1)).await.unwrap();
        table.get(&key(2)).await.unwrap();
        table.reset();
        table.get(&key(3)).await.unwrap();
        assert_eq!(table.counts().round_trips, 1);
        assert_eq!(table.counts().total(), 1);
    }
}
