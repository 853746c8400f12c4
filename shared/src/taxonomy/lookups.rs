//! What the articles feature reads of categories and tags, so that it never decodes their
//! records: a category's name, the labels of tags, and the count of published articles that
//! heads a listing partition.

use crate::{
    ports::table::{Item, Key, Table, TableError},
    records::{self, number},
};

use super::{categories, tags, tags::model::TagRecord};

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
