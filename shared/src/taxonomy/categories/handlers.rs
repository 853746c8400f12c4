//! Handlers of /api/v1/categories (public) and /api/v1/admin/categories (administrators).

use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::Value;

use crate::{
    auth::principal::AdminOnly,
    context::AppContext,
    http::{
        extract::{JsonBody, PathId},
        taxonomy::{TaxonomyError, TaxonomyOk},
    },
    taxonomy::fields,
};

use super::{
    model::{self, CategoryRecord, CategoryView},
    repo::{self, WriteError},
};

type Body<T> = JsonBody<T, TaxonomyError>;
type Admin = AdminOnly<TaxonomyError>;

const MISSING: &str = "category does not exist";
/// Structural writes retried this often when another change landed in between.
const ATTEMPTS: usize = 5;

/// GET /tree.
pub async fn tree(
    State(ctx): State<AppContext>,
) -> Result<TaxonomyOk<Vec<CategoryView>>, TaxonomyError> {
    let snapshot = repo::snapshot(ctx.table.as_ref()).await?;
    Ok(TaxonomyOk(model::tree(snapshot.categories)))
}

/// GET the base path: flat list by `sortOrder`.
pub async fn list(
    State(ctx): State<AppContext>,
) -> Result<TaxonomyOk<Vec<CategoryView>>, TaxonomyError> {
    let mut categories = repo::snapshot(ctx.table.as_ref()).await?.categories;
    model::sort(&mut categories);
    Ok(TaxonomyOk(categories.iter().map(CategoryRecord::view).collect()))
}

/// GET /slug/{slug}.
pub async fn by_slug(
    State(ctx): State<AppContext>,
    Path(slug): Path<String>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    let found = match fields::slug(&slug) {
        Ok(slug) => repo::find_by_slug(ctx.table.as_ref(), &slug).await?,
        Err(_) => None,
    };
    found.map(|c| TaxonomyOk(c.view())).ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))
}

/// Body of create (all fields) and update (all optional).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryInput {
    name: Option<String>,
    slug: Option<String>,
    description: Option<String>,
    sort_order: Option<i64>,
    #[serde(default, deserialize_with = "fields::present")]
    parent_id: Option<Value>,
}

impl CategoryInput {
    /// Applies the given fields to `category`, validating each against `snapshot`.
    fn apply(
        &self,
        category: &mut CategoryRecord,
        snapshot: &repo::Snapshot,
    ) -> Result<(), TaxonomyError> {
        let invalid = TaxonomyError::Param;
        if let Some(name) = &self.name {
            category.name = fields::name(name, 50).map_err(invalid)?;
        }
        if let Some(slug) = &self.slug {
            category.slug = fields::slug(slug).map_err(invalid)?;
        }
        if let Some(description) = &self.description {
            category.description = fields::description(description).map_err(invalid)?;
        }
        if let Some(sort_order) = self.sort_order {
            if i32::try_from(sort_order).is_err() {
                return Err(invalid("sortOrder must be a 32-bit integer".into()));
            }
            category.sort_order = sort_order;
        }
        match &self.parent_id {
            None => {}
            Some(Value::Null) => category.parent_id = None,
            Some(raw) => {
                let parent = fields::id("parentId", raw).map_err(invalid)?;
                if snapshot.find(parent).is_none() {
                    return Err(invalid("parentId: parent category does not exist".into()));
                }
                if model::is_self_or_descendant(&snapshot.categories, category.id, parent) {
                    return Err(invalid(
                        "parentId: a category cannot be its own parent or descendant".into(),
                    ));
                }
                category.parent_id = Some(parent);
            }
        }
        Ok(())
    }
}

fn write_error(error: WriteError) -> TaxonomyError {
    match error {
        WriteError::SlugTaken => {
            TaxonomyError::Conflict("slug is already used by another category".into())
        }
        WriteError::Stale => {
            TaxonomyError::Conflict("categories changed concurrently, please retry".into())
        }
        WriteError::Table(error) => error.into(),
    }
}

/// POST /api/v1/admin/categories.
pub async fn create(
    State(ctx): State<AppContext>,
    _admin: Admin,
    JsonBody(input, ..): Body<CategoryInput>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    if input.name.is_none() || input.slug.is_none() {
        return Err(TaxonomyError::Param("name and slug are required".into()));
    }
    let table = ctx.table.as_ref();
    let id = repo::new_id(table).await?;
    let now = crate::time::now_string();
    for _ in 0..ATTEMPTS {
        let snapshot = repo::snapshot(table).await?;
        let mut category = CategoryRecord {
            id,
            name: String::new(),
            slug: String::new(),
            description: String::new(),
            sort_order: 0,
            parent_id: None,
            article_count: 0,
            child_count: 0,
            ref_count: 0,
            create_time: now.clone(),
            update_time: now.clone(),
        };
        input.apply(&mut category, &snapshot)?;
        match repo::create(table, snapshot.version, &category).await {
            Ok(()) => return Ok(TaxonomyOk(category.view())),
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other)),
        }
    }
    Err(write_error(WriteError::Stale))
}

/// PUT /api/v1/admin/categories/{id}.
pub async fn update(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
    JsonBody(input, ..): Body<CategoryInput>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let snapshot = repo::snapshot(table).await?;
        let before =
            snapshot.find(id).cloned().ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))?;
        let mut after = before.clone();
        input.apply(&mut after, &snapshot)?;
        after.update_time = crate::time::now_string();
        match repo::update(table, snapshot.version, &before, &after).await {
            Ok(()) => {
                if before.name != after.name {
                    crate::articles::maintenance::refresh_category(table, id, &after.name)
                        .await
                        .map_err(|e| {
                            TaxonomyError::System(
                                anyhow::Error::new(e).context("renaming in articles"),
                            )
                        })?;
                }
                return Ok(TaxonomyOk(after.view()));
            }
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other)),
        }
    }
    Err(write_error(WriteError::Stale))
}

/// DELETE /api/v1/admin/categories/{id}: refused (409) while it has subcategories or articles.
pub async fn delete(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
) -> Result<TaxonomyOk<()>, TaxonomyError> {
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let snapshot = repo::snapshot(table).await?;
        let category = snapshot.find(id).ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))?;
        if category.child_count > 0 {
            return Err(TaxonomyError::Conflict("category has subcategories".into()));
        }
        if category.ref_count > 0 || category.article_count > 0 {
            return Err(TaxonomyError::Conflict("category has articles".into()));
        }
        match repo::delete(table, snapshot.version, category).await {
            Ok(()) => return Ok(TaxonomyOk(())),
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other)),
        }
    }
    Err(write_error(WriteError::Stale))
}
