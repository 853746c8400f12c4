//! Storage of categories: every category in partition `CATEGORIES` (the tree and the flat list
//! are one Query), a `#META` item whose `version` serialises structural changes (so a cycle
//! check made on one snapshot stays true when the write lands), and slug markers.

use blog_core::{
    ids::{next_id, IdKind},
    ports::table::{
        n, s, Condition, Index, Key, Query, Table, TableError, Transaction, Update, Write,
    },
    records::{self, number, query_all},
};

use crate::slugs::{self, Committed, SlugMarkers};

use super::model::CategoryRecord;

const PARTITION: &str = "CATEGORIES";

/// Key of a category item.
pub fn category_key(id: u64) -> Key {
    Key::new(PARTITION, format!("CATEGORY#{id:016}"))
}

fn meta_key() -> Key {
    Key::new(PARTITION, "#META")
}

const SLUGS: SlugMarkers = SlugMarkers { kind: "CATSLUG", owner_attribute: "categoryId" };

/// All categories at one structural version.
pub struct Snapshot {
    /// Structural version (0 before the first change).
    pub version: i64,
    /// Every category, unordered.
    pub categories: Vec<CategoryRecord>,
}

impl Snapshot {
    /// The category with `id`.
    pub fn find(&self, id: u64) -> Option<&CategoryRecord> {
        self.categories.iter().find(|c| c.id == id)
    }
}

/// Why a structural write was refused.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The slug belongs to another category.
    #[error("slug is already used by another category")]
    SlugTaken,
    /// The categories changed since the snapshot; re-read and retry.
    #[error("categories changed concurrently")]
    Stale,
    /// The table failed.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Reads every category (one Query).
pub async fn snapshot(table: &dyn Table) -> Result<Snapshot, TableError> {
    let items = query_all(table, Query::partition(Index::Primary, PARTITION)).await?;
    let mut version = 0;
    let mut categories = Vec::with_capacity(items.len());
    for item in items {
        if Key::of(&item).is_some_and(|k| k == meta_key()) {
            version = number(&item, "version").unwrap_or(0);
        } else {
            categories.push(records::from_item(item)?);
        }
    }
    Ok(Snapshot { version, categories })
}

/// Reads one category by slug (marker, then category).
pub async fn find_by_slug(
    table: &dyn Table,
    slug: &str,
) -> Result<Option<CategoryRecord>, TableError> {
    match SLUGS.owner(table, slug).await? {
        Some(id) => find(table, id).await,
        None => Ok(None),
    }
}

/// The id of the category holding `slug` (one GetItem of its marker).
pub async fn id_of_slug(table: &dyn Table, slug: &str) -> Result<Option<u64>, TableError> {
    SLUGS.owner(table, slug).await
}

/// Reads one category by id.
pub async fn find(table: &dyn Table, id: u64) -> Result<Option<CategoryRecord>, TableError> {
    table.get(&category_key(id)).await?.map(records::from_item).transpose()
}

/// Draws a category id.
pub async fn new_id(table: &dyn Table) -> Result<u64, TableError> {
    next_id(table, IdKind::Category).await
}

fn bump_version(version: i64) -> Write {
    let condition =
        if version == 0 { Condition::NotExists } else { Condition::equals("version", n(version)) };
    Write::Update {
        key: meta_key(),
        update: Update::new().add("version", 1),
        condition: Some(condition),
    }
}

fn child_count(parent: u64, delta: i64) -> Write {
    Write::Update {
        key: category_key(parent),
        update: Update::new().add("childCount", delta),
        condition: Some(Condition::Exists),
    }
}

async fn commit(table: &dyn Table, writes: Transaction) -> Result<(), WriteError> {
    match slugs::commit(table, writes).await? {
        Committed::Done => Ok(()),
        Committed::SlugTaken => Err(WriteError::SlugTaken),
        Committed::Refused => Err(WriteError::Stale),
    }
}
/// Stores a new category, its slug marker and its parent's child count.
pub async fn create(
    table: &dyn Table,
    version: i64,
    category: &CategoryRecord,
) -> Result<(), WriteError> {
    let item = crate::listed_item(
        category,
        &category_key(category.id),
        crate::category_listing(category.id),
    )?;
    let mut writes = Transaction::new()
        .with("version", bump_version(version))
        .with("category", Write::Put { item, condition: Some(Condition::NotExists) })
        .with(slugs::CLAIM, SLUGS.claim(&category.slug, category.id));
    writes.extend("parent", category.parent_id.map(|parent| child_count(parent, 1)));
    commit(table, writes).await
}

/// Changes a category's own fields (never its counters, which articles move concurrently).
pub async fn update(
    table: &dyn Table,
    version: i64,
    before: &CategoryRecord,
    after: &CategoryRecord,
) -> Result<(), WriteError> {
    let mut update = Update::new()
        .set("name", s(&after.name))
        .set("slug", s(&after.slug))
        .set("description", s(&after.description))
        .set("sortOrder", n(after.sort_order))
        .set("updateTime", s(&after.update_time));
    update = match after.parent_id {
        Some(parent) => update.set("parentId", n(parent as i64)),
        None => update.remove("parentId"),
    };
    let mut writes = Transaction::new().with("version", bump_version(version)).with(
        "category",
        Write::Update { key: category_key(after.id), update, condition: Some(Condition::Exists) },
    );
    if before.slug != after.slug {
        writes.push(slugs::CLAIM, SLUGS.claim(&after.slug, after.id));
        writes.push("slug release", SLUGS.release(&before.slug));
    }
    if before.parent_id != after.parent_id {
        writes.extend("old parent", before.parent_id.map(|p| child_count(p, -1)));
        writes.extend("new parent", after.parent_id.map(|p| child_count(p, 1)));
    }
    commit(table, writes).await
}

/// Deletes a category that has no subcategories and no articles (checked atomically).
pub async fn delete(
    table: &dyn Table,
    version: i64,
    category: &CategoryRecord,
) -> Result<(), WriteError> {
    let unused = Condition::All(vec![
        Condition::equals("childCount", n(0)),
        Condition::equals("refCount", n(0)),
        Condition::equals("articleCount", n(0)),
    ]);
    let mut writes = Transaction::new()
        .with("version", bump_version(version))
        .with("category", Write::Delete { key: category_key(category.id), condition: Some(unused) })
        .with("slug release", SLUGS.release(&category.slug));
    writes.extend("parent", category.parent_id.map(|p| child_count(p, -1)));
    commit(table, writes).await
}
