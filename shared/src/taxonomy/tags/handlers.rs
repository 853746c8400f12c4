//! Handlers of /api/v1/tags (public) and /api/v1/admin/tags (administrators).

use axum::extract::{Path, State};
use serde::Deserialize;

use crate::{
    articles::maintenance,
    auth::principal::AdminOnly,
    context::AppContext,
    http::{
        extract::{JsonBody, PathId, QueryParams},
        taxonomy::{TaxonomyError, TaxonomyOk},
    },
    taxonomy::fields,
};

use super::{
    model::{self, TagOrder, TagRecord, TagView, DEFAULT_COLOR},
    repo::{self, WriteError},
};

type Body<T> = JsonBody<T, TaxonomyError>;
type Admin = AdminOnly<TaxonomyError>;

const MISSING: &str = "tag does not exist";

fn limit(raw: Option<i64>, default: Option<usize>) -> Result<Option<usize>, TaxonomyError> {
    match raw {
        None => Ok(default),
        Some(limit) if (1..=100).contains(&limit) => Ok(Some(limit as usize)),
        Some(_) => Err(TaxonomyError::Param("limit must be between 1 and 100".into())),
    }
}

/// Query of the tag list.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    order_by: Option<String>,
    limit: Option<i64>,
}

async fn sorted(
    ctx: &AppContext,
    order: TagOrder,
    limit: Option<usize>,
) -> Result<Vec<TagView>, TaxonomyError> {
    let mut tags = repo::all(ctx.table.as_ref()).await?;
    model::sort(&mut tags, order);
    Ok(tags.iter().take(limit.unwrap_or(usize::MAX)).map(TagRecord::view).collect())
}

/// GET the base path: `orderBy` article_count (default) | create_time | name, `limit` 1-100.
pub async fn list(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<ListQuery, TaxonomyError>,
) -> Result<TaxonomyOk<Vec<TagView>>, TaxonomyError> {
    let order = match query.order_by.as_deref() {
        None | Some("article_count") => TagOrder::ArticleCount,
        Some("create_time") => TagOrder::CreateTime,
        Some("name") => TagOrder::Name,
        Some(other) => {
            return Err(TaxonomyError::Param(format!(
                "orderBy must be article_count, create_time or name, not `{other}`"
            )))
        }
    };
    Ok(TaxonomyOk(sorted(&ctx, order, limit(query.limit, None)?).await?))
}

/// Query of the hot tags.
#[derive(Deserialize)]
pub struct HotQuery {
    limit: Option<i64>,
}

/// GET /hot: highest article count first, `limit` default 10.
pub async fn hot(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<HotQuery, TaxonomyError>,
) -> Result<TaxonomyOk<Vec<TagView>>, TaxonomyError> {
    Ok(TaxonomyOk(sorted(&ctx, TagOrder::ArticleCount, limit(query.limit, Some(10))?).await?))
}

/// GET /slug/{slug}.
pub async fn by_slug(
    State(ctx): State<AppContext>,
    Path(slug): Path<String>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    let found = match fields::slug(&slug) {
        Ok(slug) => repo::find_by_slug(ctx.table.as_ref(), &slug).await?,
        Err(_) => None,
    };
    found.map(|t| TaxonomyOk(t.view())).ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))
}

/// Body of create (name and slug required) and update (all optional).
#[derive(Deserialize)]
pub struct TagInput {
    name: Option<String>,
    slug: Option<String>,
    color: Option<String>,
}

impl TagInput {
    fn apply(&self, tag: &mut TagRecord) -> Result<(), TaxonomyError> {
        if let Some(name) = &self.name {
            tag.name = fields::name(name, 30).map_err(TaxonomyError::Param)?;
        }
        if let Some(slug) = &self.slug {
            tag.slug = fields::slug(slug).map_err(TaxonomyError::Param)?;
        }
        if let Some(color) = &self.color {
            tag.color = fields::color(color).map_err(TaxonomyError::Param)?;
        }
        Ok(())
    }
}

fn articles_error(error: crate::articles::store::StoreError) -> TaxonomyError {
    TaxonomyError::System(anyhow::Error::new(error).context("updating the articles of a tag"))
}

fn write_error(error: WriteError) -> TaxonomyError {
    match error {
        WriteError::SlugTaken => {
            TaxonomyError::Conflict("slug is already used by another tag".into())
        }
        WriteError::Missing => TaxonomyError::NotFound(MISSING.into()),
        WriteError::InUse => TaxonomyError::Conflict(
            "the tag was given to an article meanwhile, please retry".into(),
        ),
        WriteError::Table(error) => error.into(),
    }
}

/// POST /api/v1/admin/tags.
pub async fn create(
    State(ctx): State<AppContext>,
    _admin: Admin,
    JsonBody(input, ..): Body<TagInput>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    if input.name.is_none() || input.slug.is_none() {
        return Err(TaxonomyError::Param("name and slug are required".into()));
    }
    let now = crate::time::now_string();
    let mut tag = TagRecord {
        id: 0,
        name: String::new(),
        slug: String::new(),
        color: DEFAULT_COLOR.into(),
        article_count: 0,
        ref_count: 0,
        create_time: now.clone(),
        update_time: now,
    };
    input.apply(&mut tag)?;
    tag.id = repo::new_id(ctx.table.as_ref()).await?;
    repo::create(ctx.table.as_ref(), &tag).await.map_err(write_error)?;
    Ok(TaxonomyOk(tag.view()))
}

/// PUT /api/v1/admin/tags/{id}.
pub async fn update(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
    JsonBody(input, ..): Body<TagInput>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    let table = ctx.table.as_ref();
    let before =
        repo::find(table, id).await?.ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))?;
    let mut after = before.clone();
    input.apply(&mut after)?;
    after.update_time = crate::time::now_string();
    repo::update(table, &before, &after).await.map_err(write_error)?;
    if (&before.name, &before.slug, &before.color) != (&after.name, &after.slug, &after.color) {
        maintenance::refresh_tag(table, &after).await.map_err(articles_error)?;
    }
    Ok(TaxonomyOk(after.view()))
}

/// DELETE /api/v1/admin/tags/{id}: removes the tag from every article carrying it, then the
/// tag itself.
pub async fn delete(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
) -> Result<TaxonomyOk<()>, TaxonomyError> {
    let table = ctx.table.as_ref();
    let tag =
        repo::find(table, id).await?.ok_or_else(|| TaxonomyError::NotFound(MISSING.into()))?;
    maintenance::detach_tag(table, id).await.map_err(articles_error)?;
    repo::delete(table, &tag).await.map_err(write_error)?;
    Ok(TaxonomyOk(()))
}
