//! Handlers of /api/v1/tags (public) and /api/v1/admin/tags (administrators).

use axum::extract::{rejection::PathRejection, Path, State};
use serde::Deserialize;
use utoipa::{
    openapi::{RefOr, Schema},
    IntoParams, PartialSchema, ToSchema,
};

use crate::{
    envelope::{TaxonomyEnvelope, TaxonomyError, TaxonomyErrorEnvelope, TaxonomyOk},
    fields, TagLabel, TaxonomyState,
};
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        error::ResultExt,
        extract::{JsonBody, PathId, QueryParams},
        Failure,
    },
};
use blog_users::principal::AdminOnly;

use super::{
    model::{self, TagOrder, TagRecord, TagView, DEFAULT_COLOR},
    repo::{self, WriteError},
};
use crate::envelope::TaxonomyErrors;
use blog_core::http::responses::kinds::*;

type Body<T> = JsonBody<T, TaxonomyError>;
type Admin = AdminOnly<TaxonomyError>;

/// Context of a failure to update the articles carrying a tag.
const ARTICLES_OF_A_TAG: &str = "updating the articles of a tag";
const MISSING: &str = "tag does not exist";

fn limit(raw: Option<i64>, default: Option<usize>) -> Result<Option<usize>, TaxonomyError> {
    match raw {
        None => Ok(default),
        Some(limit) if (1..=100).contains(&limit) => Ok(Some(limit as usize)),
        Some(_) => Err(Failure::Invalid("limit must be between 1 and 100".into()).into()),
    }
}

/// Query of the tag list.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `article_count` (highest first, the default), `create_time` (newest first) or `name`
    /// (ascending).
    #[param(schema_with = order_schema)]
    order_by: Option<String>,
    /// At most this many tags (default: all).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

fn order_schema() -> utoipa::openapi::Object {
    let about = "`article_count` (highest first, the default), `create_time` (newest first) or \
        `name` (ascending)";
    blog_core::http::docs::string_enum(about, ["article_count", "create_time", "name"])
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

/// Tags by article count (default), creation time or name.
#[utoipa::path(
    get,
    path = "",
    operation_id = "listTags",
    tag = "tags",
    params(ListQuery),
    responses(
        (status = 200, description = "Tags in the requested order",
            body = TaxonomyEnvelope<Vec<TagView>>),
        (status = 400, description = "`orderBy` is not one of the three, or `limit` is outside \
            1-100", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<Internal>,
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<ListQuery, TaxonomyError>,
) -> Result<TaxonomyOk<Vec<TagView>>, TaxonomyError> {
    let order = match query.order_by.as_deref() {
        None | Some("article_count") => TagOrder::ArticleCount,
        Some("create_time") => TagOrder::CreateTime,
        Some("name") => TagOrder::Name,
        Some(other) => {
            return Err(Failure::Invalid(format!(
                "orderBy must be article_count, create_time or name, not `{other}`"
            ))
            .into())
        }
    };
    Ok(TaxonomyOk::ok(sorted(&ctx, order, limit(query.limit, None)?).await?))
}

/// Query of the hot tags.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HotQuery {
    /// At most this many tags (default 10).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

/// The tags with the most articles (10 by default).
#[utoipa::path(
    get,
    path = "/hot",
    operation_id = "hotTags",
    tag = "tags",
    params(HotQuery),
    responses(
        (status = 200, description = "Tags by article count, highest first",
            body = TaxonomyEnvelope<Vec<TagView>>),
        (status = 400, description = "`limit` is outside 1-100", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<Internal>,
    )
)]
pub async fn hot(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<HotQuery, TaxonomyError>,
) -> Result<TaxonomyOk<Vec<TagView>>, TaxonomyError> {
    Ok(TaxonomyOk::ok(sorted(&ctx, TagOrder::ArticleCount, limit(query.limit, Some(10))?).await?))
}

/// The tag with a slug.
#[utoipa::path(
    get,
    path = "/slug/{slug}",
    operation_id = "tagBySlug",
    tag = "tags",
    params(("slug" = String, Path, min_length = 1, description = "The tag's slug")),
    responses(
        (status = 200, description = "The tag", body = TaxonomyEnvelope<TagView>),
        TaxonomyErrors<(NotFound, Internal)>,
    )
)]
pub async fn by_slug(
    State(ctx): State<AppContext>,
    slug: Result<Path<String>, PathRejection>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    // A segment that does not decode to UTF-8 names no slug either.
    let found = match slug.map(|Path(slug)| fields::slug(&slug)) {
        Ok(Ok(slug)) => repo::find_by_slug(ctx.table.as_ref(), &slug).await?,
        _ => None,
    };
    found.map(|t| TaxonomyOk::ok(t.view())).ok_or_else(|| Failure::NotFound(MISSING.into()).into())
}

/// Body of update: absent fields keep their value.
#[derive(Deserialize, ToSchema)]
#[schema(as = TagUpdate, examples(json!({"name": "Web", "slug": "web", "color": "#1E90FF"})))]
pub struct TagInput {
    /// 1-30 characters once trimmed.
    #[schema(min_length = 1, max_length = 30, pattern = "\\S")]
    name: Option<String>,
    /// Unique: 1-50 of `a-z`, `0-9` and `-`.
    #[schema(pattern = "^[a-z0-9-]{1,50}$")]
    slug: Option<String>,
    /// Colour `#RRGGBB` (`#6C757D` when a tag is created without one).
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<String>,
}

/// Body of create: the fields of [`TagInput`], `name` and `slug` required.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct NewTag(TagInput);

impl PartialSchema for NewTag {
    fn schema() -> RefOr<Schema> {
        let about = "Body of create: `name` and `slug` required; `color` defaults to `#6C757D`.";
        blog_core::http::docs::with_required(TagInput::schema(), &["name", "slug"], about)
    }
}

impl ToSchema for NewTag {}

impl TagInput {
    fn apply(&self, tag: &mut TagRecord) -> Result<(), TaxonomyError> {
        if let Some(name) = &self.name {
            tag.name = fields::name(name, 30).map_err(Failure::Invalid)?;
        }
        if let Some(slug) = &self.slug {
            tag.slug = fields::slug(slug).map_err(Failure::Invalid)?;
        }
        if let Some(color) = &self.color {
            tag.color = fields::color(color).map_err(Failure::Invalid)?;
        }
        Ok(())
    }
}

fn write_error(error: WriteError) -> Failure {
    match error {
        WriteError::SlugTaken => Failure::Conflict("slug is already used by another tag".into()),
        WriteError::Missing => Failure::NotFound(MISSING.into()),
        WriteError::InUse => {
            Failure::Conflict("the tag was given to an article meanwhile, please retry".into())
        }
        WriteError::Table(error) => error.into(),
    }
}

/// Creates a tag (administrators).
#[utoipa::path(
    post,
    path = "",
    operation_id = "createTag",
    tag = "tags",
    security(("bearerAuth" = [])),
    request_body = NewTag,
    responses(
        (status = 200, description = "The new tag", body = TaxonomyEnvelope<TagView>),
        (status = 400, description = "A field is missing or breaks its rule",
            body = TaxonomyErrorEnvelope),
        (status = 409, description = "The slug is taken", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn create(
    State(ctx): State<AppContext>,
    _admin: Admin,
    JsonBody(NewTag(input), ..): Body<NewTag>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    if input.name.is_none() || input.slug.is_none() {
        return Err(Failure::Invalid("name and slug are required".into()).into());
    }
    let now = blog_core::time::now_string();
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
    Ok(TaxonomyOk::ok(tag.view()))
}

/// Changes a tag (administrators); the articles carrying it follow.
#[utoipa::path(
    put,
    path = "/{id}",
    operation_id = "updateTag",
    tag = "tags",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = TagInput,
    responses(
        (status = 200, description = "The updated tag", body = TaxonomyEnvelope<TagView>),
        (status = 400, description = "A bad id or a field that breaks its rule",
            body = TaxonomyErrorEnvelope),
        (status = 409, description = "The slug is taken", body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn update(
    State(ctx): State<TaxonomyState>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
    JsonBody(input, ..): Body<TagInput>,
) -> Result<TaxonomyOk<TagView>, TaxonomyError> {
    let table = ctx.table.as_ref();
    let before = repo::find(table, id).await?.ok_or_else(|| Failure::NotFound(MISSING.into()))?;
    let mut after = before.clone();
    input.apply(&mut after)?;
    after.update_time = blog_core::time::now_string();
    repo::update(table, &before, &after).await.map_err(write_error)?;
    if (&before.name, &before.slug, &before.color) != (&after.name, &after.slug, &after.color) {
        ctx.port.tag_changed(table, &TagLabel::of(&after)).await.or_internal(ARTICLES_OF_A_TAG)?;
    }
    Ok(TaxonomyOk::ok(after.view()))
}

/// Deletes a tag (administrators), removing it from every article first.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteTag",
    tag = "tags",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Deleted", body = TaxonomyEnvelope<Null>),
        (status = 409, description = "The tag was given to an article meanwhile, retry",
            body = TaxonomyErrorEnvelope),
        TaxonomyErrors<(Invalid, Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn delete(
    State(ctx): State<TaxonomyState>,
    _admin: Admin,
    PathId(id, ..): PathId<TaxonomyError>,
) -> Result<TaxonomyOk<()>, TaxonomyError> {
    let table = ctx.table.as_ref();
    let tag = repo::find(table, id).await?.ok_or_else(|| Failure::NotFound(MISSING.into()))?;
    ctx.port.tag_removed(table, id).await.or_internal(ARTICLES_OF_A_TAG)?;
    repo::delete(table, &tag).await.map_err(write_error)?;
    Ok(TaxonomyOk::ok(()))
}
