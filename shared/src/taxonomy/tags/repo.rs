//! Storage of tags: every tag in partition `TAGS` (every list order is one Query, sorted in
//! memory) and slug markers written in the same transaction as the tag.

use crate::{
    ids::{next_id, IdKind},
    ports::table::{n, s, Condition, Index, Key, Query, Table, TableError, Update, Write},
    records::{self, key_item, number, query_all},
};

use super::model::TagRecord;

const PARTITION: &str = "TAGS";

/// Key of a tag item.
pub fn tag_key(id: u64) -> Key {
    Key::new(PARTITION, format!("TAG#{id:016}"))
}

fn slug_key(slug: &str) -> Key {
    Key::new(format!("TAGSLUG#{slug}"), "TAGSLUG")
}

/// Why a tag write was refused.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The slug belongs to another tag.
    #[error("slug is already used by another tag")]
    SlugTaken,
    /// The tag vanished meanwhile.
    #[error("tag does not exist")]
    Missing,
    /// An article took the tag while it was being deleted.
    #[error("tag was given to an article meanwhile")]
    InUse,
    /// The table failed.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Reads every tag (one Query).
pub async fn all(table: &dyn Table) -> Result<Vec<TagRecord>, TableError> {
    let items = query_all(table, Query::partition(Index::Primary, PARTITION)).await?;
    items.into_iter().map(records::from_item).collect()
}

/// Reads one tag by id.
pub async fn find(table: &dyn Table, id: u64) -> Result<Option<TagRecord>, TableError> {
    table.get(&tag_key(id)).await?.map(records::from_item).transpose()
}

/// Reads one tag by slug (marker, then tag).
pub async fn find_by_slug(table: &dyn Table, slug: &str) -> Result<Option<TagRecord>, TableError> {
    let Some(marker) = table.get(&slug_key(slug)).await? else {
        return Ok(None);
    };
    match number(&marker, "tagId") {
        Some(id) => find(table, id as u64).await,
        None => Ok(None),
    }
}

/// Draws a tag id.
pub async fn new_id(table: &dyn Table) -> Result<u64, TableError> {
    next_id(table, IdKind::Tag).await
}

fn slug_marker(slug: &str, id: u64) -> Write {
    let mut item = key_item(&slug_key(slug));
    item.insert("tagId".into(), n(id as i64));
    Write::Put { item, condition: Some(Condition::NotExists) }
}

async fn commit(
    table: &dyn Table,
    writes: Vec<Write>,
    slug_at: Option<usize>,
) -> Result<(), WriteError> {
    match table.transact(writes).await {
        Ok(()) => Ok(()),
        Err(TableError::TransactionCancelled { failed })
            if slug_at.is_some_and(|i| failed.contains(&i)) =>
        {
            Err(WriteError::SlugTaken)
        }
        Err(TableError::TransactionCancelled { .. }) => Err(WriteError::Missing),
        Err(other) => Err(other.into()),
    }
}

/// Stores a new tag and its slug marker.
pub async fn create(table: &dyn Table, tag: &TagRecord) -> Result<(), WriteError> {
    let writes = vec![
        Write::Put {
            item: records::to_item(tag, &tag_key(tag.id))?,
            condition: Some(Condition::NotExists),
        },
        slug_marker(&tag.slug, tag.id),
    ];
    commit(table, writes, Some(1)).await
}

/// Changes a tag's own fields (never its counters, which articles move concurrently).
pub async fn update(
    table: &dyn Table,
    before: &TagRecord,
    after: &TagRecord,
) -> Result<(), WriteError> {
    let update = Update::new()
        .set("name", s(&after.name))
        .set("slug", s(&after.slug))
        .set("color", s(&after.color))
        .set("updateTime", s(&after.update_time));
    let mut writes = vec![Write::Update {
        key: tag_key(after.id),
        update,
        condition: Some(Condition::equals("slug", s(&before.slug))),
    }];
    let mut slug_at = None;
    if before.slug != after.slug {
        slug_at = Some(writes.len());
        writes.push(slug_marker(&after.slug, after.id));
        writes.push(Write::Delete { key: slug_key(&before.slug), condition: None });
    }
    commit(table, writes, slug_at).await
}

/// Deletes a tag that no article carries any more, and its slug marker.
pub async fn delete(table: &dyn Table, tag: &TagRecord) -> Result<(), WriteError> {
    let unused = Condition::All(vec![
        Condition::equals("refCount", n(0)),
        Condition::equals("articleCount", n(0)),
    ]);
    let writes = vec![
        Write::Delete { key: tag_key(tag.id), condition: Some(unused) },
        Write::Delete { key: slug_key(&tag.slug), condition: None },
    ];
    match table.transact(writes).await {
        Ok(()) => Ok(()),
        Err(TableError::TransactionCancelled { .. }) => Err(WriteError::InUse),
        Err(other) => Err(other.into()),
    }
}
