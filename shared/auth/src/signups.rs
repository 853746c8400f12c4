//! Registrations per client address: at most `BLOG_REGISTRATION_LIMIT` accounts per address per
//! hour, so that throwaway accounts cannot multiply the per-user limits (comments, edits,
//! reports).
//!
//! The counter is the TTL item `SIGNUPS#<digest of the address>`/`FROM` (the address is stored
//! as a digest only), `accounts` the accounts registered in its window, `expiresAt` the window's
//! end: a fixed hour from the first registration. It is written in the new account's own
//! transaction ([`blog_users::repo::create`]) on condition that it has room, so a
//! registration refused for a taken name or e-mail uses none of the allowance, and however many
//! registrations arrive at once, no more accounts are created than the limit. Before the
//! password is hashed, one read refuses an address already at its limit.

use sha2::{Digest, Sha256};

use blog_core::ports::table::{
    n, now_epoch_seconds, s, AttributeValue, Condition, Item, Key, Table, TableError, Update,
    Write, TTL,
};

/// The window of the limit: an hour from the first registration counted in it.
pub const WINDOW_SECS: i64 = 3600;
/// The counter's attribute: accounts registered in the window.
const ACCOUNTS: &str = "accounts";

/// The counter of the client address `address`.
fn counter_key(address: &str) -> Key {
    let hash = Sha256::digest(format!("signups\0{address}").as_bytes());
    let digest: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    Key::new(format!("SIGNUPS#{digest}"), "FROM")
}

fn number(item: &Item, attribute: &str) -> i64 {
    match item.get(attribute) {
        Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
        _ => 0,
    }
}

/// What the counter of an address allows now.
#[derive(Debug)]
pub enum Allowance {
    /// One more account may be registered: write this with it.
    Room(Slot),
    /// The limit is reached: no account from this address for this many more seconds.
    Full {
        /// Seconds until the window ends.
        retry_after_secs: u64,
    },
}

/// One registration's place on its address's counter, written in the account's transaction.
#[derive(Debug)]
pub struct Slot {
    key: Key,
    limit: u32,
    /// Whether the window is running (else this registration opens one).
    running: bool,
}

impl Slot {
    /// The write that counts the registration: a new window (on condition there is none, or it
    /// ended), or one more in the running one (on condition it is still running and has room).
    pub fn write(&self) -> Write {
        if self.running {
            let room = Condition::All(vec![
                Condition::Exists,
                Condition::LessThan(ACCOUNTS.into(), i64::from(self.limit)),
            ]);
            Write::Update {
                key: self.key.clone(),
                update: Update::new().add(ACCOUNTS, 1),
                condition: Some(room),
            }
        } else {
            let mut item = Item::default();
            item.insert("pk".into(), s(&self.key.pk));
            item.insert("sk".into(), s(&self.key.sk));
            item.insert(ACCOUNTS.into(), n(1));
            item.insert(TTL.into(), n(now_epoch_seconds() + WINDOW_SECS));
            Write::Put { item, condition: Some(Condition::NotExists) }
        }
    }
}

/// Reads what the counter of `address` allows under `limit` (one GetItem): before the password
/// is hashed, and again when the counter changed between that read and the account's write.
pub async fn allowance(
    table: &dyn Table,
    limit: u32,
    address: &str,
) -> Result<Allowance, TableError> {
    let key = counter_key(address);
    let Some(item) = table.get(&key).await? else {
        return Ok(Allowance::Room(Slot { key, limit, running: false }));
    };
    let (accounts, ends) = (number(&item, ACCOUNTS), number(&item, TTL));
    if accounts >= i64::from(limit) {
        let retry_after_secs = (ends - now_epoch_seconds()).clamp(1, WINDOW_SECS) as u64;
        return Ok(Allowance::Full { retry_after_secs });
    }
    Ok(Allowance::Room(Slot { key, limit, running: true }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::ports::table::embedded::SqliteTable;

    async fn register(table: &dyn Table, limit: u32, address: &str) -> bool {
        match allowance(table, limit, address).await.unwrap() {
            Allowance::Room(slot) => table.transact(vec![slot.write()]).await.is_ok(),
            Allowance::Full { .. } => false,
        }
    }

    #[tokio::test]
    async fn an_address_registers_up_to_the_limit_and_another_is_not_counted() {
        let table = SqliteTable::in_memory().unwrap();
        for _ in 0..3 {
            assert!(register(&table, 3, "192.0.2.1").await);
        }
        assert!(!register(&table, 3, "192.0.2.1").await);
        match allowance(&table, 3, "192.0.2.1").await.unwrap() {
            Allowance::Full { retry_after_secs } => {
                assert!((3590..=3600).contains(&retry_after_secs), "{retry_after_secs}")
            }
            other => panic!("{other:?}"),
        }
        assert!(register(&table, 3, "192.0.2.2").await);
    }

    #[tokio::test]
    async fn a_slot_whose_counter_changed_meanwhile_is_refused() {
        let table = SqliteTable::in_memory().unwrap();
        let Allowance::Room(first) = allowance(&table, 1, "192.0.2.1").await.unwrap() else {
            panic!("room")
        };
        let Allowance::Room(second) = allowance(&table, 1, "192.0.2.1").await.unwrap() else {
            panic!("room")
        };
        table.transact(vec![first.write()]).await.unwrap();
        assert!(table.transact(vec![second.write()]).await.is_err(), "the window opened meanwhile");
        let Allowance::Full { .. } = allowance(&table, 1, "192.0.2.1").await.unwrap() else {
            panic!("full")
        };
    }

    #[tokio::test]
    async fn a_window_that_ended_opens_a_new_one() {
        let table = SqliteTable::in_memory().unwrap();
        let key = counter_key("192.0.2.1");
        let mut ended = Item::default();
        ended.insert("pk".into(), s(&key.pk));
        ended.insert("sk".into(), s(&key.sk));
        ended.insert(ACCOUNTS.into(), n(5));
        ended.insert(TTL.into(), n(now_epoch_seconds() - 1));
        table.put(ended, None).await.unwrap();
        assert!(register(&table, 5, "192.0.2.1").await, "an hour later the address registers");
        let item = table.get(&key).await.unwrap().unwrap();
        assert_eq!(number(&item, ACCOUNTS), 1);
    }

    #[test]
    fn the_address_is_stored_as_a_digest() {
        let key = counter_key("192.0.2.1");
        assert!(!key.pk.contains("192"), "{key}");
        assert_eq!(key.pk.len(), "SIGNUPS#".len() + 32);
        assert_ne!(counter_key("192.0.2.2"), key);
    }
}
