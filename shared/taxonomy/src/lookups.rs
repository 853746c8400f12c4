//! What the articles and feeds features read of categories and tags, so that they never decode
//! their records: a category's name, the labels of tags, the count of published articles that
//! heads a listing partition, the ids behind slugs (the articles of a tag or category, the
//! feeds) and every slug (the sitemap).

use blog_core::{
    ports::table::{Item, Key, Table, TableError},
    records::{self, number},
};

use super::{categories, fields, tags, tags::model::TagRecord};

/// What an article shows of a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagLabel {
    /// Id.
    pub id: u64,
    /// Display name.
    pub name: String,
    /// URL slug.
    pub slug: String,
    /// Colour `#RRGGBB`.
    pub color: String,
}

impl TagLabel {
    pub(super) fn of(tag: &TagRecord) -> Self {
        Self {
            id: tag.id,
            name: tag.name.clone(),
            slug: tag.slug.clone(),
            color: tag.color.clone(),
        }
    }
}

/// The name of category `id`; `None` when it does not exist (one GetItem).
pub async fn category_name(table: &dyn Table, id: u64) -> Result<Option<String>, TableError> {
    Ok(categories::repo::find(table, id).await?.map(|category| category.name))
}

/// The labels of the tags among `ids` that exist, in no particular order (one BatchGetItem;
/// no call for no ids).
pub async fn tag_labels(table: &dyn Table, ids: &[u64]) -> Result<Vec<TagLabel>, TableError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<Key> = ids.iter().map(|id| tags::repo::tag_key(*id)).collect();
    let found = table.get_many(&keys).await?;
    found.into_iter().map(|item| records::from_item(item).map(|tag| TagLabel::of(&tag))).collect()
}

/// Key of the item that heads category `id`'s listing partition: the category itself.
pub fn category_listing_head(id: u64) -> Key {
    categories::repo::category_key(id)
}

/// Key of the item that heads tag `id`'s listing partition: the tag itself.
pub fn tag_listing_head(id: u64) -> Key {
    tags::repo::tag_key(id)
}

/// The published articles a listing head (a category or tag item) counts.
pub fn published_count(head: &Item) -> u64 {
    number(head, "articleCount").unwrap_or(0).max(0) as u64
}

/// The id of the category whose slug is `slug` (one GetItem of its marker; no call for a
/// string that cannot be a slug).
pub async fn category_id_by_slug(table: &dyn Table, slug: &str) -> Result<Option<u64>, TableError> {
    match fields::slug(slug) {
        Ok(slug) => categories::repo::id_of_slug(table, &slug).await,
        Err(_) => Ok(None),
    }
}

/// The id of the tag whose slug is `slug` (one GetItem of its marker; no call for a string
/// that cannot be a slug).
pub async fn tag_id_by_slug(table: &dyn Table, slug: &str) -> Result<Option<u64>, TableError> {
    match fields::slug(slug) {
        Ok(slug) => tags::repo::id_of_slug(table, &slug).await,
        Err(_) => Ok(None),
    }
}

/// The name of tag `id`; `None` when it does not exist (one GetItem).
pub async fn tag_name(table: &dyn Table, id: u64) -> Result<Option<String>, TableError> {
    Ok(tags::repo::find(table, id).await?.map(|tag| tag.name))
}

/// The slug of every category, in no particular order (one Query).
pub async fn category_slugs(table: &dyn Table) -> Result<Vec<String>, TableError> {
    let snapshot = categories::repo::snapshot(table).await?;
    Ok(snapshot.categories.into_iter().map(|category| category.slug).collect())
}

/// The slug of every tag, in no particular order (one Query).
pub async fn tag_slugs(table: &dyn Table) -> Result<Vec<String>, TableError> {
    Ok(tags::repo::all(table).await?.into_iter().map(|tag| tag.slug).collect())
}
