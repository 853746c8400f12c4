//! The one-off move of items stored under the earlier index layout into the present one
//! (`blog-gateway migrate-indexes`; docs/data-model.md, "Indexes and who reads them").
//!
//! Before gsi3, the private partitions lived in the indexes that anonymous readers' functions
//! query: drafts and every other article head by status (`ADMIN#`) and users' comments
//! (`UCOMMENTS#`) in gsi2; scheduled drafts (`SCHEDULED`), comments and reports by status
//! (`CSTATUS#`, `RSTATUS#`), file records (`OWNER#`) and, earlier still, accounts (`USERS`) in
//! gsi1. The migration scans gsi1 and gsi2 (an index scan reads only the items the index
//! holds), and moves every item found in a partition that is not public for its index to the
//! index keys the present code writes for it ([`Layout`], computed by the item's feature),
//! with what goes beside it (a scheduled draft's schedule item, a comment's locator in its
//! author's partition). Each move is one conditional write: the index keys and the attributes
//! they derive from must still be as read, so a concurrent writer is never overwritten (the
//! item is read again and the move recomputed). A marker item records the run, so a second
//! run reads one item and stops.

mod layouts;

use futures::{stream, StreamExt, TryStreamExt};

use crate::ports::table::{
    s, AttributeValue, Condition, Index, Item, Key, Scan, Table, TableError, Update, Write,
};
use crate::records;

pub(crate) use layouts::Layout;

/// The marker item of a completed migration.
pub fn marker() -> Key {
    Key::new("MIGRATION#INDEXES", "GSI3")
}

/// Attempts per item when concurrent writers keep changing it.
const ATTEMPTS: usize = 5;

/// Items evaluated per scan page.
const PAGE: u32 = 500;

/// Items moved at once.
const CONCURRENCY: usize = 8;

/// The partitions of gsi1 that anyone may read: the public listings and the search index.
fn public_in_gsi1(partition: &str) -> bool {
    partition == "PUB" || ["PUBCAT#", "PUBTAG#", "WORD#"].iter().any(|p| partition.starts_with(p))
}

/// The partitions of gsi2: article links and vectors (ids, no content).
fn public_in_gsi2(partition: &str) -> bool {
    partition == "VECTORS"
        || ["AUTHOR#", "CATLINK#", "TAGLINK#"].iter().any(|p| partition.starts_with(p))
}

/// Whether the item is in a partition of gsi1 or gsi2 that holds only what that index's
/// readers may see.
pub fn misplaced(item: &Item) -> bool {
    let partition = |index: Index| match item.get(index.key_attributes().0) {
        Some(AttributeValue::S(pk)) if item.contains_key(index.key_attributes().1) => Some(pk),
        _ => None,
    };
    partition(Index::Gsi1).is_some_and(|p| !public_in_gsi1(p))
        || partition(Index::Gsi2).is_some_and(|p| !public_in_gsi2(p))
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// A marker said an earlier run had completed: nothing was read but it.
    pub already_done: bool,
    /// Items moved (each with what goes beside it).
    pub moved: usize,
    /// Items found misplaced that were in place (or gone) when read again: moved by another
    /// writer meanwhile, or seen in an index read that lagged behind the table.
    pub already_in_place: usize,
    /// Misplaced items of a kind the migration does not know (or not readable as their kind),
    /// left as they are; the marker is not written while any is left.
    pub unknown: Vec<Key>,
}

impl Outcome {
    /// What happened, in words (the command's output).
    pub fn summary(&self) -> String {
        if self.already_done {
            return "the indexes were migrated already; nothing to do".into();
        }
        let mut text = format!(
            "moved {} items to the present index layout ({} were in place when read again)",
            self.moved, self.already_in_place
        );
        for key in &self.unknown {
            text += &format!("\nleft alone, of an unknown kind: {key}");
        }
        text
    }
}

/// Moves every misplaced item to the present layout, unless the marker says it was done;
/// then writes the marker (only when no unknown item was left behind).
pub async fn migrate_indexes(table: &dyn Table) -> anyhow::Result<Outcome> {
    if table.get(&marker()).await?.is_some() {
        return Ok(Outcome { already_done: true, ..Outcome::default() });
    }
    // The present layout's index must exist before anything moves into it (on DynamoDB, a
    // query of an index that does not exist yet, or is still being built, is refused).
    let probe = crate::ports::table::Query::partition(Index::Gsi3, "MIGRATION#PROBE").limit(1);
    table.query(probe).await.map_err(|e| {
        anyhow::anyhow!("gsi3 cannot be queried yet ({e}): deploy the template, then run again")
    })?;
    let mut outcome = Outcome::default();
    for index in [Index::Gsi1, Index::Gsi2] {
        let mut scan = Scan::of(index);
        scan.limit = Some(PAGE);
        loop {
            let page = table.scan(scan.clone()).await?;
            let misplaced_items = page.items.into_iter().filter(misplaced);
            let moves: Vec<(Key, Fate)> = stream::iter(misplaced_items)
                .map(|item| move_item(table, item))
                .buffer_unordered(CONCURRENCY)
                .try_collect()
                .await?;
            for (key, moved) in moves {
                match moved {
                    Fate::Moved => outcome.moved += 1,
                    Fate::AlreadyInPlace => outcome.already_in_place += 1,
                    Fate::Unknown => outcome.unknown.push(key),
                }
            }
            match page.next {
                Some(next) => scan.start_after = Some(next),
                None => break,
            }
        }
    }
    if outcome.unknown.is_empty() {
        let mut done = records::key_item(&marker());
        done.insert("completedAt".into(), s(crate::time::now_string()));
        done.insert("moved".into(), crate::ports::table::n(outcome.moved as i64));
        table.put(done, None).await?;
    }
    Ok(outcome)
}

/// What became of one misplaced item.
enum Fate {
    /// Moved by this run.
    Moved,
    /// In place (or gone) when read again.
    AlreadyInPlace,
    /// Of a kind the migration does not know, or not readable as its kind: left as it is.
    Unknown,
}

/// Moves one misplaced item, reading it again whenever a concurrent write got there first.
async fn move_item(table: &dyn Table, item: Item) -> anyhow::Result<(Key, Fate)> {
    let key = Key::of(&item).ok_or_else(|| anyhow::anyhow!("an indexed item without a key"))?;
    let mut current = item;
    for _ in 0..ATTEMPTS {
        let layout = match layouts::of(&current) {
            Ok(Some(layout)) => layout,
            Ok(None) | Err(TableError::Invalid(_)) => return Ok((key, Fate::Unknown)),
            Err(other) => return Err(other.into()),
        };
        let Relocation { update, condition, companions } = relocation(&current, layout);
        let applied = if companions.is_empty() {
            table.update(&key, update, Some(condition)).await.map(|_| ())
        } else {
            let head = Write::Update { key: key.clone(), update, condition: Some(condition) };
            table.transact([vec![head], companions].concat()).await
        };
        match applied {
            Ok(()) => return Ok((key, Fate::Moved)),
            Err(TableError::ConditionFailed) | Err(TableError::TransactionCancelled { .. }) => {
                match table.get(&key).await? {
                    Some(again) if misplaced(&again) => current = again,
                    _ => return Ok((key, Fate::AlreadyInPlace)),
                }
            }
            Err(other) => return Err(other.into()),
        }
    }
    anyhow::bail!("{key} kept changing while it was being moved: run the migration again")
}

/// The index attributes of every index.
fn index_attributes() -> impl Iterator<Item = &'static str> {
    Index::SECONDARY.into_iter().flat_map(|index| {
        let (pk, sk) = index.key_attributes();
        [pk, sk]
    })
}

/// `attribute` is as in `stored` (equal, or absent when it was).
fn as_read(stored: &Item, attribute: &str) -> Condition {
    match stored.get(attribute) {
        Some(value) => Condition::Equals(attribute.into(), value.clone()),
        None => Condition::LacksAttribute(attribute.into()),
    }
}

/// What moves an item: the update of its index attributes, conditioned on them and the
/// layout's guards being as read, and the writes of what goes beside it.
#[derive(Debug)]
struct Relocation {
    update: Update,
    condition: Condition,
    companions: Vec<Write>,
}

/// The relocation that gives `stored` the index keys of `layout`.
fn relocation(stored: &Item, layout: Layout) -> Relocation {
    let mut update = Update::new();
    for attribute in index_attributes() {
        match (stored.get(attribute), layout.target.get(attribute)) {
            (now, Some(wanted)) if now != Some(wanted) => {
                update = update.set(attribute, wanted.clone());
            }
            (Some(_), None) => update = update.remove(attribute),
            _ => {}
        }
    }
    let guards = index_attributes().chain(layout.guards.iter().copied());
    let condition = Condition::All(guards.map(|a| as_read(stored, a)).collect());
    Relocation { update, condition, companions: layout.companions }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(pairs: &[(&str, &str)]) -> Item {
        let mut item = records::key_item(&Key::new("X#1", "X"));
        for (attribute, value) in pairs {
            item.insert((*attribute).into(), s(*value));
        }
        item
    }

    #[test]
    fn only_private_partitions_of_the_earlier_indexes_are_misplaced() {
        for public in ["PUB", "PUBCAT#3", "PUBTAG#4", "WORD#rust"] {
            assert!(!misplaced(&indexed(&[("gsi1pk", public), ("gsi1sk", "1")])), "{public}");
        }
        for public in ["VECTORS", "AUTHOR#1", "CATLINK#3", "TAGLINK#4"] {
            assert!(!misplaced(&indexed(&[("gsi2pk", public), ("gsi2sk", "1")])), "{public}");
        }
        for private in ["SCHEDULED", "CSTATUS#PENDING", "RSTATUS#OPEN", "OWNER#2", "USERS"] {
            assert!(misplaced(&indexed(&[("gsi1pk", private), ("gsi1sk", "1")])), "{private}");
        }
        for private in ["ADMIN#0", "UCOMMENTS#2"] {
            assert!(misplaced(&indexed(&[("gsi2pk", private), ("gsi2sk", "1")])), "{private}");
        }
        assert!(!misplaced(&indexed(&[("gsi3pk", "ADMIN#0"), ("gsi3sk", "1")])));
        assert!(!misplaced(&indexed(&[("gsi1pk", "USERS")])), "in no index without its sort key");
    }

    #[test]
    fn a_move_sets_the_new_keys_removes_the_old_and_is_conditioned_on_what_was_read() {
        let stored = indexed(&[("gsi2pk", "ADMIN#0"), ("gsi2sk", "7"), ("status", "0")]);
        let target = indexed(&[("gsi3pk", "ADMIN#0"), ("gsi3sk", "7")]);
        let layout = Layout { target, guards: &["status"], companions: vec![] };
        let Relocation { update, condition, companions } = relocation(&stored, layout);
        assert!(companions.is_empty());
        let Condition::All(conditions) = condition else { panic!("{condition:?}") };
        assert_eq!(update.set, [("gsi3pk".into(), s("ADMIN#0")), ("gsi3sk".into(), s("7"))]);
        assert_eq!(update.remove, ["gsi2pk", "gsi2sk"]);
        assert!(conditions.contains(&Condition::equals("gsi2pk", s("ADMIN#0"))));
        assert!(conditions.contains(&Condition::LacksAttribute("gsi3pk".into())));
        assert!(conditions.contains(&Condition::equals("status", s("0"))));
    }
}
