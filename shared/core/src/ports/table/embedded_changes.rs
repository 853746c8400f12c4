//! [`Changes`]: how the embedded table tells that something was committed (its
//! [`change_stamp`](super::Table::change_stamp)).
//!
//! The writer counts its own commits, before the write is acknowledged. A table in a file may
//! also be written by other processes: their commits show in SQLite's `PRAGMA data_version` on
//! a connection that does nothing else. Reading it takes the WAL's shared-memory lock (`fcntl`
//! calls), a tenth of the gateway's work per kept answer when read on every request, so it is
//! read at most once per [`WATCH_INTERVAL`].

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

/// How long another process's commit may go unseen at most.
pub(super) const WATCH_INTERVAL: Duration = Duration::from_millis(20);

/// The source of an embedded table's change stamp.
pub(super) struct Changes {
    /// Commits of this table's writer.
    commits: AtomicU64,
    /// Changes of `data_version` seen so far (a table in a file).
    seen: AtomicU64,
    watcher: Option<Mutex<Watcher>>,
}

/// A connection of its own reading `data_version`, and what it read last.
struct Watcher {
    conn: Connection,
    version: i64,
    read_at: Instant,
}

impl Changes {
    /// Changes of a private in-memory table: only its own commits.
    pub(super) fn counted() -> Self {
        Self { commits: AtomicU64::new(0), seen: AtomicU64::new(0), watcher: None }
    }

    /// Changes of the table in the file at `path`, whoever writes it.
    pub(super) fn watched(path: &Path) -> rusqlite::Result<Self> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        let version = data_version(&conn)?;
        let watcher = Watcher { conn, version, read_at: Instant::now() };
        Ok(Self { watcher: Some(Mutex::new(watcher)), ..Self::counted() })
    }

    /// Called by the writer once a transaction has been committed.
    pub(super) fn committed(&self) {
        self.commits.fetch_add(1, Ordering::SeqCst);
    }

    /// The current stamp: it changes at once with this table's commits, and within
    /// [`WATCH_INTERVAL`] with another process's. `None` when `data_version` cannot be read.
    pub(super) fn stamp(&self) -> Option<u64> {
        if let Some(mut watcher) = self.watcher.as_ref().and_then(|w| w.try_lock().ok()) {
            if watcher.read_at.elapsed() >= WATCH_INTERVAL {
                match data_version(&watcher.conn) {
                    Ok(version) if version != watcher.version => {
                        watcher.version = version;
                        self.seen.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(%error, "reading the table's data_version failed");
                        return None;
                    }
                }
                watcher.read_at = Instant::now();
            }
        }
        Some(self.commits.load(Ordering::SeqCst) + self.seen.load(Ordering::SeqCst))
    }
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("PRAGMA data_version")?.query_row([], |row| row.get(0))
}
