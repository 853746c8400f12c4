//! A table wrapper that times every call as `blog.table.calls` (tag `operation`) and counts the
//! calls in flight (the `jdbc.connections.active` gauge of this connection-pool-free service).

use std::{sync::Arc, time::Instant};

use async_trait::async_trait;

use crate::ports::table::{
    Condition, Item, Key, Query, QueryPage, Scan, Table, TableError, Update, Write,
};

use super::Telemetry;

/// Times the calls to an inner table.
pub struct Instrumented {
    inner: Arc<dyn Table>,
    telemetry: Arc<Telemetry>,
}

impl Instrumented {
    /// Wraps a table.
    pub fn new(inner: Arc<dyn Table>, telemetry: Arc<Telemetry>) -> Self {
        Self { inner, telemetry }
    }

    async fn timed<T>(
        &self,
        operation: &str,
        call: impl std::future::Future<Output = Result<T, TableError>>,
    ) -> Result<T, TableError> {
        let registry = &self.telemetry.registry;
        let started = Instant::now();
        let result = {
            let _in_flight = registry.table_call();
            call.await
        };
        let outcome = match &result {
            Ok(_) => "SUCCESS",
            Err(TableError::ConditionFailed | TableError::TransactionCancelled { .. }) => {
                "CONDITION_FAILED"
            }
            Err(_) => "ERROR",
        };
        registry.time(
            "blog.table.calls",
            &[("operation", operation), ("outcome", outcome)],
            started.elapsed(),
        );
        result
    }
}

#[async_trait]
impl Table for Instrumented {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.timed("GetItem", self.inner.get(key)).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        self.timed("BatchGetItem", self.inner.get_many(keys)).await
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.timed("PutItem", self.inner.put(item, condition)).await
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.timed("UpdateItem", self.inner.update(key, update, condition)).await
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.timed("DeleteItem", self.inner.delete(key, condition)).await
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        self.timed("Query", self.inner.query(query)).await
    }

    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        self.timed("Scan", self.inner.scan(scan)).await
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.timed("TransactWriteItems", self.inner.transact(writes)).await
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.inner.ping().await
    }

    fn change_stamp(&self) -> Option<u64> {
        self.inner.change_stamp()
    }
}
