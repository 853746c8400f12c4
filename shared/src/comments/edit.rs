//! Changing one's comment: editing (author) and deleting (author or administrator).

use axum::extract::State;

use crate::{
    articles,
    context::AppContext,
    http::{
        docs::{IdParam, Null, INTERNAL, UNAUTHORIZED},
        extract::{JsonBody, PathId},
        Failure,
    },
    ports::table::{s, AttributeValue, Condition, TableError, Update},
    records,
    users::principal::{Authenticated, Principal},
};

use super::{
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentOk,
    },
    keys,
    model::{Comment, CommentStatus, StoredComment},
    post::checked_content,
    repo,
};

const ATTEMPTS: usize = 5;

/// Body of an edit.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct EditInput {
    /// Markdown, 1-2000 characters.
    content: String,
}

/// The comment `caller` may change: visible to them and not deleted, else 404; someone
/// else's is 403 unless `admin_may` and the caller is an administrator.
pub(super) async fn own(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
    admin_may: bool,
) -> Result<StoredComment, CommentError> {
    let comment = repo::find(ctx.table.as_ref(), id)
        .await?
        .filter(|c| c.visible_to(Some((caller.id, caller.is_admin()))))
        .ok_or(CommentError::CommentNotFound)?;
    if comment.user_id != caller.id && !(admin_may && caller.is_admin()) {
        return Err(CommentError::CommentForbidden);
    }
    Ok(comment)
}

/// Edits one's comment (its author only): re-rendered, `isEdited` true; its status stays.
#[utoipa::path(
    put,
    path = "/{id}",
    operation_id = "updateComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = EditInput,
    responses(
        (status = 200, description = "The edited comment", body = Envelope<Comment>),
        (status = 400, description = "A bad id, or content outside 1-2000 characters \
            (PARAM_ERROR)", body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = "Someone else's comment (COMMENT_FORBIDDEN)", body = Error),
        (status = 404, description = "No such comment for the caller, or a deleted one \
            (COMMENT_NOT_FOUND)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn update(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    PathId(id, ..): PathId<CommentError>,
    JsonBody(input, ..): JsonBody<EditInput, CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    checked_content(&input.content)?;
    let html = articles::render_comment(&input.content);
    for _ in 0..ATTEMPTS {
        let comment = own(&ctx, &caller, id, false).await?;
        let update = Update::new()
            .set("content", s(&input.content))
            .set("contentHtml", s(&html))
            .set("isEdited", AttributeValue::Bool(true))
            .set("updateTime", s(crate::time::now_string()));
        let condition = Condition::equals("status", s(comment.status.name()));
        let key = keys::comment(comment.article_id, id);
        match ctx.table.update(&key, update, Some(condition)).await {
            Ok(item) => return Ok(CommentOk(records::from_item::<StoredComment>(item)?.view())),
            Err(TableError::ConditionFailed) => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}

/// Marks `comment` DELETED (its content cleared, `deleteReason` kept when given), moving the
/// counts once; a comment whose status changed meanwhile is read again (`None`: retry).
pub(super) async fn remove(
    ctx: &AppContext,
    comment: &StoredComment,
    reason: Option<&str>,
) -> Result<bool, CommentError> {
    let mut set = vec![("content", String::new()), ("contentHtml", String::new())];
    if let Some(reason) = reason {
        set.push(("deleteReason", reason.to_string()));
    }
    let writes = repo::status_change(comment, CommentStatus::Deleted, set);
    match ctx.table.transact(writes).await {
        Ok(()) => Ok(true),
        Err(TableError::TransactionCancelled { failed }) if failed.contains(&0) => Ok(false),
        Err(other) => Err(other.into()),
    }
}

/// Deletes a comment (its author or an administrator).
///
/// A comment without shown replies leaves the tree; one with replies stays in place as a
/// placeholder (status DELETED, no content, no author).
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Null>),
        (status = 400, description = "A bad id (PARAM_ERROR)", body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = "Someone else's comment (COMMENT_FORBIDDEN)", body = Error),
        (status = 404, description = "No such comment for the caller, or a deleted one \
            (COMMENT_NOT_FOUND)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn delete(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    PathId(id, ..): PathId<CommentError>,
) -> Result<CommentOk<Null>, CommentError> {
    for _ in 0..ATTEMPTS {
        let comment = own(&ctx, &caller, id, true).await?;
        if remove(&ctx, &comment, None).await? {
            tracing::info!(comment_id = id, user_id = caller.id, "comment deleted");
            return Ok(CommentOk(Null));
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}
