//! Changing one's comment: editing (author; limited like posting, and sent back to moderation
//! when it is on) and deleting (author or administrator).

use axum::extract::State;
use futures::try_join;

use blog_articles::{self as articles};
use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        extract::{JsonBody, PathId},
        Failure,
    },
    ports::table::{s, AttributeValue, Condition, TableError, Update, Write},
};
use blog_users::principal::{Authenticated, Principal};

use crate::envelope::CommentErrors;
use crate::{
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk,
    },
    model::{Comment, CommentStatus, StoredComment},
    post::checked_content,
    rate::{self, Window},
    repo,
    thread::Thread,
};

const ATTEMPTS: usize = 5;

/// Body of an edit.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct EditInput {
    /// Markdown, 1-2000 characters.
    content: String,
}

/// The comment `caller` may change: visible to them and not deleted, else 404; someone
/// else's is 403 unless `admin_may` and the caller is an administrator. With `readable`, a
/// comment whose article is deleted or no longer published is not found either.
pub(crate) async fn own(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
    admin_may: bool,
    readable: bool,
) -> Result<StoredComment, CommentError> {
    let found = repo::find_with_article(ctx.table.as_ref(), id).await?;
    let comment = found
        .filter(|(c, article)| {
            c.visible_to(Some((caller.id, caller.is_admin()))) && (*article || !readable)
        })
        .map(|(comment, _)| comment)
        .ok_or(CommentFault::CommentNotFound)?;
    if comment.user_id != caller.id && !(admin_may && caller.is_admin()) {
        return Err(CommentFault::CommentForbidden.into());
    }
    Ok(comment)
}

/// Edits one's comment (its author only): re-rendered, `isEdited` true. With moderation on, a
/// non-administrator's edit of an APPROVED comment sends it back to PENDING (no
/// approve-then-edit spam); otherwise its status stays. At most 10 edits a minute per user.
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
        (status = 403, description = "Someone else's comment (COMMENT_FORBIDDEN)", body = Error),
        (status = 404, description = "No such comment for the caller, a deleted one, or one on \
            an article deleted or no longer published (COMMENT_NOT_FOUND)", body = Error),
        (status = 429, description = "More than 10 edits in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        CommentErrors<(Unauthorized, Internal)>,
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
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let (comment, window) = try_join!(own(&ctx, &caller, id, false, true), async {
            Ok(Window::read(table, rate::EDITS, caller.id).await?)
        })?;
        window.check()?;
        let time = blog_core::time::now_string();
        let content = Update::new()
            .set("content", s(&input.content))
            .set("contentHtml", s(&html))
            .set("isEdited", AttributeValue::Bool(true));
        let back_to_pending = ctx.config.comments_moderation
            && !caller.is_admin()
            && comment.status == CommentStatus::Approved;
        let (mut writes, status) = if back_to_pending {
            let thread = Thread::of(table, &comment).await?;
            let Some(read) = thread.still(&comment) else { continue };
            (thread.status_change(read, CommentStatus::Pending, content), CommentStatus::Pending)
        } else {
            let write = Write::Update {
                key: comment.key(),
                update: content.set("updateTime", s(&time)),
                condition: Some(Condition::equals("status", s(comment.status.name()))),
            };
            (vec![write], comment.status)
        };
        writes.push(window.write());
        match table.transact(writes).await {
            Ok(()) => {
                let edited = StoredComment {
                    content: input.content,
                    content_html: html,
                    is_edited: true,
                    status,
                    update_time: time,
                    ..comment
                };
                tracing::info!(comment_id = id, user_id = caller.id, "comment edited");
                return Ok(CommentOk::ok(edited.view()));
            }
            // The comment, its thread or the rate window changed meanwhile: read again.
            Err(TableError::TransactionCancelled { .. }) => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}

/// Marks `comment` DELETED (its content cleared, `deleteReason` kept when given), moving the
/// counts once; a comment or thread that changed meanwhile is read again (`false`: retry).
pub(crate) async fn remove(
    ctx: &AppContext,
    comment: &StoredComment,
    reason: Option<&str>,
) -> Result<bool, CommentError> {
    let mut cleared = Update::new().set("content", s("")).set("contentHtml", s(""));
    if let Some(reason) = reason {
        cleared = cleared.set("deleteReason", s(reason));
    }
    let thread = Thread::of(ctx.table.as_ref(), comment).await?;
    let Some(read) = thread.still(comment) else { return Ok(false) };
    let writes = thread.status_change(read, CommentStatus::Deleted, cleared);
    match ctx.table.transact(writes).await {
        Ok(()) => Ok(true),
        Err(TableError::TransactionCancelled { .. }) => Ok(false),
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
        (status = 403, description = "Someone else's comment (COMMENT_FORBIDDEN)", body = Error),
        (status = 404, description = "No such comment for the caller, or a deleted one \
            (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn delete(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    PathId(id, ..): PathId<CommentError>,
) -> Result<CommentOk<Null>, CommentError> {
    for _ in 0..ATTEMPTS {
        let comment = own(&ctx, &caller, id, true, false).await?;
        if remove(&ctx, &comment, None).await? {
            tracing::info!(comment_id = id, user_id = caller.id, "comment deleted");
            return Ok(CommentOk::ok(Null));
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}
