//! [`SqliteTable`]: the table port on an embedded SQLite file, with DynamoDB's semantics.
//!
//! Items are stored as DynamoDB JSON beside their key, TTL and index columns. Every write runs in
//! a `BEGIN IMMEDIATE` transaction that reads the current rows, checks the conditions in Rust and
//! applies the changes, so conditions are atomic with their writes.
//!
//! Writes go through one connection on the blocking thread pool (a commit may wait for the
//! disk). Reads run on the calling task's thread, on a connection of their own (WAL lets them
//! proceed beside a write): a read of a few items takes microseconds, less than handing it to
//! another thread and back, and no read takes long because a Query page stops at 1 MB of items,
//! as in DynamoDB.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use async_trait::async_trait;
use rusqlite::{
    config::DbConfig, params, params_from_iter, Connection, OpenFlags, OptionalExtension,
    TransactionBehavior::Immediate,
};

use super::{
    is_expired, now_epoch_seconds, s, AttributeValue, Condition, Index, Item, Key, Query,
    QueryPage, SortKey, Table, TableError, Update, Write, PK, SK, TTL,
};

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS items (
        pk TEXT NOT NULL, sk TEXT NOT NULL, item TEXT NOT NULL, expires_at INTEGER,
        gsi1pk TEXT, gsi1sk TEXT, gsi2pk TEXT, gsi2sk TEXT,
        PRIMARY KEY (pk, sk)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS items_gsi1 ON items (gsi1pk, gsi1sk);
    CREATE INDEX IF NOT EXISTS items_gsi2 ON items (gsi2pk, gsi2sk);";

/// Most items a transaction or a `get_many` may name, as in DynamoDB.
const MAX_ITEMS: usize = 100;

/// Where a Query page stops, as in DynamoDB: once the items read reach 1 MB.
const MAX_PAGE_BYTES: usize = 1 << 20;

type Shared = Arc<Mutex<Connection>>;

/// The table port on SQLite (local gateway, in-process tests).
#[derive(Clone)]
pub struct SqliteTable {
    writer: Shared,
    /// One per core for a file; the writer itself for a private in-memory table.
    readers: Arc<[Shared]>,
}

impl SqliteTable {
    /// Opens (or creates) the table in a SQLite file, creating its parent directories, and
    /// purges the rows that have expired.
    pub fn open(path: impl AsRef<Path>) -> anyhow::Result<Self> {
        let path = path.as_ref();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let opening = || format!("opening {}", path.display());
        let writer = Connection::open(path).with_context(opening)?;
        writer.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
        let writer = Self::init(writer)?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let readers = (0..cores)
            .map(|_| {
                let reader = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
                    .with_context(opening)?;
                configure(&reader)?;
                Ok(Arc::new(Mutex::new(reader)))
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(Self { writer, readers })
    }

    /// A private, empty in-memory table (tests).
    pub fn in_memory() -> anyhow::Result<Self> {
        let writer = Self::init(Connection::open_in_memory()?)?;
        Ok(Self { readers: Arc::new([writer.clone()]), writer })
    }

    /// Configures the writer, creates the schema and purges expired rows.
    fn init(conn: Connection) -> anyhow::Result<Shared> {
        configure(&conn)?;
        conn.execute_batch(SCHEMA)?;
        conn.execute(
            "DELETE FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?1",
            params![now_epoch_seconds()],
        )?;
        Ok(Arc::new(Mutex::new(conn)))
    }

    /// Runs a read on the calling thread, on a free reader (or waits for the first one).
    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, TableError>,
    ) -> Result<T, TableError> {
        let conn = match self.readers.iter().find_map(|r| r.try_lock().ok()) {
            Some(conn) => conn,
            None => self.readers[0].lock().map_err(|_| poisoned())?,
        };
        f(&conn)
    }

    /// Runs `f` on the writer on the blocking thread pool.
    async fn write<T, F>(&self, f: F) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, TableError> + Send + 'static,
    {
        let conn = Arc::clone(&self.writer);
        tokio::task::spawn_blocking(move || f(&mut *conn.lock().map_err(|_| poisoned())?))
            .await
            .map_err(|e| TableError::Backend(anyhow::anyhow!("sqlite task failed: {e}")))?
    }

    /// Checks every write's condition against the current rows, then applies them all (or none),
    /// in one `BEGIN IMMEDIATE` transaction. Returns, per write, what a single-item call returns:
    /// the new item of an update, the deleted (unexpired) item of a delete, `None` otherwise.
    async fn commit(&self, writes: Vec<Write>) -> Result<Vec<Option<Item>>, TableError> {
        let keys = writes.iter().map(write_key).collect::<Result<Vec<_>, _>>()?;
        distinct_keys(&keys, "transaction")?;
        self.write(move |conn| {
            let (tx, now) =
                (conn.transaction_with_behavior(Immediate).map_err(db)?, now_epoch_seconds());
            let stored = keys.iter().map(|k| load(&tx, k)).collect::<Result<Vec<_>, _>>()?;
            let failed: Vec<usize> = (0..writes.len())
                .filter(|&i| {
                    let current = stored[i].as_ref().filter(|item| !is_expired(item, now));
                    let condition = match &writes[i] {
                        Write::Put { condition, .. }
                        | Write::Update { condition, .. }
                        | Write::Delete { condition, .. } => condition.as_ref(),
                        Write::Check { condition, .. } => Some(condition),
                    };
                    !holds(condition, current)
                })
                .collect();
            if !failed.is_empty() {
                return Err(TableError::TransactionCancelled { failed });
            }
            let mut results = Vec::with_capacity(writes.len());
            for ((write, stored), key) in writes.into_iter().zip(stored).zip(&keys) {
                results.push(match write {
                    Write::Put { item, .. } => store(&tx, key, &item).map(|_| None)?,
                    Write::Update { update, .. } => {
                        let item = apply(stored, key, &update)?;
                        store(&tx, key, &item).map(|_| Some(item))?
                    }
                    Write::Delete { .. } => remove(&tx, key).map(|_| live(stored, now))?,
                    Write::Check { .. } => None,
                });
            }
            tx.commit().map_err(db)?;
            Ok(results)
        })
        .await
    }

    /// One conditional write: a cancelled transaction of one is a failed condition.
    async fn single(&self, write: Write) -> Result<Option<Item>, TableError> {
        match self.commit(vec![write]).await {
            Ok(results) => Ok(results.into_iter().next().flatten()),
            Err(TableError::TransactionCancelled { .. }) => Err(TableError::ConditionFailed),
            Err(e) => Err(e),
        }
    }
}

#[async_trait]
impl Table for SqliteTable {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        check_key(key)?;
        self.read(|conn| Ok(live(load(conn, key)?, now_epoch_seconds())))
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        distinct_keys(keys, "get_many")?;
        self.read(|conn| {
            let now = now_epoch_seconds();
            let mut items = Vec::with_capacity(keys.len());
            for key in keys {
                items.extend(live(load(conn, key)?, now));
            }
            Ok(items)
        })
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.single(Write::Put { item, condition }).await.map(|_| ())
    }

    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        let write = Write::Update { key: key.clone(), update, condition };
        let item = self.single(write).await?;
        item.ok_or_else(|| TableError::Backend(anyhow::anyhow!("update of {key} returned nothing")))
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.single(Write::Delete { key: key.clone(), condition }).await
    }

    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        let (sql, args, key_attrs) = query_sql(&query)?;
        self.read(|conn| {
            let now = now_epoch_seconds();
            let mut stmt = conn.prepare_cached(&sql).map_err(db)?;
            let mut rows = stmt.query(params_from_iter(args.iter())).map_err(db)?;
            let mut page = QueryPage::default();
            let (mut evaluated, mut bytes) = (0u32, 0usize);
            while let Some(row) = rows.next().map_err(db)? {
                let json = row.get_ref(0).map_err(db)?.as_str().map_err(|e| db(e.into()))?;
                let item = decode(json)?;
                (evaluated, bytes) = (evaluated + 1, bytes + json.len());
                // Like DynamoDB's LastEvaluatedKey: set whenever the page stops early.
                let full =
                    query.limit.is_some_and(|limit| evaluated >= limit) || bytes >= MAX_PAGE_BYTES;
                if full {
                    let key = key_attrs.iter().filter_map(|&a| Some((a, item.get(a)?.clone())));
                    page.next = Some(Item::from(
                        key.map(|(a, v)| (a.to_string(), v)).collect::<HashMap<_, _>>(),
                    ));
                }
                if !is_expired(&item, now) {
                    page.items.push(item);
                }
                if full {
                    break;
                }
            }
            Ok(page)
        })
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        if writes.is_empty() || writes.len() > MAX_ITEMS {
            return Err(invalid(format!("a transaction takes 1 to {MAX_ITEMS} writes")));
        }
        self.commit(writes).await.map(|_| ())
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.read(|conn| conn.query_row("SELECT 1", [], |_| Ok(())).map_err(db))
    }
}

fn db(e: rusqlite::Error) -> TableError {
    TableError::Backend(e.into())
}

fn poisoned() -> TableError {
    TableError::Backend(anyhow::anyhow!("sqlite connection poisoned"))
}

/// Settings of every connection.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(5))?;
    // Plans never depend on bound values: otherwise SQLite prepares a cached range query
    // again each time its arguments change (most of a detail read's time went there).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map(|_| ())
}

fn invalid(message: impl Into<String>) -> TableError {
    TableError::Invalid(message.into())
}

fn decode(json: &str) -> Result<Item, TableError> {
    serde_json::from_str(json)
        .map_err(|e| TableError::Backend(anyhow::anyhow!("corrupt item: {e}")))
}

/// The stored item of `key`, expired or not.
fn load(conn: &Connection, key: &Key) -> Result<Option<Item>, TableError> {
    let mut stmt =
        conn.prepare_cached("SELECT item FROM items WHERE pk = ?1 AND sk = ?2").map_err(db)?;
    let json: Option<String> =
        stmt.query_row(params![key.pk, key.sk], |r| r.get(0)).optional().map_err(db)?;
    json.as_deref().map(decode).transpose()
}

/// The item unless it has expired.
fn live(item: Option<Item>, now: i64) -> Option<Item> {
    item.filter(|item| !is_expired(item, now))
}

/// Writes `item` (validated) with its TTL and index columns.
fn store(conn: &Connection, key: &Key, item: &Item) -> Result<(), TableError> {
    let mut index = Vec::with_capacity(4);
    for idx in [Index::Gsi1, Index::Gsi2] {
        let (p, s) = idx.key_attributes();
        let value = |attr: &str| match item.get(attr) {
            None => Ok(None),
            Some(AttributeValue::S(v)) if !v.is_empty() => Ok(Some(v.clone())),
            Some(_) => Err(invalid(format!("index key {attr} must be a non-empty string"))),
        };
        let (p, s) = (value(p)?, value(s)?);
        let both = p.is_some() && s.is_some();
        index.extend([p.filter(|_| both), s.filter(|_| both)]);
    }
    let expires_at = match item.get(TTL) {
        Some(AttributeValue::N(n)) => n.parse::<f64>().ok().map(|t| t as i64),
        _ => None,
    };
    let json = serde_json::to_string(item).map_err(|e| TableError::Backend(e.into()))?;
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO items (pk, sk, item, expires_at, gsi1pk, gsi1sk, gsi2pk, gsi2sk)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .map_err(db)?;
    stmt.execute(params![key.pk, key.sk, json, expires_at, index[0], index[1], index[2], index[3]])
        .map_err(db)?;
    Ok(())
}

fn remove(conn: &Connection, key: &Key) -> Result<(), TableError> {
    let mut stmt =
        conn.prepare_cached("DELETE FROM items WHERE pk = ?1 AND sk = ?2").map_err(db)?;
    stmt.execute(params![key.pk, key.sk]).map_err(db)?;
    Ok(())
}

/// The key of the item a write names (validated by [`distinct_keys`]).
fn write_key(write: &Write) -> Result<Key, TableError> {
    match write {
        Write::Put { item, .. } => {
            Key::of(item).ok_or_else(|| invalid("an item needs string attributes pk and sk"))
        }
        Write::Update { key, update, .. } => check_update(update).map(|_| key.clone()),
        Write::Delete { key, .. } | Write::Check { key, .. } => Ok(key.clone()),
    }
}

fn check_key(key: &Key) -> Result<(), TableError> {
    if key.pk.is_empty() || key.sk.is_empty() {
        return Err(invalid(format!("key parts may not be empty: {key}")));
    }
    Ok(())
}

/// At most [`MAX_ITEMS`] valid keys, none twice (DynamoDB refuses duplicates).
fn distinct_keys(keys: &[Key], what: &str) -> Result<(), TableError> {
    if keys.len() > MAX_ITEMS {
        return Err(invalid(format!("a {what} takes at most {MAX_ITEMS} keys")));
    }
    let mut seen = HashSet::new();
    for key in keys {
        check_key(key)?;
        if !seen.insert(key) {
            return Err(invalid(format!("a {what} names {key} twice")));
        }
    }
    Ok(())
}

/// Rejects updates that touch the key or name one attribute twice (as DynamoDB does).
fn check_update(update: &Update) -> Result<(), TableError> {
    let names = update
        .set
        .iter()
        .map(|(a, _)| a)
        .chain(&update.remove)
        .chain(update.add.iter().map(|(a, _)| a));
    let mut seen = HashSet::new();
    for name in names {
        if name == PK || name == SK {
            return Err(invalid(format!("an update cannot change the key attribute {name}")));
        }
        if !seen.insert(name) {
            return Err(invalid(format!("an update names {name} twice")));
        }
    }
    Ok(())
}

/// The item after `update`, starting from the stored item (even expired) or from the key.
fn apply(stored: Option<Item>, key: &Key, update: &Update) -> Result<Item, TableError> {
    let mut item = stored.unwrap_or_else(|| {
        Item::from(HashMap::from([(PK.to_string(), s(&key.pk)), (SK.to_string(), s(&key.sk))]))
    });
    for (name, value) in &update.set {
        item.insert(name.clone(), value.clone());
    }
    for name in &update.remove {
        item.remove(name);
    }
    for (name, delta) in &update.add {
        let sum = match item.get(name) {
            None => delta.to_string(),
            Some(AttributeValue::N(n)) => add(n, *delta)
                .ok_or_else(|| invalid(format!("cannot add {delta} to {name} = {n}")))?,
            Some(_) => return Err(invalid(format!("cannot add to the non-number {name}"))),
        };
        item.insert(name.clone(), AttributeValue::N(sum));
    }
    Ok(item)
}

/// Whether the optional condition holds on the current (unexpired) item.
fn holds(condition: Option<&Condition>, item: Option<&Item>) -> bool {
    let Some(condition) = condition else {
        return true;
    };
    match (condition, item) {
        (Condition::NotExists, item) => item.is_none(),
        (Condition::All(all), item) => all.iter().all(|c| holds(Some(c), item)),
        (_, None) => false,
        (Condition::Exists, Some(_)) => true,
        (Condition::Equals(name, value), Some(item)) => {
            item.get(name).is_some_and(|v| same(v, value))
        }
        (Condition::HasAttribute(name), Some(item)) => item.contains_key(name),
        (Condition::LacksAttribute(name), Some(item)) => !item.contains_key(name),
        (Condition::LessThan(name, bound), Some(item)) => match item.get(name) {
            Some(AttributeValue::N(n)) => compare(n, &bound.to_string()) == Some(Ordering::Less),
            _ => false,
        },
    }
}

/// DynamoDB equality: numbers by value, sets regardless of order, documents deeply.
fn same(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue::*;
    let num = |x: &String, y: &String| compare(x, y) == Some(Ordering::Equal);
    fn set<T>(x: &[T], y: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
        x.len() == y.len() && x.iter().all(|a| y.iter().any(|b| eq(a, b)))
    }
    match (a, b) {
        (N(x), N(y)) => num(x, y),
        (Ns(x), Ns(y)) => set(x, y, num),
        (Ss(x), Ss(y)) => set(x, y, |a, b| a == b),
        (Bs(x), Bs(y)) => set(x, y, |a, b| a == b),
        (L(x), L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (M(x), M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// Numeric order of two DynamoDB numbers (exact for integers).
fn compare(a: &str, b: &str) -> Option<Ordering> {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(a), Ok(b)) => Some(a.cmp(&b)),
        _ => a.parse::<f64>().ok()?.partial_cmp(&b.parse::<f64>().ok()?),
    }
}

/// `number + delta` (exact for integers).
fn add(number: &str, delta: i64) -> Option<String> {
    match number.parse::<i128>() {
        Ok(n) => n.checked_add(delta.into()).map(|sum| sum.to_string()),
        Err(_) => number.parse::<f64>().ok().map(|n| (n + delta as f64).to_string()),
    }
}

/// The SQL, arguments and `next` key attributes of a query.
fn query_sql(query: &Query) -> Result<(String, Vec<String>, Vec<&'static str>), TableError> {
    if query.limit == Some(0) {
        return Err(invalid("a query limit must be at least 1"));
    }
    let (p, s) = query.index.key_attributes();
    let mut sql = format!("SELECT item FROM items WHERE {p} = ?");
    let mut args = vec![query.partition.clone()];
    let mut push = |clause: String, values: &[&String]| {
        sql.push_str(&clause);
        args.extend(values.iter().map(|v| v.to_string()));
    };
    match &query.sort {
        None => {}
        Some(SortKey::Eq(v)) => push(format!(" AND {s} = ?"), &[v]),
        Some(SortKey::Lt(v)) => push(format!(" AND {s} < ?"), &[v]),
        Some(SortKey::Le(v)) => push(format!(" AND {s} <= ?"), &[v]),
        Some(SortKey::Gt(v)) => push(format!(" AND {s} > ?"), &[v]),
        Some(SortKey::Ge(v)) => push(format!(" AND {s} >= ?"), &[v]),
        Some(SortKey::Between(a, b)) if a > b => {
            return Err(invalid("BETWEEN needs its lower bound first"));
        }
        Some(SortKey::Between(a, b)) => push(format!(" AND {s} BETWEEN ? AND ?"), &[a, b]),
        Some(SortKey::BeginsWith(v)) => push(
            format!(
                " AND {s} >= ? AND substr(CAST({s} AS BLOB), 1, length(CAST(? AS BLOB))) \
                 = CAST(? AS BLOB)"
            ),
            &[v, v, v],
        ),
    }
    // Order (and resume) by the index sort key, then by the table key to break ties.
    let order: Vec<&'static str> =
        if query.index == Index::Primary { vec![SK] } else { vec![s, PK, SK] };
    if let Some(start) = &query.start_after {
        let values = order
            .iter()
            .map(|a| match start.get(*a) {
                Some(AttributeValue::S(v)) => Ok(v),
                _ => Err(invalid(format!("start_after needs the string attribute {a}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let marks = vec!["?"; order.len()].join(", ");
        let op = if query.descending { "<" } else { ">" };
        push(format!(" AND ({}) {op} ({marks})", order.join(", ")), &values);
    }
    if args.iter().any(String::is_empty) {
        return Err(invalid("key condition values may not be empty (as in DynamoDB)"));
    }
    let direction = if query.descending { "DESC" } else { "ASC" };
    let columns: Vec<String> = order.iter().map(|c| format!("{c} {direction}")).collect();
    sql.push_str(&format!(" ORDER BY {}", columns.join(", ")));
    if let Some(limit) = query.limit {
        sql.push_str(&format!(" LIMIT {limit}"));
    }
    let mut key_attrs = vec![PK, SK];
    if query.index != Index::Primary {
        key_attrs.extend([p, s]);
    }
    Ok((sql, args, key_attrs))
}
