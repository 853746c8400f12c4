//! The index layout the present code writes for each kind of item that the earlier layout kept
//! in a private partition of gsi1 or gsi2, computed by the item's own feature from the record.

use crate::ports::table::{Item, Key, TableError, Update, Write};
use crate::{articles, comments, files, records};

/// The index keys the present code writes for a stored item, and what goes with them.
#[derive(Debug)]
pub(crate) struct Layout {
    /// The item as the present code writes it (only its index attributes are used).
    pub target: Item,
    /// The attributes its index keys derive from: the move is conditioned on them being as
    /// read (besides the index attributes themselves).
    pub guards: &'static [&'static str],
    /// Writes of the items the present layout keeps beside it, in the same transaction.
    pub companions: Vec<Write>,
}

/// The present layout of `stored` (`None` for a kind of item the migration does not know).
pub(super) fn of(stored: &Item) -> Result<Option<Layout>, TableError> {
    let Some(key) = Key::of(stored) else { return Ok(None) };
    let kind = key.pk.split_once('#').map_or(key.pk.as_str(), |(kind, _)| kind);
    let item = stored.clone();
    let layout = match (kind, key.sk.as_str()) {
        ("ARTICLE", "A#HEAD") => {
            let (target, schedule) = articles::store::head_and_schedule(item)?;
            // Unconditional: the head's condition, in the same transaction, guards it.
            let companions = schedule.map(|item| Write::Put { item, condition: None });
            Layout {
                target,
                guards: &["version", "status", "isDeleted", "scheduledAt"],
                companions: companions.into_iter().collect(),
            }
        }
        ("COMMENTS", sk) if sk.starts_with("C#") => {
            let (target, locator) = comments::comment_and_locator(item)?;
            Layout { target, guards: &["status"], companions: vec![update_of(locator)?] }
        }
        ("REPORT", "REPORT") => {
            Layout { target: comments::report_item(item)?, guards: &["status"], companions: vec![] }
        }
        ("FILE", "META") => {
            let record: files::model::FileRecord = records::from_item(item)?;
            let target = if record.deleted {
                records::key_item(&key)
            } else {
                files::repo::record_item(&record)?
            };
            Layout { target, guards: &["deleted"], companions: vec![] }
        }
        // Accounts are in no index.
        ("USER", "PROFILE") => {
            Layout { target: records::key_item(&key), guards: &[], companions: vec![] }
        }
        _ => return Ok(None),
    };
    Ok(Some(layout))
}

/// An unconditional UpdateItem that sets every attribute of `item` but its key: the values are
/// facts of the record that never change (a comment's locator), so it may create the item.
fn update_of(item: Item) -> Result<Write, TableError> {
    let key = Key::of(&item).ok_or_else(|| TableError::Invalid("an item without a key".into()))?;
    let mut update = Update::new();
    for (attribute, value) in item.into_inner() {
        if attribute != crate::ports::table::PK && attribute != crate::ports::table::SK {
            update = update.set(attribute, value);
        }
    }
    Ok(Write::Update { key, update, condition: None })
}
