//! The tally port: numbers added to numeric attributes of table items (ADD), where the
//! features do not need the sum back. Two adapters:
//!
//! - [`Direct`] (Lambda): every addition is one UpdateItem ADD, made when asked, so the caller
//!   can make it together with its other calls and wait for it (nothing runs after a Lambda
//!   answer, so a write left for later could be lost);
//! - [`Buffered`] (the local gateway): additions are added up in memory and written every few
//!   seconds and when the process stops ([`Tally::flush`]); a write per addition would change
//!   the table at every counted read and so drop the kept answers
//!   ([`crate::http::answers`]) each time.
//!
//! The port knows keys and attribute names only; features decide what they count.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, Weak},
    time::Duration,
};

use async_trait::async_trait;
use futures::future::join_all;

use super::table::{Key, Table, TableError, Update};

/// Additions to numeric attributes.
#[async_trait]
pub trait Tally: Send + Sync + 'static {
    /// Adds `delta` to `attribute` of the item `key` (created when absent): stored when the
    /// future ends ([`Direct`]) or kept for the next flush ([`Buffered`]).
    async fn add(&self, key: Key, attribute: &'static str, delta: i64) -> Result<(), TableError>;

    /// Writes what is kept (nothing to do for [`Direct`]).
    async fn flush(&self) -> Result<(), TableError> {
        Ok(())
    }
}

/// One UpdateItem ADD per addition.
pub struct Direct {
    table: Arc<dyn Table>,
}

impl Direct {
    /// Additions written to `table` as they come.
    pub fn new(table: Arc<dyn Table>) -> Self {
        Self { table }
    }
}

#[async_trait]
impl Tally for Direct {
    async fn add(&self, key: Key, attribute: &'static str, delta: i64) -> Result<(), TableError> {
        self.table.update(&key, Update::new().add(attribute, delta), None).await.map(|_| ())
    }
}

type Sums = HashMap<(Key, &'static str), i64>;

/// Additions added up in memory and written by [`Tally::flush`]: by its own task every
/// `every` (as long as the tally lives) and by the process when it stops.
pub struct Buffered {
    table: Arc<dyn Table>,
    sums: Mutex<Sums>,
}

impl Buffered {
    /// A buffered tally on `table`, flushed every `every` by a task of the current runtime.
    pub fn start(table: Arc<dyn Table>, every: Duration) -> Arc<Self> {
        let tally = Arc::new(Self { table, sums: Mutex::new(HashMap::new()) });
        let weak: Weak<Self> = Arc::downgrade(&tally);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let Some(tally) = weak.upgrade() else { return };
                if let Err(error) = tally.flush().await {
                    tracing::warn!(%error, "tally not written now; kept for the next flush");
                }
            }
        });
        tally
    }

    fn keep(&self, sums: Sums) {
        let mut kept = self.sums.lock().unwrap_or_else(|e| e.into_inner());
        for (what, delta) in sums {
            *kept.entry(what).or_default() += delta;
        }
    }
}

#[async_trait]
impl Tally for Buffered {
    async fn add(&self, key: Key, attribute: &'static str, delta: i64) -> Result<(), TableError> {
        self.keep(HashMap::from([((key, attribute), delta)]));
        Ok(())
    }

    /// Writes every non-zero sum (together); a sum whose write fails is kept for the next one.
    async fn flush(&self) -> Result<(), TableError> {
        let sums = std::mem::take(&mut *self.sums.lock().unwrap_or_else(|e| e.into_inner()));
        let writes = sums.into_iter().filter(|(_, delta)| *delta != 0).map(|(what, delta)| {
            let table = self.table.clone();
            async move {
                let update = Update::new().add(what.1, delta);
                let written = table.update(&what.0, update, None).await;
                (what, delta, written)
            }
        });
        let mut failed = HashMap::new();
        let mut error = None;
        for (what, delta, written) in join_all(writes).await {
            if let Err(e) = written {
                failed.insert(what, delta);
                error = Some(e);
            }
        }
        self.keep(failed);
        error.map_or(Ok(()), Err)
    }
}

#[cfg(all(test, feature = "embedded"))]
mod tests {
    use super::*;
    use crate::ports::table::{embedded::SqliteTable, AttributeValue, Item};

    fn number(item: &Item, attribute: &str) -> Option<i64> {
        match item.get(attribute) {
            Some(AttributeValue::N(n)) => n.parse().ok(),
            _ => None,
        }
    }

    #[tokio::test]
    async fn a_buffered_tally_writes_its_sums_on_flush_only() {
        let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
        let tally = Buffered::start(table.clone(), Duration::from_secs(3600));
        let key = Key::new("VIEWS#01", "0000000000000001");
        for delta in [1, 1, 1, -1] {
            tally.add(key.clone(), "views", delta).await.unwrap();
        }
        assert!(table.get(&key).await.unwrap().is_none(), "nothing written before a flush");
        tally.flush().await.unwrap();
        assert_eq!(number(&table.get(&key).await.unwrap().unwrap(), "views"), Some(2));
        tally.flush().await.unwrap();
        assert_eq!(number(&table.get(&key).await.unwrap().unwrap(), "views"), Some(2));
    }
}
