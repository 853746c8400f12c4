//! [`Table`] on Amazon DynamoDB (or DynamoDB Local / LocalStack), with the port's semantics:
//! expired items are filtered from reads and count as absent for conditions; failed conditions
//! map to [`TableError::ConditionFailed`] / [`TableError::TransactionCancelled`], requests that
//! DynamoDB refuses as malformed (`ValidationException`) to [`TableError::Invalid`], and every
//! other SDK error to [`TableError::Backend`].

#[path = "dynamodb_expr.rs"]
mod expr;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::error::{BuildError, DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    self as ddb, AttributeDefinition, AttributeValue as Av, BillingMode, ConsumedCapacity,
    GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType, KeysAndAttributes, Projection,
    ProjectionType, ReturnConsumedCapacity, ReturnValue, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification, TransactWriteItem,
};
use aws_sdk_dynamodb::Client;
use expr::Expr;

use super::{
    is_expired, now_epoch_seconds, Condition, Index, Item, Key, Query, QueryPage, Table,
    TableError, Update, Write, PK, SK, TTL,
};

/// Most keys of one batch read and most writes of one transaction.
const MAX_ITEMS: usize = 100;
/// Attempts of a transaction cancelled only by conflicting concurrent transactions, and of a
/// batch read left with unprocessed keys, before giving up.
const MAX_ATTEMPTS: u32 = 8;
const TOTAL: ReturnConsumedCapacity = ReturnConsumedCapacity::Total;

/// Sends an [`Expr`]'s attribute names and values with a request or transaction item.
macro_rules! with_parts {
    ($builder:expr, $expr:expr) => {{
        let (names, values) = $expr.into_parts();
        ($builder)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
    }};
}

/// Calls and capacity consumed through one [`DynamoTable`] since its creation or last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TableUsage {
    /// Requests sent, including retries and failed ones.
    pub calls: u64,
    /// Read capacity units reported by DynamoDB.
    pub read_units: f64,
    /// Write capacity units reported by DynamoDB.
    pub write_units: f64,
}

/// [`TableUsage`] as atomics (the units as `f64` bits).
#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    read_units: AtomicU64,
    write_units: AtomicU64,
}

fn add_units(counter: &AtomicU64, units: f64) {
    let add = |bits: u64| Some((f64::from_bits(bits) + units).to_bits());
    let _always_some = counter.fetch_update(Relaxed, Relaxed, add);
}

/// The DynamoDB adapter of the [`Table`] port. Cheap to clone; clones share usage counters.
#[derive(Clone)]
pub struct DynamoTable {
    client: Client,
    table: String,
    usage: Arc<Counters>,
}

impl DynamoTable {
    /// An adapter for the table `table_name` through `client`.
    pub fn new(client: Client, table_name: impl Into<String>) -> Self {
        let table = table_name.into();
        Self {
            client,
            table,
            usage: Arc::default(),
        }
    }

    /// An adapter built from the shared SDK configuration; `endpoint` overrides the endpoint of
    /// DynamoDB only (`BLOG_DYNAMODB_ENDPOINT`; `AWS_ENDPOINT_URL` is already part of `sdk`).
    pub fn from_config(
        sdk: &SdkConfig,
        table_name: impl Into<String>,
        endpoint: Option<&str>,
    ) -> Self {
        let mut config = aws_sdk_dynamodb::config::Builder::from(sdk);
        config.set_endpoint_url(endpoint.map(str::to_owned));
        Self::new(Client::from_conf(config.build()), table_name)
    }

    /// An adapter on the emulator at `endpoint` with static test credentials (region
    /// us-east-1), its table created when missing.
    pub async fn connect_for_tests(
        endpoint: &str,
        table_name: &str,
    ) -> anyhow::Result<DynamoTable> {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("test", "test", None, None, "blog-tests"))
            .endpoint_url(endpoint);
        let table = Self::new(Client::from_conf(config.build()), table_name);
        table.create_table_if_missing().await?;
        Ok(table)
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// Calls and capacity units consumed so far.
    pub fn usage(&self) -> TableUsage {
        let units = |counter: &AtomicU64| f64::from_bits(counter.load(Relaxed));
        TableUsage {
            calls: self.usage.calls.load(Relaxed),
            read_units: units(&self.usage.read_units),
            write_units: units(&self.usage.write_units),
        }
    }

    /// Sets the usage counters back to zero.
    pub fn reset_usage(&self) {
        self.usage.calls.store(0, Relaxed);
        self.usage.read_units.store(0f64.to_bits(), Relaxed);
        self.usage.write_units.store(0f64.to_bits(), Relaxed);
    }

    /// Creates the table when it does not exist (string keys `pk`/`sk`; indexes `gsi1` and
    /// `gsi2` on `gsiNpk`/`gsiNsk` projecting everything; on-demand billing), waits until it
    /// and its indexes are active, and enables TTL on `expiresAt`.
    pub async fn create_table_if_missing(&self) -> anyhow::Result<()> {
        match self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
        {
            Ok(_) => {}
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_resource_not_found_exception()) =>
            {
                self.create_table().await?
            }
            Err(e) => bail!("DescribeTable {}: {}", self.table, DisplayErrorContext(e)),
        }
        self.wait_until_active().await?;
        let ttl = TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(TTL)
            .build()?;
        let request = self.client.update_time_to_live().table_name(&self.table);
        if let Err(e) = request.time_to_live_specification(ttl).send().await {
            // Already enabled, or not supported by an emulator.
            tracing::debug!(table = %self.table, error = %DisplayErrorContext(e), "TTL not enabled");
        }
        Ok(())
    }

    async fn create_table(&self) -> anyhow::Result<()> {
        let key = |pk: &str, sk: &str| -> Result<Vec<KeySchemaElement>, BuildError> {
            let element = |name: &str, kind| {
                KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(kind)
                    .build()
            };
            Ok(vec![
                element(pk, KeyType::Hash)?,
                element(sk, KeyType::Range)?,
            ])
        };
        let (mut definitions, mut indexes) = (Vec::new(), Vec::new());
        for index in Index::ALL {
            let (pk, sk) = index.key_attributes();
            for name in [pk, sk] {
                let definition = AttributeDefinition::builder().attribute_name(name);
                definitions.push(definition.attribute_type(ScalarAttributeType::S).build()?);
            }
            if let Some(name) = index.name() {
                let all = Projection::builder()
                    .projection_type(ProjectionType::All)
                    .build();
                let gsi = GlobalSecondaryIndex::builder()
                    .index_name(name)
                    .projection(all);
                indexes.push(gsi.set_key_schema(Some(key(pk, sk)?)).build()?);
            }
        }
        let created = (self.client.create_table().table_name(&self.table))
            .set_attribute_definitions(Some(definitions))
            .set_key_schema(Some(key(PK, SK)?))
            .set_global_secondary_indexes(Some(indexes))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await;
        match created {
            Err(e)
                if !e
                    .as_service_error()
                    .is_some_and(|e| e.is_resource_in_use_exception()) =>
            {
                bail!("CreateTable {}: {}", self.table, DisplayErrorContext(e))
            }
            _ => Ok(()),
        }
    }

    async fn wait_until_active(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let out = self
                .client
                .describe_table()
                .table_name(&self.table)
                .send()
                .await;
            let out = out
                .map_err(|e| anyhow!("DescribeTable {}: {}", self.table, DisplayErrorContext(e)))?;
            let table = out.table.context("DescribeTable returned no table")?;
            let active = Some(&IndexStatus::Active);
            let indexes = table
                .global_secondary_indexes()
                .iter()
                .all(|i| i.index_status() == active);
            if table.table_status() == Some(&TableStatus::Active) && indexes {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("table {} is not active after 120 s", self.table);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn called(&self) {
        self.usage.calls.fetch_add(1, Relaxed);
    }

    /// Counts reported capacity; a total without a read/write split counts as `write` says.
    fn consumed<'a>(&self, write: bool, capacity: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        for c in capacity {
            let (read, written) = match (c.read_capacity_units(), c.write_capacity_units()) {
                (None, None) if write => (0.0, c.capacity_units().unwrap_or_default()),
                (None, None) => (c.capacity_units().unwrap_or_default(), 0.0),
                (read, written) => (read.unwrap_or_default(), written.unwrap_or_default()),
            };
            add_units(&self.usage.read_units, read);
            add_units(&self.usage.write_units, written);
        }
    }

    fn transact_item(&self, write: &Write, now: i64) -> Result<TransactWriteItem, TableError> {
        let mut x = Expr::new(now);
        let item = TransactWriteItem::builder();
        let item = match write {
            Write::Put {
                item: put,
                condition,
            } => {
                let put = ddb::Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(put.clone().into()));
                let put =
                    put.set_condition_expression(condition.as_ref().and_then(|c| x.condition(c)));
                item.put(with_parts!(put, x).build().map_err(build_error)?)
            }
            Write::Update {
                key,
                update,
                condition,
            } => {
                let Some(expression) = x.update(update)? else {
                    return Err(TableError::Invalid(format!(
                        "an empty update of {key} in a transaction"
                    )));
                };
                let update = ddb::Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)));
                let update = update.update_expression(expression);
                let update = update
                    .set_condition_expression(condition.as_ref().and_then(|c| x.condition(c)));
                item.update(with_parts!(update, x).build().map_err(build_error)?)
            }
            Write::Delete { key, condition } => {
                let delete = ddb::Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)));
                let delete = delete
                    .set_condition_expression(condition.as_ref().and_then(|c| x.condition(c)));
                item.delete(with_parts!(delete, x).build().map_err(build_error)?)
            }
            Write::Check { key, condition } => {
                // An empty `All` always holds but a check needs an expression: a tautology.
                let condition = x.condition(condition).unwrap_or_else(|| {
                    let pk = x.name(PK);
                    format!("attribute_exists({pk}) OR attribute_not_exists({pk})")
                });
                let check = ddb::ConditionCheck::builder().table_name(&self.table);
                let check = check
                    .set_key(Some(key_attrs(key)))
                    .condition_expression(condition);
                item.condition_check(with_parts!(check, x).build().map_err(build_error)?)
            }
        };
        Ok(item.build())
    }
}

fn key_attrs(key: &Key) -> HashMap<String, Av> {
    HashMap::from([
        (PK.to_owned(), Av::S(key.pk.clone())),
        (SK.to_owned(), Av::S(key.sk.clone())),
    ])
}

/// At most [`MAX_ITEMS`] keys, none twice (DynamoDB refuses duplicates).
fn distinct_keys(keys: impl IntoIterator<Item = Key>, what: &str) -> Result<(), TableError> {
    let mut seen = HashSet::new();
    for key in keys {
        if seen.len() == MAX_ITEMS {
            return Err(TableError::Invalid(format!(
                "a {what} takes at most {MAX_ITEMS} keys"
            )));
        }
        if !seen.insert(key.clone()) {
            return Err(TableError::Invalid(format!("a {what} names {key} twice")));
        }
    }
    Ok(())
}

fn write_key(write: &Write) -> Result<Key, TableError> {
    match write {
        Write::Put { item, .. } => Key::of(item)
            .ok_or_else(|| TableError::Invalid("a put item needs string pk and sk".into())),
        Write::Update { key, .. } | Write::Delete { key, .. } | Write::Check { key, .. } => {
            Ok(key.clone())
        }
    }
}

/// Maps an SDK error: a `ValidationException` is a malformed request, anything else a failure of
/// the store (logged with its sources).
fn failure<E, R>(operation: &str, error: SdkError<E, R>) -> TableError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    if error.code() == Some("ValidationException") {
        let message = error.message().unwrap_or("ValidationException");
        return TableError::Invalid(format!("{operation}: {message}"));
    }
    TableError::Backend(anyhow!("{operation}: {}", DisplayErrorContext(error)))
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
        self.called();
        let request = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)));
        let out = request
            .consistent_read(true)
            .return_consumed_capacity(TOTAL)
            .send()
            .await;
        let out = out.map_err(|e| failure("GetItem", e))?;
        self.consumed(false, out.consumed_capacity());
        let now = now_epoch_seconds();
        Ok(out
            .item
            .map(Item::from)
            .filter(|item| !is_expired(item, now)))
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        distinct_keys(keys.iter().cloned(), "get_many")?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let request =
            KeysAndAttributes::builder().set_keys(Some(keys.iter().map(key_attrs).collect()));
        let mut pending = Some(request.consistent_read(true).build().map_err(build_error)?);
        let mut found: HashMap<Key, Item> = HashMap::new();
        for attempt in 0..MAX_ATTEMPTS {
            let Some(request) = pending.take() else { break };
            if attempt > 0 {
                backoff(attempt).await;
            }
            self.called();
            let batch = self
                .client
                .batch_get_item()
                .request_items(&self.table, request);
            let out = batch.return_consumed_capacity(TOTAL).send().await;
            let out = out.map_err(|e| failure("BatchGetItem", e))?;
            self.consumed(false, out.consumed_capacity());
            let items = out
                .responses
                .and_then(|mut r| r.remove(&self.table))
                .unwrap_or_default();
            for item in items.into_iter().map(Item::from) {
                found.extend(Key::of(&item).map(|key| (key, item)));
            }
            let unprocessed = out.unprocessed_keys.and_then(|mut u| u.remove(&self.table));
            pending = unprocessed.filter(|u| !u.keys().is_empty());
        }
        if pending.is_some() {
            let error =
                anyhow!("BatchGetItem: keys still unprocessed after {MAX_ATTEMPTS} attempts");
            return Err(TableError::Backend(error));
        }
        let now = now_epoch_seconds();
        let items = keys.iter().filter_map(|key| found.remove(key));
        Ok(items.filter(|item| !is_expired(item, now)).collect())
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        if Key::of(&item).is_none() {
            return Err(TableError::Invalid(
                "a put item needs string pk and sk".into(),
            ));
        }
        let mut x = Expr::new(now_epoch_seconds());
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let request = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item.into()));
        let request = with_parts!(request.set_condition_expression(condition), x);
        self.called();
        match request.return_consumed_capacity(TOTAL).send().await {
            Ok(out) => {
                self.consumed(true, out.consumed_capacity());
                Ok(())
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(TableError::ConditionFailed)
            }
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
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)));
        let request = request
            .set_update_expression(expression)
            .set_condition_expression(condition);
        let request = with_parts!(request, x).return_values(ReturnValue::AllNew);
        self.called();
        match request.return_consumed_capacity(TOTAL).send().await {
            Ok(out) => {
                self.consumed(true, out.consumed_capacity());
                Ok(out.attributes.unwrap_or_else(|| key_attrs(key)).into())
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(TableError::ConditionFailed)
            }
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
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)));
        let request = with_parts!(request.set_condition_expression(condition), x);
        self.called();
        let request = request
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(TOTAL);
        match request.send().await {
            Ok(out) => {
                self.consumed(true, out.consumed_capacity());
                Ok(out
                    .attributes
                    .map(Item::from)
                    .filter(|old| !is_expired(old, now)))
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(TableError::ConditionFailed)
            }
            Err(e) => Err(failure("DeleteItem", e)),
        }
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        if query.limit == Some(0) {
            return Err(TableError::Invalid(
                "a query limit must be at least 1".into(),
            ));
        }
        let mut x = Expr::new(now_epoch_seconds());
        let key_condition = x.key_condition(query.index, &query.partition, query.sort.as_ref());
        let request = (self.client.query().table_name(&self.table))
            .set_index_name(query.index.name().map(str::to_owned))
            .consistent_read(query.index == Index::Primary)
            .key_condition_expression(key_condition)
            .filter_expression(x.unexpired())
            .scan_index_forward(!query.descending)
            .set_limit(
                query
                    .limit
                    .map(|limit| i32::try_from(limit).unwrap_or(i32::MAX)),
            )
            .set_exclusive_start_key(query.start_after.map(Into::into));
        self.called();
        let out = with_parts!(request, x)
            .return_consumed_capacity(TOTAL)
            .send()
            .await;
        let out = out.map_err(|e| failure("Query", e))?;
        self.consumed(false, out.consumed_capacity());
        let items = out
            .items
            .unwrap_or_default()
            .into_iter()
            .map(Item::from)
            .collect();
        Ok(QueryPage {
            items,
            next: out.last_evaluated_key.map(Item::from),
        })
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        if writes.is_empty() {
            return Err(TableError::Invalid(format!(
                "a transaction takes 1 to {MAX_ITEMS} writes"
            )));
        }
        let keys = writes
            .iter()
            .map(write_key)
            .collect::<Result<Vec<_>, _>>()?;
        distinct_keys(keys, "transaction")?;
        for attempt in 0..MAX_ATTEMPTS {
            let now = now_epoch_seconds();
            let items = writes.iter().map(|w| self.transact_item(w, now));
            let request = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.collect::<Result<_, _>>()?));
            self.called();
            let error = match request.return_consumed_capacity(TOTAL).send().await {
                Ok(out) => {
                    self.consumed(true, out.consumed_capacity());
                    return Ok(());
                }
                Err(error) => error,
            };
            let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
                error.as_service_error()
            else {
                return Err(failure("TransactWriteItems", error));
            };
            let (mut failed, mut retry) = (Vec::new(), false);
            for (index, reason) in cancelled.cancellation_reasons().iter().enumerate() {
                match reason.code() {
                    None | Some("None") => {}
                    Some("ConditionalCheckFailed") => failed.push(index),
                    Some(
                        "TransactionConflict" | "ThrottlingError" | "ProvisionedThroughputExceeded",
                    ) => retry = true,
                    Some("ValidationError") => {
                        let message = reason.message().unwrap_or("ValidationError");
                        return Err(TableError::Invalid(format!(
                            "TransactWriteItems, write {index}: {message}"
                        )));
                    }
                    Some(_) => return Err(failure("TransactWriteItems", error)),
                }
            }
            if !failed.is_empty() {
                return Err(TableError::TransactionCancelled { failed });
            }
            if !retry {
                return Err(failure("TransactWriteItems", error));
            }
            tracing::debug!(attempt, "transaction cancelled by a conflict; retrying");
            backoff(attempt).await;
        }
        let error = anyhow!("TransactWriteItems: still conflicting after {MAX_ATTEMPTS} attempts");
        Err(TableError::Backend(error))
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.called();
        let out = self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await;
        out.map(|_| ()).map_err(|e| failure("DescribeTable", e))
    }
}
