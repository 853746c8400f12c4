//! [`Table`] on Amazon DynamoDB (or DynamoDB Local / LocalStack), with the port's semantics:
//! expired items are filtered from reads and count as absent for conditions; failed conditions
//! map to [`TableError::ConditionFailed`] / [`TableError::TransactionCancelled`], requests that
//! DynamoDB refuses as malformed (`ValidationException`) to [`TableError::Invalid`], and every
//! other SDK error to [`TableError::Backend`]. Transactions are in `dynamodb_transact.rs`.
//!
//! Every request asks for `ReturnConsumedCapacity::Total`; with the feature `test-support`,
//! `DynamoTable::usage` adds it up for the capacity bench (`dynamodb_usage.rs`).

#[path = "dynamodb_expr.rs"]
mod expr;
#[path = "dynamodb_setup.rs"]
mod setup;
#[path = "dynamodb_usage.rs"]
mod usage;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use crate::ports::aws::{LazyClient, SdkConfig};
use anyhow::anyhow;
use async_trait::async_trait;
use aws_sdk_dynamodb::error::{BuildError, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, KeysAndAttributes, ReturnConsumedCapacity, ReturnValue,
};
use aws_sdk_dynamodb::Client;
use expr::Expr;
#[cfg(feature = "test-support")]
pub use usage::TableUsage;
use usage::Usage;

use super::{
    is_expired, now_epoch_seconds, Condition, Index, Item, Key, Query, QueryPage, Scan, Table,
    TableError, Update, Write, PK, SK,
};

/// Most keys of one batch read and most writes of one transaction.
const MAX_ITEMS: usize = 100;
/// Attempts of a transaction cancelled only by conflicting concurrent transactions, and of a
/// batch read left with unprocessed keys, before giving up.
const MAX_ATTEMPTS: u32 = 8;
const TOTAL: ReturnConsumedCapacity = ReturnConsumedCapacity::Total;

/// Sends the attribute names and values of an [`Expr`] with a request or transaction item.
macro_rules! with_parts {
    ($builder:expr, $expr:expr) => {{
        let (names, values) = $expr.into_parts();
        ($builder).set_expression_attribute_names(names).set_expression_attribute_values(values)
    }};
}

// Transactions (TransactWriteItems, retried on conflicts), after the macro they use.
#[path = "dynamodb_transact.rs"]
mod transact;

/// The DynamoDB adapter of the [`Table`] port. Cheap to clone; clones share usage counters.
#[derive(Clone)]
pub struct DynamoTable {
    client: LazyClient<Client>,
    table: String,
    usage: Usage,
}

impl DynamoTable {
    /// An adapter for the table `table_name` through `client`.
    pub fn new(client: Client, table_name: impl Into<String>) -> Self {
        Self::on(LazyClient::built(client), table_name)
    }

    fn on(client: LazyClient<Client>, table_name: impl Into<String>) -> Self {
        Self { client, table: table_name.into(), usage: Usage::new() }
    }

    /// An adapter built from the shared SDK configuration; `endpoint` overrides the endpoint of
    /// DynamoDB only (`BLOG_DYNAMODB_ENDPOINT`; `AWS_ENDPOINT_URL` is already part of `sdk`).
    /// The client is built at the first request: building it (the SDK's endpoint rules and
    /// partitions) was a third of a function's initialisation (docs/performance.md).
    pub fn from_config(
        sdk: &SdkConfig,
        table_name: impl Into<String>,
        endpoint: Option<&str>,
    ) -> Self {
        let mut config = aws_sdk_dynamodb::config::Builder::from(sdk);
        // Only an override replaces the endpoint the environment gave (`AWS_ENDPOINT_URL_*`).
        if let Some(endpoint) = endpoint {
            config.set_endpoint_url(Some(endpoint.to_owned()));
        }
        let config = config.build();
        Self::on(LazyClient::new(move || Client::from_conf(config.clone())), table_name)
    }

    /// The SDK client, built now if this is the first request.
    fn client(&self) -> &Client {
        self.client.get()
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        &self.table
    }
}

fn key_attrs(key: &Key) -> HashMap<String, Av> {
    HashMap::from([(PK.to_owned(), Av::S(key.pk.clone())), (SK.to_owned(), Av::S(key.sk.clone()))])
}

/// Refuses more than [`MAX_ITEMS`] keys or a key named twice (as DynamoDB does).
fn distinct_keys(keys: impl IntoIterator<Item = Key>, what: &str) -> Result<(), TableError> {
    let mut seen = HashSet::new();
    for key in keys {
        if seen.len() == MAX_ITEMS {
            return Err(invalid(format!("a {what} takes at most {MAX_ITEMS} keys")));
        }
        if !seen.insert(key.clone()) {
            return Err(invalid(format!("a {what} names {key} twice")));
        }
    }
    Ok(())
}

fn invalid(message: String) -> TableError {
    TableError::Invalid(message)
}

fn no_key() -> TableError {
    invalid("an item needs string pk and sk attributes".into())
}

/// Maps an SDK error: a `ValidationException` is a malformed request, anything else a failure of
/// the store, described with its chain of sources for the logs.
fn failure<E, R>(operation: &str, error: SdkError<E, R>) -> TableError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    if error.code() == Some("ValidationException") {
        let message = error.message().unwrap_or("ValidationException");
        return invalid(format!("{operation}: {message}"));
    }
    let mut description = format!("{operation}: {error}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !description.ends_with(&cause_text) {
            description = format!("{description}: {cause_text}");
        }
        source = cause.source();
    }
    TableError::Backend(anyhow!(description))
}

fn is_condition_failure<E, R>(error: &SdkError<E, R>) -> bool
where
    E: ProvideErrorMetadata,
{
    error.code() == Some("ConditionalCheckFailedException")
}

fn build_error(error: BuildError) -> TableError {
    TableError::Backend(error.into())
}

/// Sleeps a random time below an exponentially growing bound (25 ms, 50 ms, ... 1.6 s).
async fn backoff(attempt: u32) {
    let bound = 25u64 << attempt.min(6);
    tokio::time::sleep(Duration::from_millis(rand::random_range(1..=bound))).await;
}

#[async_trait]
impl Table for DynamoTable {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.usage.called();
        let out = self
            .client()
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .consistent_read(true)
            .return_consumed_capacity(TOTAL)
            .send()
            .await
            .map_err(|e| failure("GetItem", e))?;
        self.usage.consumed(false, out.consumed_capacity());
        let now = now_epoch_seconds();
        Ok(out.item.map(Item::from).filter(|item| !is_expired(item, now)))
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        distinct_keys(keys.iter().cloned(), "get_many")?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys.iter().map(key_attrs).collect()))
            .consistent_read(true)
            .build()
            .map_err(build_error)?;
        let mut pending = Some(request);
        let mut found = HashMap::new();
        for attempt in 0..MAX_ATTEMPTS {
            let Some(request) = pending.take() else { break };
            if attempt > 0 {
                backoff(attempt).await;
            }
            self.usage.called();
            let out = self
                .client()
                .batch_get_item()
                .request_items(&self.table, request)
                .return_consumed_capacity(TOTAL)
                .send()
                .await
                .map_err(|e| failure("BatchGetItem", e))?;
            self.usage.consumed(false, out.consumed_capacity());
            let items = out.responses.and_then(|mut r| r.remove(&self.table));
            for item in items.unwrap_or_default().into_iter().map(Item::from) {
                found.extend(Key::of(&item).map(|key| (key, item)));
            }
            let unprocessed = out.unprocessed_keys.and_then(|mut u| u.remove(&self.table));
            pending = unprocessed.filter(|u| !u.keys().is_empty());
        }
        if pending.is_some() {
            let error = anyhow!("BatchGetItem: keys unprocessed after {MAX_ATTEMPTS} attempts");
            return Err(TableError::Backend(error));
        }
        let now = now_epoch_seconds();
        let items = keys.iter().filter_map(|key| found.remove(key));
        Ok(items.filter(|item| !is_expired(item, now)).collect())
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        Key::of(&item).ok_or_else(no_key)?;
        let mut x = Expr::new(now_epoch_seconds());
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let request = self
            .client()
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item.into()))
            .set_condition_expression(condition)
            .return_consumed_capacity(TOTAL);
        self.usage.called();
        match with_parts!(request, x).send().await {
            Ok(out) => {
                self.usage.consumed(true, out.consumed_capacity());
                Ok(())
            }
            Err(e) if is_condition_failure(&e) => Err(TableError::ConditionFailed),
            Err(e) => Err(failure("PutItem", e)),
        }
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        let mut x = Expr::new(now_epoch_seconds());
        let expression = x.update(&update)?;
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let request = self
            .client()
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .set_update_expression(expression)
            .set_condition_expression(condition)
            .return_values(ReturnValue::AllNew)
            .return_consumed_capacity(TOTAL);
        self.usage.called();
        match with_parts!(request, x).send().await {
            Ok(out) => {
                self.usage.consumed(true, out.consumed_capacity());
                Ok(out.attributes.unwrap_or_else(|| key_attrs(key)).into())
            }
            Err(e) if is_condition_failure(&e) => Err(TableError::ConditionFailed),
            Err(e) => Err(failure("UpdateItem", e)),
        }
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        let now = now_epoch_seconds();
        let mut x = Expr::new(now);
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let request = self
            .client()
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .set_condition_expression(condition)
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(TOTAL);
        self.usage.called();
        match with_parts!(request, x).send().await {
            Ok(out) => {
                self.usage.consumed(true, out.consumed_capacity());
                Ok(out.attributes.map(Item::from).filter(|old| !is_expired(old, now)))
            }
            Err(e) if is_condition_failure(&e) => Err(TableError::ConditionFailed),
            Err(e) => Err(failure("DeleteItem", e)),
        }
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        if query.limit == Some(0) {
            return Err(invalid("a query limit must be at least 1".into()));
        }
        let mut x = Expr::new(now_epoch_seconds());
        let key_condition = x.key_condition(query.index, &query.partition, query.sort.as_ref());
        let request = self
            .client()
            .query()
            .table_name(&self.table)
            .set_index_name(query.index.name().map(str::to_owned))
            .consistent_read(query.index == Index::Primary)
            .key_condition_expression(key_condition)
            .filter_expression(x.unexpired())
            .scan_index_forward(!query.descending)
            .set_limit(query.limit.map(|limit| i32::try_from(limit).unwrap_or(i32::MAX)))
            .set_exclusive_start_key(query.start_after.map(Into::into))
            .return_consumed_capacity(TOTAL);
        self.usage.called();
        let out = with_parts!(request, x).send().await.map_err(|e| failure("Query", e))?;
        self.usage.consumed(false, out.consumed_capacity());
        let items = out.items.unwrap_or_default().into_iter().map(Item::from).collect();
        Ok(QueryPage { items, next: out.last_evaluated_key.map(Item::from) })
    }

    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        if scan.limit == Some(0) {
            return Err(invalid("a scan limit must be at least 1".into()));
        }
        let mut x = Expr::new(now_epoch_seconds());
        let request = self
            .client()
            .scan()
            .table_name(&self.table)
            .set_index_name(scan.index.name().map(str::to_owned))
            .consistent_read(scan.index == Index::Primary)
            .filter_expression(x.unexpired())
            .set_limit(scan.limit.map(|limit| i32::try_from(limit).unwrap_or(i32::MAX)))
            .set_exclusive_start_key(scan.start_after.map(Into::into))
            .return_consumed_capacity(TOTAL);
        self.usage.called();
        let out = with_parts!(request, x).send().await.map_err(|e| failure("Scan", e))?;
        self.usage.consumed(false, out.consumed_capacity());
        let items = out.items.unwrap_or_default().into_iter().map(Item::from).collect();
        Ok(QueryPage { items, next: out.last_evaluated_key.map(Item::from) })
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.transact_writes(writes).await
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.usage.called();
        let described = self.client().describe_table().table_name(&self.table).send().await;
        described.map(|_| ()).map_err(|e| failure("DescribeTable", e))
    }
}
