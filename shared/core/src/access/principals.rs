//! The per-process cache of account status behind every token check.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// What a token check needs of an account: its name, roles and whether it is active.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// User name.
    pub username: String,
    /// Current roles.
    pub roles: Vec<String>,
    /// Whether the account may use tokens.
    pub active: bool,
}

/// Per-process cache of account status, so a token check costs no read most of the time.
pub struct PrincipalCache {
    ttl: Duration,
    entries: Mutex<HashMap<u64, (Instant, Option<Snapshot>)>>,
}

impl PrincipalCache {
    /// A cache whose entries live `ttl` (zero disables it).
    pub fn new(ttl: Duration) -> Self {
        Self { ttl, entries: Mutex::new(HashMap::new()) }
    }

    /// Forgets an account (after it was changed or deleted in this process).
    pub fn invalidate(&self, id: u64) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(&id);
        }
    }

    /// The account's status as cached: `Some(None)` for an account known to be absent, `None`
    /// when nothing (or only an expired entry) is cached.
    pub fn get(&self, id: u64) -> Option<Option<Snapshot>> {
        let entries = self.entries.lock().ok()?;
        let (at, snapshot) = entries.get(&id)?;
        (at.elapsed() < self.ttl).then(|| snapshot.clone())
    }

    /// Caches an account's status (`None`: no such account) for the cache's lifetime.
    pub fn put(&self, id: u64, snapshot: Option<Snapshot>) {
        if self.ttl.is_zero() {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= 10_000 {
                let ttl = self.ttl;
                entries.retain(|_, (at, _)| at.elapsed() < ttl);
            }
            entries.insert(id, (Instant::now(), snapshot));
        }
    }
}
