//! Handlers of /api/v1/articles (anonymous), and of the articles of one tag or category by its
//! slug (/api/v1/tags/slug/{slug}/articles, /api/v1/categories/slug/{slug}/articles): the
//! public list's page of that tag or category.

use axum::{
    extract::{rejection::PathRejection, Path, State},
    http::{header::LAST_MODIFIED, HeaderMap, HeaderValue},
};

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::IdParam,
        extract::{PathId, QueryParams},
        Failure,
    },
};
use blog_taxonomy as taxonomy;

use crate::envelope::ArticleErrors;
use crate::{
    envelope::{ArticleEnvelope, ArticleError, ArticleErrorEnvelope, ArticleFault, ArticleOk},
    input::{CategoryArticlesQuery, ListQuery, Listing, PathFilter, TagArticlesQuery},
    model::{ArticleHead, Detail, ListItem, Page, RelatedItem, Status},
    read::{self, Filter},
    related, Reading,
};

use super::search::fresh_for_seconds;

/// Query of the related list.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RelatedQuery {
    /// At most this many articles (default 5).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 20)]
    limit: Option<String>,
}

/// Articles related to one: nearest by content, then of its category, then the latest.
///
/// `limit` 1-20 (default 5). Two reads.
#[utoipa::path(
    get,
    path = "/{id}/related",
    operation_id = "relatedArticles",
    tag = "articles",
    params(IdParam, RelatedQuery),
    responses(
        (status = 200, description = "Published articles nearest by content, then of the same \
            category, then the latest", body = ArticleEnvelope<Vec<RelatedItem>>),
        (status = 400, description = "A bad id, or `limit` outside 1-20 (PARAM_ERROR)",
            body = ArticleErrorEnvelope),
        (status = 404, description = "No such article (ARTICLE_NOT_FOUND)",
            body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn related(
    State(ctx): State<AppContext>,
    PathId(id, ..): PathId<ArticleError>,
    QueryParams(query, ..): QueryParams<RelatedQuery, ArticleError>,
) -> Result<ArticleOk<Vec<RelatedItem>>, ArticleError> {
    let limit = match query.limit.as_deref().map(str::trim) {
        None | Some("") => 5,
        Some(raw) => match raw.parse::<usize>() {
            Ok(limit) if (1..=20).contains(&limit) => limit,
            _ => {
                return Err(Failure::Invalid("limit must be an integer from 1 to 20".into()).into())
            }
        },
    };
    let heads = related::related(ctx.table.as_ref(), id, limit)
        .await?
        .ok_or(ArticleFault::ArticleNotFound)?;
    Ok(ArticleOk::ok(heads.iter().map(ArticleHead::related_item).collect()))
}

/// A page of published articles, pinned first, then newest.
///
/// Filters: `categoryId`, `tagId`, `keyword`; paging: `page` (or `current`) and `size`.
#[utoipa::path(
    get,
    path = "",
    operation_id = "listArticles",
    tag = "articles",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of published articles, pinned first, then newest",
            body = ArticleEnvelope<Page<ListItem>>),
        (status = 400, description = "A parameter out of range, or a page deeper than 1,000 \
            articles (`page` × `size`; PARAM_ERROR)", body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn list(
    State(ctx): State<Reading>,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<(HeaderMap, ArticleOk<Page<ListItem>>), ArticleError> {
    public_page(&ctx, query.validate()?.within_public_depth()?).await
}

/// The public list's page of a validated listing: the list and the articles of a tag or a
/// category answer the same page for the same filters. A keyword is searched in the search
/// index, whose answers say how long they stay fresh ([`super::search::FRESH_SECONDS`]).
async fn public_page(
    ctx: &Reading,
    listing: Listing,
) -> Result<(HeaderMap, ArticleOk<Page<ListItem>>), ArticleError> {
    let table = ctx.table.as_ref();
    let filters = (listing.category_id, listing.tag_id);
    let (headers, found) = match listing.keyword.as_deref().map(str::trim) {
        Some(keyword) => {
            let paging = (listing.page, listing.size);
            let found = crate::search::keyword_page(&ctx.port, table, keyword, filters, paging);
            (fresh_for_seconds(), found.await?)
        }
        None => {
            let filter = Filter { category_id: filters.0, tag_id: filters.1 };
            (HeaderMap::new(), read::public_page(table, &filter, listing.page, listing.size).await?)
        }
    };
    let records = found.heads.iter().map(ArticleHead::list_item).collect();
    let page = Page::new(records, found.total, listing.page, listing.size, listing.current);
    Ok((headers, ArticleOk::ok(page)))
}

/// The public list's page of the tag or category whose slug the path names: the query is
/// checked first (400 without reading), then the slug's marker read (404 NOT_FOUND when no
/// tag or category holds it, a string that cannot be a slug included, as the taxonomy's and
/// the feeds' reads by slug answer), then the page read as the list reads it.
async fn page_by_slug(
    ctx: &Reading,
    named: PathFilter,
    slug: Result<Path<String>, PathRejection>,
    query: ListQuery,
) -> Result<(HeaderMap, ArticleOk<Page<ListItem>>), ArticleError> {
    let listing = query.validate()?.without(named)?.within_depth_of(named)?;
    // A segment that does not decode to UTF-8 names no slug either.
    let slug = slug.map(|Path(slug)| slug).unwrap_or_default();
    let table = ctx.table.as_ref();
    let id = match named {
        PathFilter::Tag => taxonomy::tag_id_by_slug(table, &slug).await?,
        PathFilter::Category => taxonomy::category_id_by_slug(table, &slug).await?,
    };
    let Some(id) = id else {
        // Cut short: it comes from the path.
        let slug: String = slug.chars().take(60).collect();
        let kind = named.kind();
        return Err(Failure::NotFound(format!("no {kind} has the slug `{slug}`")).into());
    };
    public_page(ctx, listing.named(named, id)).await
}

/// A page of the published articles carrying a tag, pinned first, then newest.
///
/// Exactly the page of `GET /api/v1/articles?tagId=<the tag's id>`: the same paging (`page` or
/// `current`, `size`, at most 1,000 articles deep) and filters (`categoryId`, `keyword`);
/// `tagId` is refused, since the path names the tag.
#[utoipa::path(
    get,
    path = "/tags/slug/{slug}/articles",
    operation_id = "listTagArticles",
    tag = "articles",
    params(
        ("slug" = String, Path, min_length = 1, description = "The tag's slug"),
        TagArticlesQuery,
    ),
    responses(
        (status = 200, description = "A page of the tag's published articles, pinned first, \
            then newest", body = ArticleEnvelope<Page<ListItem>>),
        (status = 400, description = "A parameter out of range, a page deeper than 1,000 \
            articles (`page` × `size`), or a `tagId` (PARAM_ERROR)", body = ArticleErrorEnvelope),
        (status = 404, description = "No tag has this slug (NOT_FOUND)",
            body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn by_tag(
    State(ctx): State<Reading>,
    slug: Result<Path<String>, PathRejection>,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<(HeaderMap, ArticleOk<Page<ListItem>>), ArticleError> {
    page_by_slug(&ctx, PathFilter::Tag, slug, query).await
}

/// A page of the published articles of a category, pinned first, then newest.
///
/// Exactly the page of `GET /api/v1/articles?categoryId=<the category's id>`: the same paging
/// (`page` or `current`, `size`, at most 1,000 articles deep) and filters (`tagId`, `keyword`);
/// `categoryId` is refused, since the path names the category.
#[utoipa::path(
    get,
    path = "/categories/slug/{slug}/articles",
    operation_id = "listCategoryArticles",
    tag = "articles",
    params(
        ("slug" = String, Path, min_length = 1, description = "The category's slug"),
        CategoryArticlesQuery,
    ),
    responses(
        (status = 200, description = "A page of the category's published articles, pinned \
            first, then newest", body = ArticleEnvelope<Page<ListItem>>),
        (status = 400, description = "A parameter out of range, a page deeper than 1,000 \
            articles (`page` × `size`), or a `categoryId` (PARAM_ERROR)",
            body = ArticleErrorEnvelope),
        (status = 404, description = "No category has this slug (NOT_FOUND)",
            body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn by_category(
    State(ctx): State<Reading>,
    slug: Result<Path<String>, PathRejection>,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<(HeaderMap, ArticleOk<Page<ListItem>>), ArticleError> {
    page_by_slug(&ctx, PathFilter::Category, slug, query).await
}

/// A published or archived article (one read); drafts and deleted ones are 404.
#[utoipa::path(
    get,
    path = "/{id}",
    operation_id = "getArticle",
    tag = "articles",
    params(IdParam),
    responses(
        (status = 200, description = "A published or archived article",
            body = ArticleEnvelope<Detail>, headers(
                ("Last-Modified" = String, description = "The article's `updateTime` as an \
                    HTTP-date (its last edit; its counters change without one)")
            )),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = ArticleErrorEnvelope),
        ArticleErrors<(Invalid, Internal)>,
    )
)]
pub async fn detail(
    State(ctx): State<AppContext>,
    PathId(id, ..): PathId<ArticleError>,
) -> Result<(HeaderMap, ArticleOk<Detail>), ArticleError> {
    match read::load(ctx.table.as_ref(), id).await? {
        Some((head, body)) if !head.is_deleted && head.status != Status::Draft => {
            let mut headers = HeaderMap::new();
            let modified = blog_core::time::http_date(&head.update_time);
            if let Some(modified) = modified.and_then(|at| HeaderValue::from_str(&at).ok()) {
                headers.insert(LAST_MODIFIED, modified);
            }
            Ok((headers, ArticleOk::ok(Detail::new(&head, body))))
        }
        _ => Err(ArticleFault::ArticleNotFound.into()),
    }
}
