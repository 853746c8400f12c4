//! The table port: a small, DynamoDB-shaped item API.
//!
//! Repositories are written once against [`Table`]; two adapters implement it with the same
//! semantics: [`embedded::SqliteTable`] (local gateway, in-process tests) and
//! `dynamodb::DynamoTable` (AWS). Items are [`serde_dynamo::Item`]s, so repositories convert their
//! records with `serde_dynamo::to_item` / `from_item` whichever adapter is behind the port.
//!
//! Semantics shared by both adapters:
//! - every item has string keys `pk` and `sk`; three global secondary indexes use the string
//!   attributes `gsi1pk`/`gsi1sk`, `gsi2pk`/`gsi2sk` and `gsi3pk`/`gsi3sk` (an item is in an
//!   index only when it carries both of that index's attributes);
//! - an item whose numeric `expiresAt` (epoch seconds, the table's TTL attribute) lies in the past
//!   is *expired*: reads never return it and conditions treat it as absent, even before the store
//!   physically removes it (DynamoDB deletes expired items lazily, emulators never do);
//! - sort keys compare as UTF-8 bytes;
//! - a transaction applies all of its writes or none, and reports which conditions failed.

use std::fmt;

use async_trait::async_trait;
pub use serde_dynamo::{AttributeValue, Item};

#[cfg(feature = "dynamodb")]
pub mod dynamodb;
#[cfg(feature = "embedded")]
pub mod embedded;
pub mod metered;
mod transaction;
pub use transaction::{refused_by, Transaction};

/// Partition key attribute.
pub const PK: &str = "pk";
/// Sort key attribute.
pub const SK: &str = "sk";
/// TTL attribute (number, epoch seconds).
pub const TTL: &str = "expiresAt";

/// Where a query runs: the table itself or one of its global secondary indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// The base table, keyed by `pk`/`sk`.
    Primary,
    /// `gsi1`, keyed by `gsi1pk`/`gsi1sk`.
    Gsi1,
    /// `gsi2`, keyed by `gsi2pk`/`gsi2sk`.
    Gsi2,
    /// `gsi3`, keyed by `gsi3pk`/`gsi3sk`.
    Gsi3,
}

impl Index {
    /// Every index, primary first.
    pub const ALL: [Index; 4] = [Index::Primary, Index::Gsi1, Index::Gsi2, Index::Gsi3];

    /// The global secondary indexes.
    pub const SECONDARY: [Index; 3] = [Index::Gsi1, Index::Gsi2, Index::Gsi3];

    /// The DynamoDB index name (`None` for the base table).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Index::Primary => None,
            Index::Gsi1 => Some("gsi1"),
            Index::Gsi2 => Some("gsi2"),
            Index::Gsi3 => Some("gsi3"),
        }
    }

    /// The partition and sort key attribute names of this index.
    pub fn key_attributes(self) -> (&'static str, &'static str) {
        match self {
            Index::Primary => (PK, SK),
            Index::Gsi1 => ("gsi1pk", "gsi1sk"),
            Index::Gsi2 => ("gsi2pk", "gsi2sk"),
            Index::Gsi3 => ("gsi3pk", "gsi3sk"),
        }
    }
}

/// The primary key of one item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Partition key value.
    pub pk: String,
    /// Sort key value.
    pub sk: String,
}

impl Key {
    /// A key from its two parts.
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Self { pk: pk.into(), sk: sk.into() }
    }

    /// The key of a stored item (`None` when `pk` or `sk` is missing or not a string).
    pub fn of(item: &Item) -> Option<Key> {
        match (item.get(PK), item.get(SK)) {
            (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => Some(Key::new(pk, sk)),
            _ => None,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}|{}", self.pk, self.sk)
    }
}

/// A condition on the current state of one item, checked atomically with the write.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// The item exists (and is not expired).
    Exists,
    /// The item does not exist (or is expired).
    NotExists,
    /// The item exists and the attribute equals the value.
    Equals(String, AttributeValue),
    /// The item exists and the attribute is absent or differs from the value.
    NotEquals(String, AttributeValue),
    /// The item exists and carries the attribute.
    HasAttribute(String),
    /// The item exists and does not carry the attribute.
    LacksAttribute(String),
    /// The item exists and the numeric attribute is below the value.
    LessThan(String, i64),
    /// The item exists and the numeric attribute is above the value.
    GreaterThan(String, i64),
    /// Every condition holds.
    All(Vec<Condition>),
}

impl Condition {
    /// Shorthand for [`Condition::Equals`].
    pub fn equals(attribute: impl Into<String>, value: impl Into<AttributeValue>) -> Self {
        Condition::Equals(attribute.into(), value.into())
    }
}

/// Changes to one item; an update of an absent item creates it from its key (as DynamoDB does),
/// unless a condition says otherwise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Update {
    /// Attributes to set.
    pub set: Vec<(String, AttributeValue)>,
    /// Attributes to remove.
    pub remove: Vec<String>,
    /// Numeric attributes to increment (an absent attribute counts as 0).
    pub add: Vec<(String, i64)>,
}

impl Update {
    /// An empty update.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets an attribute.
    pub fn set(mut self, attribute: impl Into<String>, value: impl Into<AttributeValue>) -> Self {
        self.set.push((attribute.into(), value.into()));
        self
    }

    /// Removes an attribute.
    pub fn remove(mut self, attribute: impl Into<String>) -> Self {
        self.remove.push(attribute.into());
        self
    }

    /// Adds `delta` to a numeric attribute.
    pub fn add(mut self, attribute: impl Into<String>, delta: i64) -> Self {
        self.add.push((attribute.into(), delta));
        self
    }
}

/// A condition on the sort key of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// Equal to.
    Eq(String),
    /// Starts with.
    BeginsWith(String),
    /// Between, both ends inclusive.
    Between(String, String),
    /// Less than.
    Lt(String),
    /// Less than or equal to.
    Le(String),
    /// Greater than.
    Gt(String),
    /// Greater than or equal to.
    Ge(String),
}

/// A query of one partition of the table or of an index.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// Table or index to read.
    pub index: Index,
    /// Partition key value.
    pub partition: String,
    /// Optional condition on the sort key.
    pub sort: Option<SortKey>,
    /// Sort-key order: ascending unless set.
    pub descending: bool,
    /// Maximum number of items to evaluate.
    pub limit: Option<u32>,
    /// Continue after this key (the `next` of a previous [`QueryPage`]).
    pub start_after: Option<Item>,
}

impl Query {
    /// All items of one partition of `index`, ascending.
    pub fn partition(index: Index, partition: impl Into<String>) -> Self {
        Self {
            index,
            partition: partition.into(),
            sort: None,
            descending: false,
            limit: None,
            start_after: None,
        }
    }

    /// Restricts the sort key.
    pub fn sort(mut self, sort: SortKey) -> Self {
        self.sort = Some(sort);
        self
    }

    /// Reads in descending sort-key order.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    /// Evaluates at most `limit` items.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Continues after a previous page.
    pub fn start_after(mut self, key: Option<Item>) -> Self {
        self.start_after = key;
        self
    }
}

/// A scan of a whole index (or of the table): every item it holds, page by page, in no
/// particular order (maintenance only: no request of the API scans).
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// Table or index to read.
    pub index: Index,
    /// Maximum number of items to evaluate.
    pub limit: Option<u32>,
    /// Continue after this key (the `next` of a previous [`QueryPage`]).
    pub start_after: Option<Item>,
}

impl Scan {
    /// Every item of `index`, from the start.
    pub fn of(index: Index) -> Self {
        Self { index, limit: None, start_after: None }
    }
}

/// One page of query results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryPage {
    /// Matching, unexpired items in sort-key order.
    pub items: Vec<Item>,
    /// Where the next page starts, when the query stopped early.
    pub next: Option<Item>,
}

/// One write of a transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    /// Put (create or replace) an item.
    Put { item: Item, condition: Option<Condition> },
    /// Update an item.
    Update { key: Key, update: Update, condition: Option<Condition> },
    /// Delete an item.
    Delete { key: Key, condition: Option<Condition> },
    /// Only check a condition on an item.
    Check { key: Key, condition: Condition },
}

/// Why a table call failed.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The condition of a single-item write did not hold.
    #[error("condition failed")]
    ConditionFailed,
    /// A transaction was refused; `failed` lists the positions of the writes whose condition
    /// did not hold (what adapters report; callers commit a [`Transaction`] and read
    /// [`TableError::Refused`]).
    #[error("transaction cancelled: conditions failed at {failed:?}")]
    TransactionCancelled { failed: Vec<usize> },
    /// A [`Transaction`] was refused: the names of the writes whose condition did not hold.
    #[error("transaction refused: conditions failed on {failed:?}")]
    Refused { failed: Vec<&'static str> },
    /// The request was malformed (programming error: a missing key, a bad item).
    #[error("invalid table request: {0}")]
    Invalid(String),
    /// The store failed.
    #[error("table backend error: {0}")]
    Backend(#[from] anyhow::Error),
}

/// The table port.
#[async_trait]
pub trait Table: Send + Sync + 'static {
    /// Reads one item (strongly consistent); `None` when absent or expired.
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError>;

    /// Reads several items in one call (at most 100 keys); absent and expired ones are left out.
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError>;

    /// Creates or replaces an item when the condition holds.
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError>;

    /// Updates an item when the condition holds and returns it as stored afterwards.
    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError>;

    /// Deletes an item when the condition holds and returns what was deleted.
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError>;

    /// Reads one page of a partition of the table or of an index.
    async fn query(&self, query: Query) -> Result<QueryPage, TableError>;

    /// Reads one page of a whole index or of the table (unexpired items only); a page stops at
    /// 1 MB of items, like a Query's.
    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError>;

    /// Applies up to 100 writes on distinct items atomically.
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError>;

    /// Checks that the store answers (for health reports).
    async fn ping(&self) -> Result<(), TableError>;

    /// A number that differs from every earlier one once a write has been committed to the
    /// table, by this process or any other; `None` when the adapter cannot tell cheaply (the
    /// default; DynamoDB). Read it before reading the items an answer is made of, and the answer
    /// stays right for as long as the stamp stays the same (items that expire by TTL aside: the
    /// passing of time commits nothing).
    fn change_stamp(&self) -> Option<u64> {
        None
    }
}

/// A string attribute value.
pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number attribute value.
pub fn n(value: i64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// Current time in epoch seconds, as compared with [`TTL`].
pub fn now_epoch_seconds() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Whether an item is expired at `now` (epoch seconds).
pub fn is_expired(item: &Item, now: i64) -> bool {
    match item.get(TTL) {
        Some(AttributeValue::N(n)) => n.parse::<f64>().map(|t| (t as i64) <= now).unwrap_or(false),
        _ => false,
    }
}
