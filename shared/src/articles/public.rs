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
    model::{ArticleHead, Detail, ListItem, Page, Status},
    read::{self, Filter},
};

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
