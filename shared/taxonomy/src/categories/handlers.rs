//! Handlers of /api/v1/categories (public) and /api/v1/admin/categories (administrators).

use axum::extract::{rejection::PathRejection, Path, State};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{
    openapi::{RefOr, Schema},
    PartialSchema, ToSchema,
};

use crate::{
    envelope::{TaxonomyEnvelope, TaxonomyError, TaxonomyErrorEnvelope, TaxonomyOk},
    fields, TaxonomyState,
};
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        error::ResultExt,
        extract::{JsonBody, PathId},
        Failure,
    },
};
use blog_users::principal::AdminOnly;

use super::{
    model::{self, CategoryRecord, CategoryView},
    repo::{self, WriteError},
};
use crate::envelope::TaxonomyErrors;
use blog_core::http::responses::kinds::*;

type Body<T> = JsonBody<T, TaxonomyError>;
type Admin = AdminOnly<TaxonomyError>;

const MISSING: &str = "category does not exist";
/// Structural writes retried this often when another change landed in between.
const ATTEMPTS: usize = 5;

/// The category tree: roots with nested `children`, by `sortOrder` at every level.
#[utoipa::path(
    get,
    path = "/tree",
    operation_id = "categoryTree",
    tag = "categories",
    responses(
        (status = 200, description = "Root categories with nested `children`, by `sortOrder`",
            body = TaxonomyEnvelope<Vec<CategoryView>>),
        TaxonomyErrors<Internal>,
    )
)]
pub async fn tree(
    State(ctx): State<AppContext>,
) -> Result<TaxonomyOk<Vec<CategoryView>>, TaxonomyError> {
    let snapshot = repo::snapshot(ctx.table.as_ref()).await?;
    Ok(TaxonomyOk::ok(model::tree(snapshot.categories)))
}

/// Every category as a flat list by `sortOrder`.
#[utoipa::path(
    get,
    path = "",
    operation_id = "listCategories",
    tag = "categories",
    responses(
        (status = 200, description = "Every category by `sortOrder`, without `children`",
            body = TaxonomyEnvelope<Vec<CategoryView>>),
        TaxonomyErrors<Internal>,
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
) -> Result<TaxonomyOk<Vec<CategoryView>>, TaxonomyError> {
    let mut categories = repo::snapshot(ctx.table.as_ref()).await?.categories;
    model::sort(&mut categories);
    Ok(TaxonomyOk::ok(categories.iter().map(CategoryRecord::view).collect()))
}

/// The category with a slug.
#[utoipa::path(
    get,
    path = "/slug/{slug}",
    operation_id = "categoryBySlug",
    tag = "categories",
    params(("slug" = String, Path, min_length = 1, description = "The category's slug")),
    responses(
        (status = 200, description = "The category", body = TaxonomyEnvelope<CategoryView>),
        TaxonomyErrors<(NotFound, Internal)>,
    )
)]
pub async fn by_slug(
    State(ctx): State<AppContext>,
    slug: Result<Path<String>, PathRejection>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    // A segment that does not decode to UTF-8 names no slug either.
    let found = match slug.map(|Path(slug)| fields::slug(&slug)) {
        Ok(Ok(slug)) => repo::find_by_slug(ctx.table.as_ref(), &slug).await?,
        _ => None,
    };
    found.map(|c| TaxonomyOk::ok(c.view())).ok_or_else(|| Failure::NotFound(MISSING.into()).into())
}

/// Body of update: absent fields keep their value.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    as = CategoryUpdate,
    examples(json!({
        "name": "Rust", "slug": "rust", "description": "Systems programming", "sortOrder": 1,
        "parentId": null
    }))
)]
pub struct CategoryInput {
    /// 1-50 characters once trimmed.
    #[schema(min_length = 1, max_length = 50, pattern = "\\S")]
    name: Option<String>,
    /// Unique: 1-50 of `a-z`, `0-9` and `-`.
    #[schema(pattern = "^[a-z0-9-]{1,50}$")]
    slug: Option<String>,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    description: Option<String>,
    /// Ascending order weight among siblings (a 32-bit integer).
    #[schema(value_type = Option<i32>, minimum = -2147483648, maximum = 2147483647)]
    sort_order: Option<i64>,
    /// Parent category (an existing one, not this category nor a descendant); `null` makes it a
    /// root.
    #[serde(default, deserialize_with = "fields::present")]
    #[schema(schema_with = blog_core::http::docs::id_input_or_null)]
    parent_id: Option<Value>,
}

/// Body of create: the fields of [`CategoryInput`], `name` and `slug` required.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct NewCategory(CategoryInput);

impl PartialSchema for NewCategory {
    fn schema() -> RefOr<Schema> {
        let about = "Body of create: `name` and `slug` required.";
        blog_core::http::docs::with_required(CategoryInput::schema(), &["name", "slug"], about)
    }
}

impl ToSchema for NewCategory {}

impl CategoryInput {
    /// Applies the given fields to `category`, validating each against `snapshot`.
    fn apply(
        &self,
        category: &mut CategoryRecord,
        snapshot: &repo::Snapshot,
    ) -> Result<(), TaxonomyError> {
        let invalid = |message: String| TaxonomyError::from(Failure::Invalid(message));
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

fn write_error(error: WriteError) -> Failure {
    match error {
        WriteError::SlugTaken => {
            Failure::Conflict("slug is already used by another category".into())
        }
        WriteError::Stale => {
            Failure::Conflict("categories changed concurrently, please retry".into())
        }
        WriteError::Table(error) => error.into(),
    }
}

/// Creates a category (administrators).
#[utoipa::path(
    post,
    path = "",
    operation_id = "createCategory",
    tag = "categories",
    security(("bearerAuth" = [])),
    request_body = NewCategory,
    responses(
        (status = 200, description = "The new category", body = TaxonomyEnvelope<CategoryView>),
        (status = 400, description = "A field is missing or breaks its rule, or the parent does \
            not exist", body = TaxonomyErrorEnvelope),
        (status = 409, description = "The slug is taken, or categories kept changing \
            concurrently", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn create(
    State(ctx): State<AppContext>,
    _admin: Admin,
    JsonBody(NewCategory(input), ..): Body<NewCategory>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    if input.name.is_none() || input.slug.is_none() {
        return Err(Failure::Invalid("name and slug are required".into()).into());
    }
    let table = ctx.table.as_ref();
    let id = repo::new_id(table).await?;
    let now = blog_core::time::now_string();
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
            Ok(()) => return Ok(TaxonomyOk::ok(category.view())),
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other).into()),
        }
    }
    Err(write_error(WriteError::Stale).into())
}

/// Changes a category (administrators); renaming it renames it in its articles.
#[utoipa::path(
    put,
    path = "/{id}",
    operation_id = "updateCategory",
    tag = "categories",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = CategoryInput,
    responses(
        (status = 200, description = "The updated category", body = TaxonomyEnvelope<CategoryView>),
        (status = 400, description = "A bad id, a field that breaks its rule, or a parent that \
            does not exist or would make a cycle", body = TaxonomyErrorEnvelope),
        (status = 409, description = "The slug is taken, or categories kept changing \
            concurrently", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn update(
    State(ctx): State<TaxonomyState>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
    JsonBody(input, ..): Body<CategoryInput>,
) -> Result<TaxonomyOk<CategoryView>, TaxonomyError> {
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let snapshot = repo::snapshot(table).await?;
        let before = snapshot.find(id).cloned().ok_or_else(|| Failure::NotFound(MISSING.into()))?;
        let mut after = before.clone();
        input.apply(&mut after, &snapshot)?;
        after.update_time = blog_core::time::now_string();
        match repo::update(table, snapshot.version, &before, &after).await {
            Ok(()) => {
                if before.name != after.name {
                    let renamed = ctx.port.category_renamed(table, id, &after.name).await;
                    renamed.or_internal("renaming in articles")?;
                }
                return Ok(TaxonomyOk::ok(after.view()));
            }
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other).into()),
        }
    }
    Err(write_error(WriteError::Stale).into())
}

/// Deletes a category (administrators); refused (409) while it has subcategories or articles.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteCategory",
    tag = "categories",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Deleted", body = TaxonomyEnvelope<Null>),
        (status = 409, description = "It has subcategories or articles, or categories kept \
            changing concurrently", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Invalid, Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn delete(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
) -> Result<TaxonomyOk<()>, TaxonomyError> {
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let snapshot = repo::snapshot(table).await?;
        let category = snapshot.find(id).ok_or_else(|| Failure::NotFound(MISSING.into()))?;
        if category.child_count > 0 {
            return Err(Failure::Conflict("category has subcategories".into()).into());
        }
        if category.ref_count > 0 || category.article_count > 0 {
            return Err(Failure::Conflict("category has articles".into()).into());
        }
        match repo::delete(table, snapshot.version, category).await {
            Ok(()) => return Ok(TaxonomyOk::ok(())),
            Err(WriteError::Stale) => continue,
            Err(other) => return Err(write_error(other).into()),
        }
    }
    Err(write_error(WriteError::Stale).into())
}
