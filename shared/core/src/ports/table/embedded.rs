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
//! as in DynamoDB. Each connection keeps the items it decoded and reuses one while its row's text
//! is unchanged (see `embedded_cache.rs`); commits move the change stamp (`embedded_changes.rs`).
//! How an item is stored in its row is `embedded_rows.rs`.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use async_trait::async_trait;
use rusqlite::{
    config::DbConfig, params, params_from_iter, Connection, OpenFlags,
    TransactionBehavior::Immediate,
};

#[path = "embedded_cache.rs"]
mod cache;
#[path = "embedded_changes.rs"]
mod changes;
#[path = "embedded_expr.rs"]
mod expr;
#[path = "embedded_rows.rs"]
mod rows;
#[path = "embedded_schema.rs"]
mod schema;

use self::cache::DecodedItems;
use self::changes::Changes;
use self::expr::{apply, check_update, holds, invalid, query_sql, scan_sql};
use self::rows::{decode, live, load, remove, store, text};
use self::schema::create_or_migrate;
use super::{
    is_expired, now_epoch_seconds, AttributeValue, Condition, Index, Item, Key, Query, QueryPage,
    Scan, Table, TableError, Update, Write, TTL,
};

/// Most items a transaction or a `get_many` may name, as in DynamoDB.
const MAX_ITEMS: usize = 100;

/// How much of the file each connection maps into memory: reads then copy pages from the map
/// instead of making a `pread` for every page that is not in the connection's small cache.
const MMAP_BYTES: i64 = 1 << 30;

/// Where a Query page stops, as in DynamoDB: once the items read reach 1 MB.
const MAX_PAGE_BYTES: usize = 1 << 20;

/// A connection and the items it has decoded.
struct Conn {
    db: Connection,
    decoded: DecodedItems,
}

type Shared = Arc<Mutex<Conn>>;

/// The table port on SQLite (local gateway, in-process tests).
#[derive(Clone)]
pub struct SqliteTable {
    writer: Shared,
    /// One per core for a file; the writer itself for a private in-memory table.
    readers: Arc<[Shared]>,
    /// Where the change stamp comes from.
    changes: Arc<Changes>,
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
                Ok(Arc::new(Mutex::new(Conn { db: reader, decoded: DecodedItems::new() })))
            })
            .collect::<anyhow::Result<_>>()?;
        let changes = Arc::new(Changes::watched(path).with_context(opening)?);
        Ok(Self { writer, readers, changes })
    }

    /// A private, empty in-memory table (tests).
    pub fn in_memory() -> anyhow::Result<Self> {
        let writer = Self::init(Connection::open_in_memory()?)?;
        let changes = Arc::new(Changes::counted());
        Ok(Self { readers: Arc::new([writer.clone()]), writer, changes })
    }

    /// Configures the writer, creates the schema and purges expired rows.
    fn init(mut conn: Connection) -> anyhow::Result<Shared> {
        configure(&conn)?;
        create_or_migrate(&mut conn)?;
        conn.execute(
            "DELETE FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?1",
            params![now_epoch_seconds()],
        )?;
        Ok(Arc::new(Mutex::new(Conn { db: conn, decoded: DecodedItems::new() })))
    }

    /// Runs a read on the calling thread, on a free reader (or waits for the first one).
    fn read<T>(
        &self,
        f: impl FnOnce(&Connection, &mut DecodedItems) -> Result<T, TableError>,
    ) -> Result<T, TableError> {
        let mut conn = match self.readers.iter().find_map(|r| r.try_lock().ok()) {
            Some(conn) => conn,
            None => self.readers[0].lock().map_err(|_| poisoned())?,
        };
        let Conn { db, decoded } = &mut *conn;
        f(db, decoded)
    }

    /// Runs `f` on the writer on the blocking thread pool.
    async fn write<T, F>(&self, f: F) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, TableError> + Send + 'static,
    {
        let conn = Arc::clone(&self.writer);
        tokio::task::spawn_blocking(move || f(&mut conn.lock().map_err(|_| poisoned())?.db))
            .await
            .map_err(|e| TableError::Backend(anyhow::anyhow!("sqlite task failed: {e}")))?
    }

    /// Checks every write's condition against the current rows, then applies them all (or none),
    /// in one `BEGIN IMMEDIATE` transaction. Returns, per write, what a single-item call returns:
    /// the new item of an update, the deleted (unexpired) item of a delete, `None` otherwise.
    async fn commit(&self, writes: Vec<Write>) -> Result<Vec<Option<Item>>, TableError> {
        let keys = writes.iter().map(write_key).collect::<Result<Vec<_>, _>>()?;
        distinct_keys(&keys, "transaction")?;
        let changes = Arc::clone(&self.changes);
        self.write(move |conn| {
            let (tx, now) =
                (conn.transaction_with_behavior(Immediate).map_err(db)?, now_epoch_seconds());
            let stored =
                keys.iter().map(|k| load(&tx, k, decode)).collect::<Result<Vec<_>, _>>()?;
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
            changes.committed();
            Ok(results)
        })
        .await
    }

    /// One page of the rows `sql` selects (pk, sk, item), stopping after `limit` rows or 1 MB
    /// of items, as DynamoDB does, with the `next` key made of `key_attrs`.
    fn page(
        &self,
        sql: &str,
        args: &[String],
        key_attrs: &[&'static str],
        limit: Option<u32>,
    ) -> Result<QueryPage, TableError> {
        self.read(|conn, decoded| {
            let now = now_epoch_seconds();
            let mut stmt = conn.prepare_cached(sql).map_err(db)?;
            let mut rows = stmt.query(params_from_iter(args.iter())).map_err(db)?;
            let mut page = QueryPage::default();
            let (mut evaluated, mut bytes) = (0u32, 0usize);
            while let Some(row) = rows.next().map_err(db)? {
                let (pk, sk, json) = (text(row, 0)?, text(row, 1)?, text(row, 2)?);
                let item = decoded.decode(pk, sk, json)?;
                (evaluated, bytes) = (evaluated + 1, bytes + json.len());
                // Like DynamoDB's LastEvaluatedKey: set whenever the page stops early.
                let full = limit.is_some_and(|limit| evaluated >= limit) || bytes >= MAX_PAGE_BYTES;
                if full {
                    let key =
                        key_attrs.iter().filter_map(|&a| Some((a.into(), item.get(a)?.clone())));
                    page.next = Some(Item::from(key.collect::<HashMap<_, _>>()));
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
        self.read(|conn, decoded| {
            let item = load(conn, key, |text| decoded.decode(&key.pk, &key.sk, text))?;
            Ok(live(item, now_epoch_seconds()))
        })
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        distinct_keys(keys, "get_many")?;
        self.read(|conn, decoded| {
            let now = now_epoch_seconds();
            let mut items = Vec::with_capacity(keys.len());
            for key in keys {
                let item = load(conn, key, |text| decoded.decode(&key.pk, &key.sk, text))?;
                items.extend(live(item, now));
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
        self.page(&sql, &args, &key_attrs, query.limit)
    }

    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        let (sql, args, key_attrs) = scan_sql(&scan)?;
        self.page(&sql, &args, &key_attrs, scan.limit)
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        if writes.is_empty() || writes.len() > MAX_ITEMS {
            return Err(invalid(format!("a transaction takes 1 to {MAX_ITEMS} writes")));
        }
        self.commit(writes).await.map(|_| ())
    }

    async fn ping(&self) -> Result<(), TableError> {
        self.read(|conn, _| conn.query_row("SELECT 1", [], |_| Ok(())).map_err(db))
    }

    fn change_stamp(&self) -> Option<u64> {
        self.changes.stamp()
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
    conn.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    // Plans never depend on bound values: otherwise SQLite prepares a cached range query
    // again each time its arguments change (most of a detail read's time went there).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map(|_| ())
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
