//! /api/v1/admin/comments (administrators): the list with its filters, approve, reject and
//! delete with a reason. Each status change is one transaction conditioned on the status read,
//! so two moderators or a retry move the counts once.

use axum::{body::Bytes, extract::State};
use futures::future::try_join_all;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        extract::{parse_json, PathId, QueryParams},
        Failure,
    },
    ports::table::{s, Index, Query, Table, TableError, Update},
    records::{self, query_all},
};
use blog_users::principal::AdminOnly;

use blog_core::http::ApiError;

use crate::envelope::CommentErrors;
use crate::{
    edit::remove,
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk,
    },
    keys,
    model::{Comment, CommentStatus, StoredComment},
    paging::{id_filter, Paged, Paging},
    repo,
    thread::Thread,
};

const ATTEMPTS: usize = 5;

type Admin = AdminOnly<CommentError>;
type Id = PathId<CommentError>;

/// Query of the administration list.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct AdminListQuery {
    /// Page number (default 1).
    #[param(value_type = Option<u64>, minimum = 1)]
    page: Option<String>,
    /// Alias of `page`.
    #[param(value_type = Option<u64>, minimum = 1)]
    current: Option<String>,
    /// Page size (default 10).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    size: Option<String>,
    /// Only this status (`PENDING`, `APPROVED`, `REJECTED`, `DELETED`); without it, every
    /// status but DELETED.
    status: Option<String>,
    /// Only comments on this article.
    #[param(value_type = Option<u64>, minimum = 1)]
    target_id: Option<String>,
    /// Only this user's comments.
    #[param(value_type = Option<u64>, minimum = 1)]
    user_id: Option<String>,
}

/// Body of a reject or an administrator's delete.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct ReasonInput {
    /// Why, at most 500 characters.
    reason: Option<String>,
}

/// The reason of an optional body (required when `required`).
pub(crate) fn reason(body: &Bytes, required: bool) -> Result<Option<String>, CommentError> {
    let given = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        parse_json::<ReasonInput>(body).map_err(CommentError::invalid)?.reason
    };
    let given = given.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
    match given {
        Some(reason) if reason.chars().count() > 500 => {
            Err(CommentError::invalid("reason must have at most 500 characters"))
        }
        None if required => Err(CommentError::invalid("reason is required")),
        other => Ok(other),
    }
}

/// The comments of every query, read together.
async fn read_all(
    table: &dyn Table,
    queries: Vec<Query>,
) -> Result<Vec<StoredComment>, TableError> {
    let pages = try_join_all(queries.into_iter().map(|q| query_all(table, q))).await?;
    pages.into_iter().flatten().map(records::from_item).collect()
}

/// Comments of the administration list, newest first, filtered.
async fn matching(
    ctx: &AppContext,
    status: Option<CommentStatus>,
    article: Option<u64>,
    user: Option<u64>,
) -> Result<Vec<StoredComment>, CommentError> {
    let table = ctx.table.as_ref();
    let mut comments = match (article, user) {
        (Some(article), _) => repo::of_article(table, article).await?,
        // A user's comments are found through their locators, then read in batches.
        (None, Some(user)) => repo::get_located(table, &repo::of_user(table, user).await?).await?,
        (None, None) => {
            let statuses = match status {
                Some(status) => vec![status],
                None => CommentStatus::ALL
                    .into_iter()
                    .filter(|s| *s != CommentStatus::Deleted)
                    .collect(),
            };
            let queries = statuses
                .into_iter()
                .map(|s| Query::partition(Index::Gsi3, keys::by_status(s)))
                .collect();
            read_all(table, queries).await?
        }
    };
    comments.retain(|c| {
        status.map_or(c.status != CommentStatus::Deleted, |s| c.status == s)
            && article.is_none_or(|a| c.article_id == a)
            && user.is_none_or(|u| c.user_id == u)
    });
    comments.sort_by_key(|c| std::cmp::Reverse(c.id));
    Ok(comments)
}

/// Every comment, newest first, with filters (administrators). The whole content and author
/// show, DELETED ones included when asked for by status.
#[utoipa::path(
    get,
    path = "",
    operation_id = "adminListComments",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(AdminListQuery),
    responses(
        (status = 200, description = "A page of comments, newest first", body = Envelope<Paged<Comment>>),
        (status = 400, description = "A parameter out of range (PARAM_ERROR)", body = Error),
        CommentErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
    _admin: Admin,
    QueryParams(query, ..): QueryParams<AdminListQuery, CommentError>,
) -> Result<CommentOk<Paged<Comment>>, CommentError> {
    let paging =
        Paging::parse(query.page.as_deref(), query.current.as_deref(), query.size.as_deref())?;
    let status = match query.status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) => Some(CommentStatus::parse(raw).ok_or_else(|| {
            CommentError::invalid("status must be PENDING, APPROVED, REJECTED or DELETED")
        })?),
    };
    let article = id_filter("targetId", query.target_id.as_deref())?;
    let user = id_filter("userId", query.user_id.as_deref())?;
    let comments = matching(&ctx, status, article, user).await?;
    Ok(CommentOk::ok(paging.cut(comments.iter().map(StoredComment::admin_view).collect())))
}

/// Moves a comment to `to` (a DELETED one is not found); a comment already there is left
/// as it is. Returns the comment as it stands after.
pub(crate) async fn moderate(
    ctx: &AppContext,
    id: u64,
    to: CommentStatus,
    extra: Update,
) -> Result<Comment, CommentError> {
    for _ in 0..ATTEMPTS {
        let comment = repo::find(ctx.table.as_ref(), id)
            .await?
            .filter(|c| c.status != CommentStatus::Deleted)
            .ok_or(CommentFault::CommentNotFound)?;
        if comment.status == to {
            return Ok(comment.admin_view());
        }
        let thread = Thread::of(ctx.table.as_ref(), &comment).await?;
        let Some(read) = thread.still(&comment) else { continue };
        let writes = thread.status_change(read, to, extra.clone());
        match ctx.table.transact(writes).await {
            Ok(()) => {
                let after =
                    repo::get_in(ctx.table.as_ref(), comment.article_id, comment.root_id, id)
                        .await?;
                return Ok(after.ok_or(CommentFault::CommentNotFound)?.admin_view());
            }
            // The comment or its thread changed meanwhile: read again.
            Err(TableError::TransactionCancelled { .. }) => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}

/// Approves a PENDING or REJECTED comment (administrators): it shows and counts, with the
/// replies under it that it hid.
#[utoipa::path(
    post,
    path = "/{id}/approve",
    operation_id = "approveComment",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "APPROVED (also when it already was)", body = Envelope<Comment>),
        (status = 404, description = "No such comment, or a deleted one (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn approve(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): Id,
) -> Result<CommentOk<Comment>, CommentError> {
    moderate(&ctx, id, CommentStatus::Approved, Update::new()).await.map(CommentOk::ok)
}

/// Rejects a comment (administrators; body `reason` required): only its author and
/// administrators see it, and the replies under it, afterwards; none of them counts.
#[utoipa::path(
    post,
    path = "/{id}/reject",
    operation_id = "rejectComment",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = ReasonInput,
    responses(
        (status = 200, description = "REJECTED (also when it already was)", body = Envelope<Comment>),
        (status = 400, description = "A bad id, or no `reason` (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such comment, or a deleted one (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn reject(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): Id,
    body: Bytes,
) -> Result<CommentOk<Comment>, CommentError> {
    let reason = reason(&body, true)?.unwrap_or_default();
    let extra = Update::new().set("rejectReason", s(reason));
    moderate(&ctx, id, CommentStatus::Rejected, extra).await.map(CommentOk::ok)
}

/// Deletes any comment (administrators; body `reason`, optional): as its author's delete.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "adminDeleteComment",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body(content = ReasonInput, description = "Optional"),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Null>),
        (status = 400, description = "A bad id, or a `reason` over 500 characters (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such comment, or a deleted one (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn delete(
    State(ctx): State<AppContext>,
    _admin: Admin,
    PathId(id, ..): Id,
    body: Bytes,
) -> Result<CommentOk<Null>, CommentError> {
    let reason = reason(&body, false)?;
    for _ in 0..ATTEMPTS {
        let comment = repo::find(ctx.table.as_ref(), id)
            .await?
            .filter(|c| c.status != CommentStatus::Deleted)
            .ok_or(CommentFault::CommentNotFound)?;
        if remove(&ctx, &comment, reason.as_deref()).await? {
            return Ok(CommentOk::ok(Null));
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}
