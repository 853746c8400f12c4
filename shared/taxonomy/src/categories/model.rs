//! Category records and the shapes the API answers with.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::{
    openapi::{Array, ArrayBuilder, Ref},
    ToSchema,
};

/// A stored category (`CATEGORIES` / `CATEGORY#<id16>`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryRecord {
    /// Id.
    pub id: u64,
    /// Display name.
    pub name: String,
    /// Unique URL slug.
    pub slug: String,
    /// Description (may be empty).
    #[serde(default)]
    pub description: String,
    /// Ascending order weight among siblings.
    #[serde(default)]
    pub sort_order: i64,
    /// Parent category, `None` for roots.
    #[serde(default)]
    pub parent_id: Option<u64>,
    /// PUBLISHED, non-deleted articles carrying this category directly.
    #[serde(default)]
    pub article_count: i64,
    /// Direct subcategories.
    #[serde(default)]
    pub child_count: i64,
    /// Non-deleted articles of any status carrying this category.
    #[serde(default)]
    pub ref_count: i64,
    /// Creation time.
    pub create_time: String,
    /// Last change.
    pub update_time: String,
}

/// The Category object of the API.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Category)]
pub struct CategoryView {
    /// Id.
    #[schema(schema_with = blog_core::http::docs::id_string)]
    id: String,
    /// Display name.
    name: String,
    /// Unique URL slug.
    slug: String,
    /// Description; may be empty.
    description: String,
    /// Ascending order weight among siblings.
    #[schema(value_type = i32)]
    sort_order: i64,
    /// PUBLISHED, non-deleted articles carrying the category directly.
    #[schema(minimum = 0)]
    article_count: i64,
    /// Parent category; `null` for roots.
    #[schema(schema_with = blog_core::http::docs::id_string_or_null, required = true)]
    parent_id: Option<String>,
    /// Subcategories, only in the tree (empty for leaves).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = children_schema)]
    children: Option<Vec<CategoryView>>,
}

fn children_schema() -> Array {
    ArrayBuilder::new()
        .description(Some("Subcategories, only in the tree form (empty for leaves)"))
        .items(Ref::from_schema_name("Category"))
        .build()
}

impl CategoryRecord {
    /// The flat view (no `children`).
    pub fn view(&self) -> CategoryView {
        CategoryView {
            id: self.id.to_string(),
            name: self.name.clone(),
            slug: self.slug.clone(),
            description: self.description.clone(),
            sort_order: self.sort_order,
            article_count: self.article_count,
            parent_id: self.parent_id.map(|id| id.to_string()),
            children: None,
        }
    }
}

/// Sorts categories by `sortOrder`, then id.
pub fn sort(categories: &mut [CategoryRecord]) {
    categories.sort_by_key(|c| (c.sort_order, c.id));
}

/// The tree: roots with nested `children` (empty on leaves), `sortOrder` ascending at every
/// level. A category whose parent is missing is shown as a root rather than lost.
pub fn tree(mut categories: Vec<CategoryRecord>) -> Vec<CategoryView> {
    sort(&mut categories);
    let known: std::collections::HashSet<u64> = categories.iter().map(|c| c.id).collect();
    let mut children: HashMap<Option<u64>, Vec<&CategoryRecord>> = HashMap::new();
    for category in &categories {
        let parent = category.parent_id.filter(|p| known.contains(p) && *p != category.id);
        children.entry(parent).or_default().push(category);
    }
    fn build(
        node: &CategoryRecord,
        children: &HashMap<Option<u64>, Vec<&CategoryRecord>>,
        depth: usize,
    ) -> CategoryView {
        let mut view = node.view();
        let kids = match children.get(&Some(node.id)) {
            Some(kids) if depth < 64 => {
                kids.iter().map(|k| build(k, children, depth + 1)).collect()
            }
            _ => Vec::new(),
        };
        view.children = Some(kids);
        view
    }
    children
        .get(&None)
        .map(|roots| roots.iter().map(|root| build(root, &children, 0)).collect())
        .unwrap_or_default()
}

/// Whether `candidate` is `id` itself or one of its descendants.
pub fn is_self_or_descendant(categories: &[CategoryRecord], id: u64, candidate: u64) -> bool {
    let parents: HashMap<u64, Option<u64>> =
        categories.iter().map(|c| (c.id, c.parent_id)).collect();
    let mut current = Some(candidate);
    let mut steps = 0;
    while let Some(node) = current {
        if node == id {
            return true;
        }
        steps += 1;
        if steps > categories.len() {
            return true;
        }
        current = parents.get(&node).copied().flatten();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn category(id: u64, parent: Option<u64>, sort_order: i64) -> CategoryRecord {
        CategoryRecord {
            id,
            name: format!("c{id}"),
            slug: format!("c{id}"),
            description: String::new(),
            sort_order,
            parent_id: parent,
            article_count: 0,
            child_count: 0,
            ref_count: 0,
            create_time: "2026-01-01T00:00:00".into(),
            update_time: "2026-01-01T00:00:00".into(),
        }
    }

    #[test]
    fn the_tree_nests_children_sorted_at_every_level() {
        let categories = vec![
            category(1, None, 2),
            category(2, None, 1),
            category(3, Some(1), 5),
            category(4, Some(1), 0),
            category(5, Some(4), 0),
        ];
        let tree = serde_json::to_value(tree(categories)).unwrap();
        assert_eq!(tree[0]["id"], json!("2"));
        assert_eq!(tree[0]["children"], json!([]));
        assert_eq!(tree[1]["children"][0]["id"], json!("4"));
        assert_eq!(tree[1]["children"][0]["children"][0]["id"], json!("5"));
        assert_eq!(tree[1]["children"][0]["children"][0]["children"], json!([]));
        assert_eq!(tree[1]["children"][1]["id"], json!("3"));
        assert_eq!(tree[1]["children"][1]["parentId"], json!("1"));
    }

    #[test]
    fn the_flat_view_has_no_children_and_a_null_parent_for_roots() {
        let view = serde_json::to_value(category(1, None, 0).view()).unwrap();
        assert!(view.get("children").is_none());
        assert_eq!(view["parentId"], json!(null));
        assert_eq!(view["id"], json!("1"));
    }

    #[test]
    fn descendants_are_found_through_every_level() {
        let categories =
            vec![category(1, None, 0), category(2, Some(1), 0), category(3, Some(2), 0)];
        assert!(is_self_or_descendant(&categories, 1, 1));
        assert!(is_self_or_descendant(&categories, 1, 3));
        assert!(!is_self_or_descendant(&categories, 3, 1));
    }
}
