//! Entity ids: one atomic counter item per kind, so ids are small, unique across every Lambda
//! instance, and always within the 53 bits a JavaScript client reads exactly.

use crate::ports::table::{AttributeValue, Key, Table, TableError, Update};

/// Largest id any entity may have: every id fits in 53 bits (JavaScript-safe).
pub const MAX_ID: u64 = 9_007_199_254_740_991;

/// Kinds of entity that draw ids.
#[derive(Clone, Copy, Debug)]
pub enum IdKind {
    /// User accounts.
    User,
    /// Categories.
    Category,
    /// Tags.
    Tag,
    /// Articles.
    Article,
    /// File records.
    File,
    /// Comments.
    Comment,
    /// Comment reports.
    Report,
}

impl IdKind {
    fn key(self) -> Key {
        let kind = match self {
            IdKind::User => "USER",
            IdKind::Category => "CATEGORY",
            IdKind::Tag => "TAG",
            IdKind::Article => "ARTICLE",
            IdKind::File => "FILE",
            IdKind::Comment => "COMMENT",
            IdKind::Report => "REPORT",
        };
        Key::new(format!("COUNTER#{kind}"), "COUNTER")
    }
}

/// Draws the next id of `kind` (one UpdateItem).
pub async fn next_id(table: &dyn Table, kind: IdKind) -> Result<u64, TableError> {
    let item = table.update(&kind.key(), Update::new().add("value", 1), None).await?;
    match item.get("value") {
        Some(AttributeValue::N(n)) => n
            .parse::<u64>()
            .ok()
            .filter(|id| *id <= MAX_ID)
            .ok_or_else(|| TableError::Invalid(format!("id counter out of range: {n}"))),
        _ => Err(TableError::Invalid("id counter has no numeric value".into())),
    }
}

/// The last id drawn of `kind`, 0 when none was (one GetItem; draws nothing).
pub async fn current_id(table: &dyn Table, kind: IdKind) -> Result<u64, TableError> {
    match table.get(&kind.key()).await? {
        Some(item) => match item.get("value") {
            Some(AttributeValue::N(n)) => n
                .parse::<u64>()
                .map_err(|_| TableError::Invalid(format!("id counter out of range: {n}"))),
            _ => Ok(0),
        },
        None => Ok(0),
    }
}
