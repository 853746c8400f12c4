//! [`Table`] on Amazon DynamoDB (or DynamoDB Local / LocalStack), with the port's semantics:
//! expired items are filtered from reads and treated as absent by conditions, conditional
//! failures map to [`TableError::ConditionFailed`] / [`TableError::TransactionCancelled`], and
//! every other SDK error to [`TableError::Backend`].

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
use aws_sdk_dynamodb::error::{BuildError, DisplayErrorContext};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    self as ddb, AttributeDefinition, AttributeValue as Av, BillingMode, ConsumedCapacity,
    GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType, KeysAndAttributes, Projection,
    ProjectionType, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
    ScalarAttributeType, TableStatus, TimeToLiveSpecification, TransactWriteItem,
};
use aws_sdk_dynamodb::Client;
use expr::{holds_when_absent, Expr};

use super::{
    is_expired, now_epoch_seconds, Condition, Index, Item, Key, Query, QueryPage, Table,
    TableError, Update, Write, PK, SK, TTL,
};

type Attrs = HashMap<String, Av>;

/// Attempts of a transaction cancelled only by conflicts with concurrent transactions (and of a
/// batch read with unprocessed keys) before giving up.
const MAX_ATTEMPTS: u32 = 8;

/// Calls and capacity consumed through one [`DynamoTable`] since its creation or last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TableUsage {
    /// Requests sent (including retries and failed ones).
    pub calls: u64,
    /// Read capacity units reported by DynamoDB.
    pub read_units: f64,
    /// Write capacity units reported by DynamoDB.
    pub write_units: f64,
}

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    read_units: AtomicU64,
    write_units: AtomicU64,
}

fn add_units(counter: &AtomicU64, units: f64) {
    let add = |bits: u64| Some((f64::from_bits(bits) + units).to_bits());
    let _always_ok = counter.fetch_update(Relaxed, Relaxed, add);
}

/// The DynamoDB adapter of the [`Table`] port (single-table design, see the module docs of
/// [`super`]). Cheap to clone; clones share their usage counters.
#[derive(Clone)]
pub struct DynamoTable {
    client: Client,
    table: String,
    usage: Arc<Counters>,
}

impl DynamoTable {
    /// An adapter for `table_name` through `client`.
    pub fn new(client: Client, table_name: impl Into<String>) -> Self {
        Self {
            client,
            table: table_name.into(),
            usage: Arc::default(),
        }
    }

    /// An adapter built from the shared SDK configuration; `endpoint` overrides the DynamoDB
    /// endpoint only (`BLOG_DYNAMODB_ENDPOINT`; `AWS_ENDPOINT_URL` is already in `sdk`).
    pub fn from_config(
        sdk: &SdkConfig,
        table_name: impl Into<String>,
        endpoint: Option<&str>,
    ) -> Self {
        let mut config = aws_sdk_dynamodb::config::Builder::from(sdk);
        if let Some(endpoint) = endpoint {
            config = config.endpoint_url(endpoint);
        }
        Self::new(Client::from_conf(config.build()), table_name)
    }

    /// An adapter on an emulator at `endpoint` with static test credentials (region us-east-1),
    /// its table created when missing.
    pub async fn connect_for_tests(
        endpoint: &str,
        table_name: &str,
    ) -> anyhow::Result<DynamoTable> {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("test", "test", None, None, "blog-tests"))
            .endpoint_url(endpoint)
            .build();
        let table = Self::new(Client::from_conf(config), table_name);
        table.create_table_if_missing().await?;
        Ok(table)
    }

    /// The table name.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// Calls and capacity units consumed so far.
    pub fn usage(&self) -> TableUsage {
        TableUsage {
            calls: self.usage.calls.load(Relaxed),
            read_units: f64::from_bits(self.usage.read_units.load(Relaxed)),
            write_units: f64::from_bits(self.usage.write_units.load(Relaxed)),
        }
    }

    /// Sets the usage counters back to zero.
    pub fn reset_usage(&self) {
        self.usage.calls.store(0, Relaxed);
        self.usage.read_units.store(0f64.to_bits(), Relaxed);
        self.usage.write_units.store(0f64.to_bits(), Relaxed);
    }

    /// Creates the table (keys `pk`/`sk`, indexes `gsi1`/`gsi2` projecting everything, on-demand
    /// billing) when it does not exist, enables TTL on `expiresAt`, and waits until it is active.
    pub async fn create_table_if_missing(&self) -> anyhow::Result<()> {
        let describe = self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await;
        match describe {
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
        let enabled = self.client.update_time_to_live().table_name(&self.table);
        if let Err(e) = enabled.time_to_live_specification(ttl).send().await {
            tracing::debug!(table = %self.table, error = %DisplayErrorContext(e), "TTL not enabled");
        }
        Ok(())
    }

    async fn create_table(&self) -> anyhow::Result<()> {
        let attribute = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
        };
        let key = |pk: &str, sk: &str| -> Result<Vec<KeySchemaElement>, BuildError> {
            let element = |name: &str, key_type| {
                KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(key_type)
                    .build()
            };
            Ok(vec![
                element(pk, KeyType::Hash)?,
                element(sk, KeyType::Range)?,
            ])
        };
        let mut definitions = Vec::new();
        let mut indexes = Vec::new();
        for index in Index::ALL {
            let (pk, sk) = index.key_attributes();
            definitions.extend([attribute(pk)?, attribute(sk)?]);
            if let Some(name) = index.name() {
                let projection = Projection::builder()
                    .projection_type(ProjectionType::All)
                    .build();
                let gsi = GlobalSecondaryIndex::builder()
                    .index_name(name)
                    .set_key_schema(Some(key(pk, sk)?));
                indexes.push(gsi.projection(projection).build()?);
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
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_resource_in_use_exception()) =>
            {
                Ok(())
            }
            Err(e) => bail!("CreateTable {}: {}", self.table, DisplayErrorContext(e)),
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
            let table = out.table.context("DescribeTable without a table")?;
            let indexes_active = table
                .global_secondary_indexes()
                .iter()
                .all(|i| i.index_status() == Some(&IndexStatus::Active));
            if table.table_status() == Some(&TableStatus::Active) && indexes_active {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("table {} not active after 120 s", self.table);
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    fn called(&self) {
        self.usage.calls.fetch_add(1, Relaxed);
    }

    /// Adds reported capacity; a total without a read/write split counts as `write` or read.
    fn consumed<'a>(&self, write: bool, capacity: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        for c in capacity {
            match (c.read_capacity_units(), c.write_capacity_units()) {
                (None, None) => {
                    let counter = if write {
                        &self.usage.write_units
                    } else {
                        &self.usage.read_units
                    };
                    add_units(counter, c.capacity_units().unwrap_or_default());
                }
                (read, written) => {
                    add_units(&self.usage.read_units, read.unwrap_or_default());
                    add_units(&self.usage.write_units, written.unwrap_or_default());
                }
            }
        }
    }

    /// Deletes an item if it is (still) expired, so that an update can start from scratch.
    async fn purge_expired(&self, key: &Key, now: i64) -> Result<(), TableError> {
        let mut x = Expr::new(now);
        let condition = x.expired();
        let (names, values) = x.into_parts();
        self.called();
        let out = (self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key))))
        .condition_expression(condition)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await;
        match out {
            Ok(out) => {
                self.consumed(true, out.consumed_capacity());
                Ok(())
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(backend("DeleteItem", e)),
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
                let condition = condition.as_ref().and_then(|c| x.condition(c));
                let (names, values) = x.into_parts();
                let put = ddb::Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(put.clone().into()));
                let put = put
                    .set_condition_expression(condition)
                    .set_expression_attribute_names(names);
                item.put(
                    put.set_expression_attribute_values(values)
                        .build()
                        .map_err(build_error)?,
                )
            }
            Write::Update {
                key,
                update,
                condition,
            } => {
                let expression = x.update(update)?.ok_or_else(|| {
                    TableError::Invalid(format!(
                        "the update of {key} in a transaction changes nothing"
                    ))
                })?;
                let condition = guarded(&mut x, condition.as_ref());
                let (names, values) = x.into_parts();
                let update = ddb::Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)));
                let update = update
                    .update_expression(expression)
                    .condition_expression(condition);
                let update = update
                    .set_expression_attribute_names(names)
                    .set_expression_attribute_values(values);
                let update = update.return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
                item.update(update.build().map_err(build_error)?)
            }
            Write::Delete { key, condition } => {
                let condition = condition.as_ref().and_then(|c| x.condition(c));
                let (names, values) = x.into_parts();
                let delete = ddb::Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)));
                let delete = delete
                    .set_condition_expression(condition)
                    .set_expression_attribute_names(names);
                item.delete(
                    delete
                        .set_expression_attribute_values(values)
                        .build()
                        .map_err(build_error)?,
                )
            }
            Write::Check { key, condition } => {
                // An always-true condition (empty `All`) still needs an expression.
                let condition = x.condition(condition).unwrap_or_else(|| {
                    let pk = x.name(PK);
                    format!("attribute_exists({pk}) OR attribute_not_exists({pk})")
                });
                let (names, values) = x.into_parts();
                let check = ddb::ConditionCheck::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)));
                let check = check
                    .condition_expression(condition)
                    .set_expression_attribute_names(names);
                item.condition_check(
                    check
                        .set_expression_attribute_values(values)
                        .build()
                        .map_err(build_error)?,
                )
            }
        };
        Ok(item.build())
    }
}

/// The caller's condition, guarded so that an update never merges into an expired item.
fn guarded(x: &mut Expr, condition: Option<&Condition>) -> String {
    let guard = x.absent_or_unexpired();
    match condition.and_then(|c| x.condition(c)) {
        Some(condition) => format!("{guard} AND ({condition})"),
        None => guard,
    }
}

fn key_attrs(key: &Key) -> Attrs {
    HashMap::from([
        (PK.to_owned(), Av::S(key.pk.clone())),
        (SK.to_owned(), Av::S(key.sk.clone())),
    ])
}

fn write_key(write: &Write) -> Result<Key, TableError> {
    match write {
        Write::Put { item, .. } => {
            Key::of(item).ok_or_else(|| TableError::Invalid("put item without string pk/sk".into()))
        }
        Write::Update { key, .. } | Write::Delete { key, .. } | Write::Check { key, .. } => {
            Ok(key.clone())
        }
    }
}

fn backend(operation: &str, error: impl std::error::Error) -> TableError {
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
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        let out = out.map_err(|e| backend("GetItem", e))?;
        self.consumed(false, out.consumed_capacity());
        let item = out.item.map(Item::from);
        Ok(item.filter(|item| !is_expired(item, now_epoch_seconds())))
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        let mut unique = HashSet::new();
        let keys: Vec<&Key> = keys.iter().filter(|k| unique.insert(*k)).collect();
        let mut found: HashMap<Key, Item> = HashMap::new();
        for chunk in keys.chunks(100) {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(chunk.iter().map(|k| key_attrs(k)).collect()));
            let mut pending = Some(request.consistent_read(true).build().map_err(build_error)?);
            let mut attempt = 0;
            while let Some(request) = pending.take() {
                if attempt == MAX_ATTEMPTS {
                    return Err(TableError::Backend(anyhow!(
                        "BatchGetItem: keys still unprocessed"
                    )));
                }
                if attempt > 0 {
                    backoff(attempt).await;
                }
                attempt += 1;
                self.called();
                let out = (self
                    .client
                    .batch_get_item()
                    .request_items(&self.table, request))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| backend("BatchGetItem", e))?;
                self.consumed(false, out.consumed_capacity());
                let items = out
                    .responses
                    .and_then(|mut r| r.remove(&self.table))
                    .unwrap_or_default();
                for item in items.into_iter().map(Item::from) {
                    if let Some(key) = Key::of(&item) {
                        found.insert(key, item);
                    }
                }
                pending = out.unprocessed_keys.and_then(|mut u| u.remove(&self.table));
                pending = pending.filter(|p| !p.keys().is_empty());
            }
        }
        let now = now_epoch_seconds();
        let items = keys.into_iter().filter_map(|k| found.remove(k));
        Ok(items.filter(|item| !is_expired(item, now)).collect())
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        if Key::of(&item).is_none() {
            return Err(TableError::Invalid("put item without string pk/sk".into()));
        }
        let mut x = Expr::new(now_epoch_seconds());
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let (names, values) = x.into_parts();
        self.called();
        let out = (self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item.into())))
        .set_condition_expression(condition)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await;
        match out {
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
            Err(e) => Err(backend("PutItem", e)),
        }
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        for _ in 0..MAX_ATTEMPTS {
            let now = now_epoch_seconds();
            let mut x = Expr::new(now);
            let expression = x.update(&update)?;
            let condition_expression = guarded(&mut x, condition.as_ref());
            let (names, values) = x.into_parts();
            self.called();
            let out = (self
                .client
                .update_item()
                .table_name(&self.table)
                .set_key(Some(key_attrs(key))))
            .set_update_expression(expression)
            .condition_expression(condition_expression)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
            let error = match out {
                Ok(out) => {
                    self.consumed(true, out.consumed_capacity());
                    return Ok(out.attributes.unwrap_or_else(|| key_attrs(key)).into());
                }
                Err(e) => e,
            };
            let Some(UpdateItemError::ConditionalCheckFailedException(failed)) =
                error.as_service_error()
            else {
                return Err(backend("UpdateItem", error));
            };
            // Only a stale expired item (physically still there) can block a condition that holds
            // for an absent item: remove it and apply the update to nothing, as the port says.
            let stale = failed
                .item()
                .is_some_and(|old| is_expired(&Item::from(old.clone()), now));
            if !stale || !condition.as_ref().is_none_or(holds_when_absent) {
                return Err(TableError::ConditionFailed);
            }
            self.purge_expired(key, now).await?;
        }
        Err(TableError::Backend(anyhow!(
            "UpdateItem {key}: kept meeting an expired item"
        )))
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        let now = now_epoch_seconds();
        let mut x = Expr::new(now);
        let condition = condition.as_ref().and_then(|c| x.condition(c));
        let (names, values) = x.into_parts();
        self.called();
        let out = (self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key))))
        .set_condition_expression(condition)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .return_values(ReturnValue::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await;
        match out {
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
            Err(e) => Err(backend("DeleteItem", e)),
        }
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        let limit = match query.limit {
            Some(0) => return Err(TableError::Invalid("query limit must be at least 1".into())),
            Some(limit) => Some(i32::try_from(limit).unwrap_or(i32::MAX)),
            None => None,
        };
        let mut x = Expr::new(now_epoch_seconds());
        let key_condition = x.key_condition(query.index, &query.partition, query.sort.as_ref());
        let filter = x.unexpired();
        let (names, values) = x.into_parts();
        self.called();
        let out = (self.client.query().table_name(&self.table))
            .set_index_name(query.index.name().map(str::to_owned))
            .consistent_read(query.index == Index::Primary)
            .key_condition_expression(key_condition)
            .filter_expression(filter)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .scan_index_forward(!query.descending)
            .set_limit(limit)
            .set_exclusive_start_key(query.start_after.map(Into::into))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| backend("Query", e))?;
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
            return Ok(());
        }
        if writes.len() > 100 {
            return Err(TableError::Invalid(format!(
                "{} writes in one transaction (at most 100)",
                writes.len()
            )));
        }
        let mut keys = HashSet::new();
        for write in &writes {
            let key = write_key(write)?;
            if !keys.insert(key.clone()) {
                return Err(TableError::Invalid(format!(
                    "{key} is written twice in one transaction"
                )));
            }
        }
        for attempt in 0..MAX_ATTEMPTS {
            let now = now_epoch_seconds();
            let items = writes
                .iter()
                .map(|w| self.transact_item(w, now))
                .collect::<Result<Vec<_>, _>>()?;
            self.called();
            let out = (self
                .client
                .transact_write_items()
                .set_transact_items(Some(items)))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
            let error = match out {
                Ok(out) => {
                    self.consumed(true, out.consumed_capacity());
                    return Ok(());
                }
                Err(e) => e,
            };
            let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
                error.as_service_error()
            else {
                return Err(backend("TransactWriteItems", error));
            };
            let (mut failed, mut stale, mut retry) = (Vec::new(), Vec::new(), false);
            for (index, reason) in cancelled.cancellation_reasons().iter().enumerate() {
                match reason.code() {
                    None | Some("None") => {}
                    Some("ConditionalCheckFailed") => {
                        let expired = reason
                            .item()
                            .is_some_and(|old| is_expired(&Item::from(old.clone()), now));
                        match &writes[index] {
                            Write::Update { key, condition, .. }
                                if expired && condition.as_ref().is_none_or(holds_when_absent) =>
                            {
                                stale.push(key.clone())
                            }
                            _ => failed.push(index),
                        }
                    }
                    Some(
                        "TransactionConflict" | "ThrottlingError" | "ProvisionedThroughputExceeded",
                    ) => retry = true,
                    Some(_) => return Err(backend("TransactWriteItems", error)),
                }
            }
            if !failed.is_empty() {
                return Err(TableError::TransactionCancelled { failed });
            }
            if stale.is_empty() && !retry {
                return Err(backend("TransactWriteItems", error));
            }
            for key in &stale {
                self.purge_expired(key, now).await?;
            }
            if retry {
                tracing::debug!(attempt, "transaction conflict, retrying");
                backoff(attempt).await;
            }
        }
        Err(TableError::Backend(anyhow!(
            "TransactWriteItems: still conflicting after {MAX_ATTEMPTS} attempts"
        )))
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.called();
        let out = self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await;
        out.map(|_| ()).map_err(|e| backend("DescribeTable", e))
    }
}
