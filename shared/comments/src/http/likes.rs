//! Readers' likes of comments and articles (signed in): idempotent, and exact under
//! concurrency: the like item (`LIKES#<userId>`) is put on `attribute_not_exists` or deleted on
//! `attribute_exists` in one transaction with the target's `likeCount` ADD, so parallel likes
//! of one user count once.

use axum::extract::State;
use futures::try_join;

use blog_articles::{self as articles};
use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        extract::PathId,
        Failure,
    },
    ports::table::{refused_by, s, Condition, Key, TableError, Transaction, Update, Write},
    records,
};
use blog_users::principal::{Authenticated, Principal};

use crate::envelope::CommentErrors;
use crate::{
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk,
    },
    keys,
    model::StoredComment,
    repo, thread,
};

const ATTEMPTS: usize = 5;
const LIKE_COUNT: &str = "likeCount";

type Caller = Authenticated<CommentError>;
type Id = PathId<CommentError>;

/// The like item of `key`.
fn like_item(key: &Key) -> Write {
    let mut item = records::key_item(key);
    item.insert("createTime".into(), s(blog_core::time::now_string()));
    Write::Put { item, condition: Some(Condition::NotExists) }
}

/// The like's write and the target's counter write: the like's condition failing means the
/// state asked for already holds (done); the target's failing, that it changed (read again).
async fn apply(ctx: &AppContext, like: Write, target: Write) -> Result<Option<()>, CommentError> {
    let writes = Transaction::new().with("like", like).with("target", target);
    match writes.commit(ctx.table.as_ref()).await {
        Ok(()) => Ok(Some(())),
        Err(error) if refused_by(&error, "like") => Ok(Some(())),
        Err(TableError::Refused { .. }) => Ok(None),
        Err(other) => Err(other.into()),
    }
}

/// A comment the caller sees (not deleted, under no comment hidden from them) on a readable
/// article, else COMMENT_NOT_FOUND.
async fn likable(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
) -> Result<StoredComment, CommentError> {
    let table = ctx.table.as_ref();
    let viewer = Some((caller.id, caller.is_admin()));
    match repo::find_with_article(table, id).await? {
        Some((comment, true)) if thread::shown_to(table, &comment, viewer).await? => Ok(comment),
        _ => Err(CommentFault::CommentNotFound.into()),
    }
}

async fn like_comment(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
    on: bool,
) -> Result<(), CommentError> {
    let like = keys::comment_like(caller.id, id);
    for _ in 0..ATTEMPTS {
        let comment = likable(ctx, caller, id).await?;
        let key = comment.key();
        let (like, target) = if on {
            let condition = Condition::equals("status", s(comment.status.name()));
            let update = Update::new().add(LIKE_COUNT, 1);
            (like_item(&like), Write::Update { key, update, condition: Some(condition) })
        } else {
            let update = Update::new().add(LIKE_COUNT, -1);
            (
                Write::Delete { key: like.clone(), condition: Some(Condition::Exists) },
                Write::Update { key, update, condition: Some(Condition::Exists) },
            )
        };
        if apply(ctx, like, target).await?.is_some() {
            return Ok(());
        }
    }
    Err(Failure::Conflict("the comment kept changing: try again".into()).into())
}

async fn like_article(
    ctx: &AppContext,
    caller: &Principal,
    id: u64,
    on: bool,
) -> Result<(), CommentError> {
    let like = keys::article_like(caller.id, id);
    for _ in 0..ATTEMPTS {
        let article = articles::reaction_target(ctx.table.as_ref(), id)
            .await?
            .ok_or(CommentFault::ArticleNotFound)?;
        let (like, target) = if on {
            (like_item(&like), articles::counter_while(&article, articles::LIKE_COUNT, 1, false))
        } else {
            (
                Write::Delete { key: like.clone(), condition: Some(Condition::Exists) },
                articles::counter_add(id, articles::LIKE_COUNT, -1),
            )
        };
        if apply(ctx, like, target).await?.is_some() {
            return Ok(());
        }
    }
    Err(Failure::Conflict("the article kept changing: try again".into()).into())
}

/// Likes a comment the caller sees (idempotent: a second like changes nothing).
#[utoipa::path(
    post,
    path = "/api/v1/comments/{id}/like",
    operation_id = "likeComment",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Liked (also when it already was)", body = Envelope<Null>),
        (status = 404, description = "No such comment for the caller, or one on an article \
            deleted or no longer published (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn like(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<Null>, CommentError> {
    like_comment(&ctx, &caller, id, true).await.map(|()| CommentOk::ok(Null))
}

/// Takes back a like of a comment (idempotent: unliking what is not liked changes nothing).
#[utoipa::path(
    delete,
    path = "/api/v1/comments/{id}/like",
    operation_id = "unlikeComment",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Not liked (also when it was not)", body = Envelope<Null>),
        (status = 404, description = "No such comment for the caller, or one on an article \
            deleted or no longer published (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn unlike(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<Null>, CommentError> {
    like_comment(&ctx, &caller, id, false).await.map(|()| CommentOk::ok(Null))
}

/// Whether the caller likes a comment (`data`: boolean).
#[utoipa::path(
    get,
    path = "/api/v1/comments/{id}/liked",
    operation_id = "commentLiked",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Whether the caller likes it", body = Envelope<bool>),
        (status = 404, description = "No such comment for the caller, or one on an article \
            deleted or no longer published (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn liked(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<bool>, CommentError> {
    let like = keys::comment_like(caller.id, id);
    let (_, like) = try_join!(likable(&ctx, &caller, id), async {
        ctx.table.get(&like).await.map_err(CommentError::from)
    })?;
    Ok(CommentOk::ok(like.is_some()))
}

/// Likes a published or archived article (idempotent).
#[utoipa::path(
    post,
    path = "/api/v1/articles/{id}/like",
    operation_id = "likeArticle",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Liked (also when it already was)", body = Envelope<Null>),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn like_an_article(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<Null>, CommentError> {
    like_article(&ctx, &caller, id, true).await.map(|()| CommentOk::ok(Null))
}

/// Takes back a like of an article (idempotent).
#[utoipa::path(
    delete,
    path = "/api/v1/articles/{id}/like",
    operation_id = "unlikeArticle",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Not liked (also when it was not)", body = Envelope<Null>),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn unlike_an_article(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<Null>, CommentError> {
    like_article(&ctx, &caller, id, false).await.map(|()| CommentOk::ok(Null))
}

/// Whether the caller likes an article (`data`: boolean).
#[utoipa::path(
    get,
    path = "/api/v1/articles/{id}/liked",
    operation_id = "articleLiked",
    tag = "likes",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Whether the caller likes it", body = Envelope<bool>),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Internal)>,
    )
)]
pub async fn article_liked(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Caller,
    PathId(id, ..): Id,
) -> Result<CommentOk<bool>, CommentError> {
    let table = ctx.table.as_ref();
    let like = keys::article_like(caller.id, id);
    let (article, like) = try_join!(articles::reaction_target(table, id), table.get(&like))?;
    article.ok_or(CommentFault::ArticleNotFound)?;
    Ok(CommentOk::ok(like.is_some()))
}
