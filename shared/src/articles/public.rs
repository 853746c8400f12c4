//! Handlers of /api/v1/articles (anonymous).

use axum::extract::State;

use crate::{
    context::AppContext,
    http::{
        articles::{ArticleError, ArticleOk},
        extract::{PathId, QueryParams},
    },
};

use super::{
    input::ListQuery,
    model::{ArticleHead, Detail, ListItem, Page, RelatedItem, Status},
    read::{self, Filter},
    related,
};

/// Query of the related list.
#[derive(serde::Deserialize)]
pub struct RelatedQuery {
    limit: Option<String>,
}

/// GET /{id}/related: nearest by embedding, then the same category, then the latest; `limit`
/// 1-20 (default 5). Two reads.
pub async fn related(
    State(ctx): State<AppContext>,
    PathId(id, ..): PathId<ArticleError>,
    QueryParams(query, ..): QueryParams<RelatedQuery, ArticleError>,
) -> Result<ArticleOk<Vec<RelatedItem>>, ArticleError> {
    let limit = match query.limit.as_deref().map(str::trim) {
        None | Some("") => 5,
        Some(raw) => match raw.parse::<usize>() {
            Ok(limit) if (1..=20).contains(&limit) => limit,
            _ => return Err(ArticleError::Param("limit must be an integer from 1 to 20".into())),
        },
    };
    let heads = related::related(ctx.table.as_ref(), id, limit)
        .await?
        .ok_or(ArticleError::ArticleNotFound)?;
    Ok(ArticleOk::ok(heads.iter().map(ArticleHead::related_item).collect()))
}

/// GET: published articles, pinned first then newest; `page`/`current`, `size`, `categoryId`,
/// `tagId`, `keyword`.
pub async fn list(
    State(ctx): State<AppContext>,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<ArticleOk<Page<ListItem>>, ArticleError> {
    let listing = query.validate()?;
    let filter = Filter {
        category_id: listing.category_id,
        tag_id: listing.tag_id,
        keyword: listing.keyword,
    };
    let found = read::public_page(ctx.table.as_ref(), &filter, listing.page, listing.size).await?;
    let records = found.heads.iter().map(ArticleHead::list_item).collect();
    Ok(ArticleOk::ok(Page::new(records, found.total, listing.page, listing.size, listing.current)))
}

/// GET /{id}: PUBLISHED and ARCHIVED articles (one read); anything else is 404.
pub async fn detail(
    State(ctx): State<AppContext>,
    PathId(id, ..): PathId<ArticleError>,
) -> Result<ArticleOk<Detail>, ArticleError> {
    match read::load(ctx.table.as_ref(), id).await? {
        Some((head, body)) if head.is_deleted == 0 && head.state() != Status::Draft => {
            Ok(ArticleOk::ok(Detail::new(&head, &body)))
        }
        _ => Err(ArticleError::ArticleNotFound),
    }
}
