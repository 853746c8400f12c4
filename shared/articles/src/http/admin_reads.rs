//! Reads of /api/v1/admin/articles (administrators): every non-deleted article in any state.

use axum::extract::State;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::IdParam,
        extract::{PathId, QueryParams},
    },
};
use blog_users::principal::AdminOnly;

use crate::envelope::ArticleErrors;
use crate::{
    admin::existing,
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleOk,
    },
    input::ListQuery,
    model::{ArticleHead, Detail, ListItem, Page},
    read,
};

type Admin = AdminOnly<ArticleError>;

/// A page of every non-deleted article in any status, newest first (administrators).
#[utoipa::path(
    get,
    path = "",
    operation_id = "adminListArticles",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(
        ("page" = Option<u64>, Query, minimum = 1, maximum = 1000000,
            description = "Page number (default 1)"),
        ("current" = Option<u64>, Query, minimum = 1, maximum = 1000000,
            description = "Alias of `page`; the page object then carries `current` too"),
        ("size" = Option<u64>, Query, minimum = 1, maximum = 100,
            description = "Page size (default 10)"),
        ("status" = Option<u64>, Query, minimum = 0, maximum = 2,
            description = "Only this status: 0 DRAFT, 1 PUBLISHED, 2 ARCHIVED"),
    ),
    responses(
        (status = 200, description = "A page of non-deleted articles of any status, newest first",
            body = Envelope<Page<ListItem>>),
        (status = 400, description = "A parameter out of range (PARAM_ERROR)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
    _admin: Admin,
    QueryParams(query, ..): QueryParams<ListQuery, ArticleError>,
) -> Result<ArticleOk<Page<ListItem>>, ArticleError> {
    let listing = query.validate()?;
    let found =
        read::admin_page(ctx.table.as_ref(), listing.status, listing.page, listing.size).await?;
    let records = found.heads.iter().map(ArticleHead::list_item).collect();
    Ok(ArticleOk::ok(Page::new(records, found.total, listing.page, listing.size, listing.current)))
}

/// An article in any state (administrators).
#[utoipa::path(
    get,
    path = "/{id}",
    operation_id = "adminGetArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The article in any state", body = Envelope<Detail>),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn detail(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): PathId<ArticleError>,
) -> Result<ArticleOk<Detail>, ArticleError> {
    let (head, body) = existing(&ctx, id).await?;
    Ok(ArticleOk::ok(Detail::new(&head, body)))
}
