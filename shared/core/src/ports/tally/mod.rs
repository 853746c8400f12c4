//! The tally port: additions to numeric attributes of table items (ADD) made at most once per
//! marker while the marker lasts, and only while a condition on another item holds (a view
//! counted once per reader and article in 30 minutes, on a visible article), where the
//! features do not need the sum back.
//!
//! An addition ([`Once`]) is one transaction ([`commit`]): the check of the guard, the Put of
//! the marker (on condition that none lasts: a marker past its TTL counts as absent) and the
//! ADD. A cancelled transaction writes nothing. Two adapters:
//!
//! - [`Direct`] (Lambda): the transaction is made when asked, so the caller can make it
//!   together with its other calls and wait for it (nothing runs after a Lambda answer, so a
//!   write left for later could be lost);
//! - [`Buffered`] (the local gateway): additions are kept in memory and committed every few
//!   seconds and when the process stops ([`Tally::flush`]), as the same transactions; a write
//!   per addition would change the table at every counted read and so drop the kept answers
//!   ([`crate::http::answers`]) each time.
//!
//! Both remember the markers they wrote or found ([`seen`]), so an addition repeated within
//! its marker's life costs no call at all.
//!
//! The port knows keys, conditions and attribute names only; features decide what they count.

mod seen;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, Weak},
    time::Duration,
};

use async_trait::async_trait;
use futures::{stream, StreamExt};

use super::table::{
    n, now_epoch_seconds, refused_by, s, Condition, Item, Key, Table, TableError, Transaction,
    Update, Write, PK, SK, TTL,
};

pub use seen::Seen;

/// An addition made at most once per marker while it lasts.
#[derive(Clone, Debug)]
pub struct Once {
    /// The marker: written with the addition; while it lasts, the addition is not made again.
    pub marker: Key,
    /// Seconds the marker lasts from the addition (its TTL).
    pub lasts_secs: i64,
    /// A condition on another item that the addition needs, checked in its transaction.
    pub guard: Option<(Key, Condition)>,
    /// The item added to (created when absent).
    pub key: Key,
    /// The numeric attribute added to.
    pub attribute: &'static str,
    /// The amount added.
    pub delta: i64,
}

/// What became of an addition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Written now, with its marker ([`Direct`]).
    Added,
    /// Kept for the next flush, which commits it as [`Direct`] would ([`Buffered`]).
    Kept,
    /// Made before, and its marker still lasts: nothing written.
    Repeated,
    /// The guard did not hold: nothing written.
    Refused,
    /// Not kept: too many additions wait for the next flush ([`Buffered`], under a flood of
    /// distinct markers).
    Dropped,
}

/// Additions made once per marker.
#[async_trait]
pub trait Tally: Send + Sync + 'static {
    /// Makes the addition `once` unless its marker lasts: written when the future ends
    /// ([`Direct`]) or kept for the next flush ([`Buffered`]).
    async fn add_once(&self, once: Once) -> Result<Outcome, TableError>;

    /// Whether [`Tally::add_once`] waits for the store (a round trip): the caller then makes it
    /// together with its other calls. When it does not, it costs nothing wherever it is made.
    fn waits_for_the_store(&self) -> bool;

    /// Writes what is kept (nothing to do for [`Direct`]).
    async fn flush(&self) -> Result<(), TableError> {
        Ok(())
    }
}

/// Commits the addition `once` as one transaction, its marker lasting from `now`: the guard's
/// check, the marker's Put (on condition that none lasts) and the ADD; all or nothing.
pub async fn commit(table: &dyn Table, once: &Once, now: i64) -> Result<Outcome, TableError> {
    let mut writes = Transaction::new();
    if let Some((key, condition)) = &once.guard {
        writes.push("guard", Write::Check { key: key.clone(), condition: condition.clone() });
    }
    let mut marker = Item::default();
    marker.insert(PK.into(), s(&once.marker.pk));
    marker.insert(SK.into(), s(&once.marker.sk));
    marker.insert(TTL.into(), n(now + once.lasts_secs));
    writes.push("marker", Write::Put { item: marker, condition: Some(Condition::NotExists) });
    let update = Update::new().add(once.attribute, once.delta);
    writes.push("addition", Write::Update { key: once.key.clone(), update, condition: None });
    match writes.commit(table).await {
        Ok(()) => Ok(Outcome::Added),
        Err(error) if refused_by(&error, "guard") => Ok(Outcome::Refused),
        Err(error) if refused_by(&error, "marker") => Ok(Outcome::Repeated),
        Err(TableError::Refused { failed }) => {
            let error = anyhow::anyhow!("an unconditional ADD was refused: {failed:?}");
            Err(TableError::Backend(error))
        }
        Err(other) => Err(other),
    }
}

/// How long [`Direct`] remembers a marker it found lasting (it does not know until when): a
/// repeated addition costs no call for that long, and one made just after the marker ended is
/// refused at most that long.
const FOUND_MARKER_SECS: i64 = 60;

/// Markers [`Direct`] remembers (per Lambda instance).
const DIRECT_MARKERS: usize = 10_000;

/// One transaction per addition, made when asked.
pub struct Direct {
    table: Arc<dyn Table>,
    seen: Seen,
}

impl Direct {
    /// Additions written to `table` as they come.
    pub fn new(table: Arc<dyn Table>) -> Self {
        Self { table, seen: Seen::new(DIRECT_MARKERS) }
    }
}

#[async_trait]
impl Tally for Direct {
    async fn add_once(&self, once: Once) -> Result<Outcome, TableError> {
        let now = now_epoch_seconds();
        if self.seen.lasts(&once.marker, now) {
            return Ok(Outcome::Repeated);
        }
        let outcome = commit(self.table.as_ref(), &once, now).await?;
        match outcome {
            Outcome::Added => self.seen.remember(once.marker, now + once.lasts_secs),
            Outcome::Repeated => {
                let until = now + once.lasts_secs.min(FOUND_MARKER_SECS);
                self.seen.remember(once.marker, until);
            }
            Outcome::Kept | Outcome::Refused | Outcome::Dropped => {}
        }
        Ok(outcome)
    }

    fn waits_for_the_store(&self) -> bool {
        true
    }
}

/// Markers [`Buffered`] remembers, and additions it keeps at most between two flushes (past
/// that, under a flood of distinct markers, further ones are dropped with a warning).
const BUFFERED_MARKERS: usize = 100_000;
/// Transactions a flush makes at once.
const FLUSH_CONCURRENCY: usize = 8;

/// Additions kept in memory and committed by [`Tally::flush`]: by its own task every `every`
/// (as long as the tally lives) and by the process when it stops.
pub struct Buffered {
    table: Arc<dyn Table>,
    seen: Seen,
    pending: Mutex<HashMap<Key, Once>>,
}

impl Buffered {
    /// A buffered tally on `table`, flushed every `every` by a task of the current runtime.
    pub fn start(table: Arc<dyn Table>, every: Duration) -> Arc<Self> {
        let tally = Arc::new(Self {
            table,
            seen: Seen::new(BUFFERED_MARKERS),
            pending: Mutex::new(HashMap::new()),
        });
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

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Once>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl Tally for Buffered {
    async fn add_once(&self, once: Once) -> Result<Outcome, TableError> {
        let now = now_epoch_seconds();
        if !self.seen.admit(&once.marker, now, now + once.lasts_secs) {
            return Ok(Outcome::Repeated);
        }
        let mut pending = self.pending();
        if pending.len() >= BUFFERED_MARKERS {
            tracing::warn!(marker = %once.marker, "too many additions kept; this one is dropped");
            return Ok(Outcome::Dropped);
        }
        pending.insert(once.marker.clone(), once);
        Ok(Outcome::Kept)
    }

    fn waits_for_the_store(&self) -> bool {
        false
    }

    /// Commits every kept addition (a few at a time); one whose transaction fails is kept for
    /// the next flush.
    async fn flush(&self) -> Result<(), TableError> {
        let kept: Vec<Once> = std::mem::take(&mut *self.pending()).into_values().collect();
        let now = now_epoch_seconds();
        let table = self.table.as_ref();
        let commits = stream::iter(kept).map(|once| async move {
            let outcome = commit(table, &once, now).await;
            (once, outcome)
        });
        let done: Vec<_> = commits.buffer_unordered(FLUSH_CONCURRENCY).collect().await;
        let mut error = None;
        for (once, outcome) in done {
            if let Err(e) = outcome {
                self.pending().entry(once.marker.clone()).or_insert(once);
                error = Some(e);
            }
        }
        error.map_or(Ok(()), Err)
    }
}

#[cfg(all(test, feature = "embedded"))]
mod tests;
