//! Handlers of /api/v1/articles (anonymous).

use axum::{
    extract::State,
    http::{header::LAST_MODIFIED, HeaderMap, HeaderValue},
};

use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, INTERNAL},
        extract::{PathId, QueryParams},
        Failure,
    },
};

use super::{
    envelope::{ArticleEnvelope, ArticleError, ArticleErrorEnvelope, ArticleOk},
    input::ListQuery,
    model::{ArticleHead, Detail, ListItem, Page, RelatedItem, Status},
    read::{self, Filter},
    related,
};

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
        (status = 500, description = INTERNAL, body = ArticleErrorEnvelope),
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
        .ok_or(ArticleError::ArticleNotFound)?;
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
        (status = 500, description = INTERNAL, body = ArticleErrorEnvelope),
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<ArticleOk<Page<ListItem>>, ArticleError> {
    let listing = query.validate()?.within_public_depth()?;
    let filter = Filter {
        category_id: listing.category_id,
        tag_id: listing.tag_id,
        keyword: listing.keyword,
    };
    let found = read::public_page(ctx.table.as_ref(), &filter, listing.page, listing.size).await?;
    let records = found.heads.iter().map(ArticleHead::list_item).collect();
    Ok(ArticleOk::ok(Page::new(records, found.total, listing.page, listing.size, listing.current)))
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
        (status = 400, description = "A bad id (PARAM_ERROR)", body = ArticleErrorEnvelope),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = ArticleErrorEnvelope),
        (status = 500, description = INTERNAL, body = ArticleErrorEnvelope),
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
        _ => Err(ArticleError::ArticleNotFound),
    }
}
