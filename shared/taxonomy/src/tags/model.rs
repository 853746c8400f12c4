//! Tag records, the shape the API answers with, and the list orders.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Colour of a tag created without one.
pub const DEFAULT_COLOR: &str = "#6C757D";

/// A stored tag (`TAGS` / `TAG#<id16>`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TagRecord {
    /// Id.
    pub id: u64,
    /// Display name.
    pub name: String,
    /// Unique URL slug.
    pub slug: String,
    /// Colour `#RRGGBB`.
    pub color: String,
    /// PUBLISHED, non-deleted articles carrying the tag.
    #[serde(default)]
    pub article_count: i64,
    /// Non-deleted articles of any status carrying the tag.
    #[serde(default)]
    pub ref_count: i64,
    /// Creation time.
    pub create_time: String,
    /// Last change.
    pub update_time: String,
}

/// The Tag object of the API.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Tag)]
pub struct TagView {
    /// Id.
    #[schema(schema_with = blog_core::http::docs::id_string)]
    id: String,
    /// Display name.
    name: String,
    /// Unique URL slug.
    slug: String,
    /// Colour `#RRGGBB`.
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    color: String,
    /// PUBLISHED, non-deleted articles carrying the tag.
    #[schema(minimum = 0)]
    article_count: i64,
}

impl TagRecord {
    /// The API view.
    pub fn view(&self) -> TagView {
        TagView {
            id: self.id.to_string(),
            name: self.name.clone(),
            slug: self.slug.clone(),
            color: self.color.clone(),
            article_count: self.article_count,
        }
    }
}

/// Orders of the tag list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TagOrder {
    /// Highest count first (the default).
    ArticleCount,
    /// Newest first.
    CreateTime,
    /// Ascending by name.
    Name,
}

/// Sorts tags in `order`; ties fall back to the id so the order is stable.
pub fn sort(tags: &mut [TagRecord], order: TagOrder) {
    match order {
        TagOrder::ArticleCount => {
            tags.sort_by(|a, b| b.article_count.cmp(&a.article_count).then(a.id.cmp(&b.id)))
        }
        TagOrder::CreateTime => {
            tags.sort_by(|a, b| b.create_time.cmp(&a.create_time).then(b.id.cmp(&a.id)))
        }
        TagOrder::Name => tags.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then(a.name.cmp(&b.name))
                .then(a.id.cmp(&b.id))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(id: u64, name: &str, count: i64, created: &str) -> TagRecord {
        TagRecord {
            id,
            name: name.into(),
            slug: name.to_lowercase(),
            color: DEFAULT_COLOR.into(),
            article_count: count,
            ref_count: count,
            create_time: created.into(),
            update_time: created.into(),
        }
    }

    fn ids(tags: &[TagRecord]) -> Vec<u64> {
        tags.iter().map(|t| t.id).collect()
    }

    #[test]
    fn each_order_sorts_as_specified() {
        let mut tags = vec![
            tag(1, "beta", 3, "2026-01-01T00:00:00"),
            tag(2, "Alpha", 7, "2026-01-03T00:00:00"),
            tag(3, "gamma", 3, "2026-01-02T00:00:00"),
        ];
        sort(&mut tags, TagOrder::ArticleCount);
        assert_eq!(ids(&tags), [2, 1, 3]);
        sort(&mut tags, TagOrder::CreateTime);
        assert_eq!(ids(&tags), [2, 3, 1]);
        sort(&mut tags, TagOrder::Name);
        assert_eq!(ids(&tags), [2, 1, 3]);
    }
}
