//! Login throttling, counted twice: per user name and client address (the contract's 5 failures
//! in 15 minutes, so a guesser locks out only their own address) and per user name across every
//! address (a much higher ceiling, against guessing spread over many addresses). An attempt is
//! reserved on both counters before its password is checked, by conditional writes that refuse
//! once a limit is reached: however many guesses arrive at once, no more passwords are checked
//! than the limits allow. A failed attempt stays counted; a successful login ends its address's
//! window and returns its reservation of the name's.
//!
//! The counters are TTL items `LOGINFAIL#<digest of the name>` (sort keys `NAME` and
//! `FROM#<address>`), `expiresAt` ending their window: the name is stored as a digest only (a
//! login may be a password typed into the wrong field), which also bounds the key's length.

use futures::join;
use sha2::{Digest, Sha256};

use blog_core::{
    config::Config,
    ports::table::{
        n, now_epoch_seconds, s, AttributeValue, Condition, Item, Key, Table, TableError, Update,
        TTL,
    },
};

/// The longest login worth a look: an e-mail address has at most 254 characters. A longer one
/// is a wrong login, answered without touching the store.
pub const MAX_LOGIN_CHARS: usize = 254;

/// A short, stable, non-reversible name for a login (also what failed-login logs show).
pub fn digest(name: &str) -> String {
    let hash = Sha256::digest(name.to_lowercase().as_bytes());
    hash.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

fn name_key(name: &str) -> Key {
    Key::new(format!("LOGINFAIL#{}", digest(name)), "NAME")
}

fn address_key(name: &str, address: &str) -> Key {
    Key::new(format!("LOGINFAIL#{}", digest(name)), format!("FROM#{address}"))
}

fn number(item: &Item, attribute: &str) -> i64 {
    match item.get(attribute) {
        Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
        _ => 0,
    }
}

/// An attempt counted on both counters before its password is checked.
#[derive(Debug)]
pub struct Attempt {
    name: Key,
    address: Key,
}

/// What reserving an attempt found.
#[derive(Debug)]
pub enum Reservation {
    /// The attempt may check its password.
    Granted(Attempt),
    /// A limit is reached: no password is checked for this many more seconds.
    Locked {
        /// Seconds until the window that refused the attempt ends.
        retry_after_secs: u64,
    },
}

/// How one counter took an attempt.
enum Counted {
    /// Counted (the window opened with it, or it had room).
    Yes,
    /// Full until the window ends, in this many seconds.
    Full(u64),
}

/// Reserves an attempt to sign in as `name` from `address` (both counters at once).
pub async fn reserve(
    table: &dyn Table,
    config: &Config,
    name: &str,
    address: &str,
) -> Result<Reservation, TableError> {
    let attempt = Attempt { name: name_key(name), address: address_key(name, address) };
    let window = config.login_window.as_secs() as i64;
    let (by_address, by_name) = join!(
        count(table, &attempt.address, config.login_max_failures, window),
        count(table, &attempt.name, config.login_max_failures_per_name, window),
    );
    match (by_address?, by_name?) {
        (Counted::Yes, Counted::Yes) => Ok(Reservation::Granted(attempt)),
        (Counted::Full(wait), Counted::Yes) => {
            give_back(table, &attempt.name).await?;
            Ok(Reservation::Locked { retry_after_secs: wait })
        }
        (Counted::Yes, Counted::Full(wait)) => {
            give_back(table, &attempt.address).await?;
            Ok(Reservation::Locked { retry_after_secs: wait })
        }
        (Counted::Full(a), Counted::Full(b)) => {
            Ok(Reservation::Locked { retry_after_secs: a.max(b) })
        }
    }
}

/// Counts an attempt on the counter `key`, unless `limit` attempts are counted in its window:
/// a new window when there is none (or it ended), else one more in the running one.
async fn count(
    table: &dyn Table,
    key: &Key,
    limit: u32,
    window_secs: i64,
) -> Result<Counted, TableError> {
    for _ in 0..4 {
        let now = now_epoch_seconds();
        let mut opened = Item::default();
        opened.insert("pk".into(), s(&key.pk));
        opened.insert("sk".into(), s(&key.sk));
        opened.insert("failures".into(), n(1));
        opened.insert(TTL.into(), n(now + window_secs));
        match table.put(opened, Some(Condition::NotExists)).await {
            Ok(()) => return Ok(Counted::Yes),
            Err(TableError::ConditionFailed) => {}
            Err(other) => return Err(other),
        }
        let room = Condition::All(vec![
            Condition::Exists,
            Condition::LessThan("failures".into(), i64::from(limit)),
        ]);
        match table.update(key, Update::new().add("failures", 1), Some(room)).await {
            Ok(_) => return Ok(Counted::Yes),
            Err(TableError::ConditionFailed) => {}
            Err(other) => return Err(other),
        }
        // Full, or the window ended between the two writes: look.
        if let Some(item) = table.get(key).await? {
            let ends = number(&item, TTL);
            if number(&item, "failures") >= i64::from(limit) && ends > now {
                return Ok(Counted::Full((ends - now) as u64));
            }
        }
    }
    Err(TableError::Backend(anyhow::anyhow!("login throttle counter kept changing")))
}

/// Returns one reservation of the counter `key`: the window ends when it was the only one
/// counted (so the next attempt opens a window with one write), else the count goes down by
/// one (a window that ended meanwhile has nothing to return).
async fn give_back(table: &dyn Table, key: &Key) -> Result<(), TableError> {
    match table.delete(key, Some(Condition::equals("failures", n(1)))).await {
        Ok(_) => return Ok(()),
        Err(TableError::ConditionFailed) => {}
        Err(other) => return Err(other),
    }
    match table.update(key, Update::new().add("failures", -1), Some(Condition::Exists)).await {
        Ok(_) | Err(TableError::ConditionFailed) => Ok(()),
        Err(other) => Err(other),
    }
}

/// After a successful login: the address's window ends, the name's reservation is returned
/// (failures of other addresses stay counted).
pub async fn succeeded(table: &dyn Table, attempt: &Attempt) -> Result<(), TableError> {
    let (ended, returned) =
        join!(table.delete(&attempt.address, None), give_back(table, &attempt.name));
    ended?;
    returned
}
