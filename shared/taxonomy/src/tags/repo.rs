//! Storage of tags: every tag in partition `TAGS` (every list order is one Query, sorted in
//! memory) and slug markers written in the same transaction as the tag.

use blog_core::{
    ids::{next_id, IdKind},
    ports::table::{
        n, s, Condition, Index, Key, Query, Table, TableError, Transaction, Update, Write,
    },
    records::{self, query_all},
};

use crate::slugs::{self, Committed, SlugMarkers};

use super::model::TagRecord;

const PARTITION: &str = "TAGS";

/// Key of a tag item.
pub fn tag_key(id: u64) -> Key {
    Key::new(PARTITION, format!("TAG#{id:016}"))
}

const SLUGS: SlugMarkers = SlugMarkers { kind: "TAGSLUG", owner_attribute: "tagId" };

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

/// The id of the tag holding `slug` (one GetItem of its marker).
pub async fn id_of_slug(table: &dyn Table, slug: &str) -> Result<Option<u64>, TableError> {
    SLUGS.owner(table, slug).await
}

/// Reads one tag by slug (marker, then tag).
pub async fn find_by_slug(table: &dyn Table, slug: &str) -> Result<Option<TagRecord>, TableError> {
    match SLUGS.owner(table, slug).await? {
        Some(id) => find(table, id).await,
        None => Ok(None),
    }
}

/// Draws a tag id.
pub async fn new_id(table: &dyn Table) -> Result<u64, TableError> {
    next_id(table, IdKind::Tag).await
}

async fn commit(table: &dyn Table, writes: Transaction) -> Result<(), WriteError> {
    match slugs::commit(table, writes).await? {
        Committed::Done => Ok(()),
        Committed::SlugTaken => Err(WriteError::SlugTaken),
        Committed::Refused => Err(WriteError::Missing),
    }
}
/// Stores a new tag and its slug marker.
pub async fn create(table: &dyn Table, tag: &TagRecord) -> Result<(), WriteError> {
    let item = crate::listed_item(tag, &tag_key(tag.id), crate::tag_listing(tag.id))?;
    let writes = Transaction::new()
        .with("tag", Write::Put { item, condition: Some(Condition::NotExists) })
        .with(slugs::CLAIM, SLUGS.claim(&tag.slug, tag.id));
    commit(table, writes).await
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
    let mut writes = Transaction::new().with(
        "tag",
        Write::Update {
            key: tag_key(after.id),
            update,
            condition: Some(Condition::equals("slug", s(&before.slug))),
        },
    );
    if before.slug != after.slug {
        writes.push(slugs::CLAIM, SLUGS.claim(&after.slug, after.id));
        writes.push("slug release", SLUGS.release(&before.slug));
    }
    commit(table, writes).await
}

/// Deletes a tag that no article carries any more, and its slug marker.
pub async fn delete(table: &dyn Table, tag: &TagRecord) -> Result<(), WriteError> {
    let unused = Condition::All(vec![
        Condition::equals("refCount", n(0)),
        Condition::equals("articleCount", n(0)),
    ]);
    let writes = vec![
        Write::Delete { key: tag_key(tag.id), condition: Some(unused) },
        SLUGS.release(&tag.slug),
    ];
    match table.transact(writes).await {
        Ok(()) => Ok(()),
        Err(TableError::TransactionCancelled { .. }) => Err(WriteError::InUse),
        Err(other) => Err(other.into()),
    }
}
