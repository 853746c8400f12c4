//! Storage of accounts on the table port.
//!
//! Items: `USER#<id>`/`PROFILE` (the account, in no index), and one marker
//! item per unique value, `USERNAME#<lower name>`/`USERNAME` and `EMAIL#<lower e-mail>`/`EMAIL`,
//! written in the same transaction as the account so uniqueness holds under concurrency.

use blog_core::{
    ids::{next_id, IdKind},
    ports::table::{
        n, refused_by, s, AttributeValue, Condition, Item, Key, Table, TableError, Transaction,
        Write,
    },
    records::{self, key_item},
};

use super::model::StoredUser;

/// Why an account could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another account has this user name.
    #[error("username is already taken")]
    UsernameTaken,
    /// Another account has this e-mail.
    #[error("email is already registered")]
    EmailTaken,
    /// The account changed or vanished meanwhile.
    #[error("account was changed concurrently")]
    Concurrent,
    /// The condition of the write that came with a new account did not hold.
    #[error("the write that came with the account was refused")]
    ExtraRefused,
    /// The table failed.
    #[error(transparent)]
    Table(#[from] TableError),
}

fn user_key(id: u64) -> Key {
    Key::new(format!("USER#{id}"), "PROFILE")
}

fn username_key(username: &str) -> Key {
    Key::new(format!("USERNAME#{}", username.to_lowercase()), "USERNAME")
}

fn email_key(email: &str) -> Key {
    Key::new(format!("EMAIL#{}", email.to_lowercase()), "EMAIL")
}

fn marker(key: Key, user_id: u64) -> Item {
    let mut item = key_item(&key);
    item.insert("userId".into(), n(user_id as i64));
    item
}

/// An account as stored: by its key only, in no index (no read lists accounts, and an index
/// would show its password hash to every role that may query that index).
fn to_item(user: &StoredUser) -> Result<Item, TableError> {
    records::to_item(user, &user_key(user.id))
}

/// Draws a new account id.
pub async fn new_id(table: &dyn Table) -> Result<u64, TableError> {
    next_id(table, IdKind::User).await
}

/// Stores a new account and its markers in one transaction, with `extra` when given (the
/// registration's count on its address's counter): all or nothing.
pub async fn create(
    table: &dyn Table,
    user: &StoredUser,
    extra: Option<Write>,
) -> Result<(), StoreError> {
    let mut writes = Transaction::new()
        .with("account", Write::Put { item: to_item(user)?, condition: Some(Condition::NotExists) })
        .with(
            "user name",
            Write::Put {
                item: marker(username_key(&user.username), user.id),
                condition: Some(Condition::NotExists),
            },
        )
        .with(
            "e-mail",
            Write::Put {
                item: marker(email_key(&user.email), user.id),
                condition: Some(Condition::NotExists),
            },
        );
    writes.extend("extra", extra);
    match writes.commit(table).await {
        Ok(()) => Ok(()),
        Err(error @ TableError::Refused { .. }) => Err(if refused_by(&error, "user name") {
            StoreError::UsernameTaken
        } else if refused_by(&error, "e-mail") {
            StoreError::EmailTaken
        } else if refused_by(&error, "extra") {
            StoreError::ExtraRefused
        } else {
            StoreError::Concurrent
        }),
        Err(other) => Err(other.into()),
    }
}

/// Reads an account by id.
pub async fn find_by_id(table: &dyn Table, id: u64) -> Result<Option<StoredUser>, TableError> {
    table.get(&user_key(id)).await?.map(records::from_item).transpose()
}

/// Reads an account by user name or e-mail (both case-insensitive).
pub async fn find_by_login(
    table: &dyn Table,
    name_or_email: &str,
) -> Result<Option<StoredUser>, TableError> {
    let key = if name_or_email.contains('@') {
        email_key(name_or_email.trim())
    } else {
        username_key(name_or_email)
    };
    let Some(marker) = table.get(&key).await? else {
        return Ok(None);
    };
    match marker.get("userId") {
        Some(AttributeValue::N(id)) => match id.parse() {
            Ok(id) => find_by_id(table, id).await,
            Err(_) => Err(TableError::Invalid(format!("marker {key} has a bad userId"))),
        },
        _ => Err(TableError::Invalid(format!("marker {key} has no userId"))),
    }
}

/// Replaces an account with its changed version, moving the e-mail marker when the e-mail
/// changed, with `extra` writes that must land with it (an outbox event); refused when the
/// stored account is no longer `before`.
pub async fn replace(
    table: &dyn Table,
    before: &StoredUser,
    after: &StoredUser,
    extra: Vec<Write>,
) -> Result<(), StoreError> {
    let unchanged = Condition::All(vec![
        Condition::equals("updateTime", s(&before.update_time)),
        Condition::equals("email", s(&before.email)),
    ]);
    let mut writes = Transaction::new()
        .with("account", Write::Put { item: to_item(after)?, condition: Some(unchanged) });
    if before.email.to_lowercase() != after.email.to_lowercase() {
        writes.push(
            "new e-mail",
            Write::Put {
                item: marker(email_key(&after.email), after.id),
                condition: Some(Condition::NotExists),
            },
        );
        writes.push(
            "old e-mail",
            Write::Delete {
                key: email_key(&before.email),
                condition: Some(Condition::equals("userId", n(before.id as i64))),
            },
        );
    }
    writes.extend("extra", extra);
    match writes.commit(table).await {
        Ok(()) => Ok(()),
        // Taken by another account, while this one was as read.
        Err(TableError::Refused { failed }) if failed == ["new e-mail"] => {
            Err(StoreError::EmailTaken)
        }
        Err(TableError::Refused { .. }) => Err(StoreError::Concurrent),
        Err(other) => Err(other.into()),
    }
}

/// Deletes an account and frees its user name and e-mail.
pub async fn delete(table: &dyn Table, user: &StoredUser) -> Result<(), StoreError> {
    let owned = || Some(Condition::equals("userId", n(user.id as i64)));
    let writes = vec![
        Write::Delete { key: user_key(user.id), condition: Some(Condition::Exists) },
        Write::Delete { key: username_key(&user.username), condition: owned() },
        Write::Delete { key: email_key(&user.email), condition: owned() },
    ];
    match table.transact(writes).await {
        Ok(()) => Ok(()),
        Err(TableError::TransactionCancelled { .. }) => Err(StoreError::Concurrent),
        Err(other) => Err(other.into()),
    }
}
