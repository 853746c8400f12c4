//! Writing a comment or a reply: one transaction puts it, counts it on the article and its
//! parent when it is APPROVED, and takes its place in the author's rate window, each write
//! conditioned on the state read; a lost condition is read again and retried. A reply's parent
//! must be APPROVED and none of its ancestors PENDING or REJECTED: the transaction checks their
//! statuses as read and ADDs the root's revision (`thread`).

use axum::extract::State;
use futures::join;

use blog_articles::{self as articles, ReactionTarget};
use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        extract::{id_from_json, JsonBody},
        Failure,
    },
    ids::{next_id, IdKind},
    ports::table::{refused_by, s, Condition, Table, TableError, Transaction, Update, Write},
};
use blog_users::{
    principal::{Authenticated, Principal},
    repo as accounts,
};

use blog_core::http::ApiError;

use crate::envelope::CommentErrors;
use crate::{
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk,
    },
    model::{Comment, CommentStatus, StoredComment},
    public::article_target,
    rate::{self, Window},
    repo,
    roots::{self, RootEntry},
    thread::{self, REV},
};

/// Deepest `depth` (replies nest at most 5 levels).
pub const MAX_DEPTH: u8 = 4;
/// Longest content, in characters.
pub const MAX_CHARS: usize = 2000;
const ATTEMPTS: usize = 6;

/// Body of a new comment.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentInput {
    /// Markdown, 1-2000 characters.
    content: String,
    /// `ARTICLE`.
    target_type: Option<String>,
    /// The article's id (a string or a number).
    #[schema(value_type = String)]
    target_id: Option<serde_json::Value>,
    /// The comment answered (required on `/reply`).
    #[schema(value_type = Option<String>)]
    parent_id: Option<serde_json::Value>,
}

/// Content must have 1-2000 characters and not be blank.
pub(crate) fn checked_content(content: &str) -> Result<(), CommentError> {
    let chars = content.chars().count();
    if content.trim().is_empty() || chars > MAX_CHARS {
        return Err(CommentError::invalid(format!(
            "content must have 1-{MAX_CHARS} characters (not only spaces), got {chars}"
        )));
    }
    Ok(())
}

fn raw_id(value: &Option<serde_json::Value>) -> Option<String> {
    match value {
        Some(serde_json::Value::String(text)) => Some(text.clone()),
        Some(serde_json::Value::Number(number)) => Some(number.to_string()),
        _ => None,
    }
}

/// What a post is checked against, read together.
struct Reads {
    article: Option<ReactionTarget>,
    parent: Option<StoredComment>,
    window: Window,
    author: (String, String),
}

async fn read_all(
    ctx: &AppContext,
    caller: &Principal,
    article_id: u64,
    parent_id: Option<u64>,
) -> Result<Reads, CommentError> {
    let table = ctx.table.as_ref();
    let parent = async {
        match parent_id {
            Some(id) => repo::find_in_article(table, article_id, id).await,
            None => Ok(None),
        }
    };
    let window = Window::read(table, rate::POSTS, caller.id);
    let author = async {
        let account = match &caller.account {
            Some(account) => Some((**account).clone()),
            None => accounts::find_by_id(table, caller.id).await?,
        };
        let account = account.ok_or_else(|| Failure::Unauthorized("account is deleted".into()))?;
        let name =
            if account.nickname.trim().is_empty() { account.username } else { account.nickname };
        Ok::<_, CommentError>((name, account.avatar))
    };
    let (article, parent, window, author) =
        join!(articles::reaction_target(table, article_id), parent, window, author);
    Ok(Reads { article: article?, parent: parent?, window: window?, author: author? })
}

/// The parent a reply may answer, with its ancestors (parent's parent first): 404 when the
/// caller does not see it, 400 naming `parentId` when they do but it takes no reply (not
/// APPROVED, or under a PENDING or REJECTED comment).
async fn answerable(
    table: &dyn Table,
    parent: Option<StoredComment>,
    viewer: Option<(u64, bool)>,
) -> Result<(StoredComment, Vec<StoredComment>), CommentError> {
    let parent = parent.filter(|p| p.visible_to(viewer)).ok_or(CommentFault::CommentNotFound)?;
    let above = thread::ancestors(table, &parent).await?;
    if above.iter().any(|a| a.status.hides_replies() && !a.visible_to(viewer)) {
        return Err(CommentFault::CommentNotFound.into());
    }
    if parent.status != CommentStatus::Approved || above.iter().any(|a| a.status.hides_replies()) {
        return Err(CommentError::invalid(format!(
            "parentId: comment {} takes no reply: it is {} or under a comment that is not \
             approved",
            parent.id,
            parent.status.name()
        )));
    }
    Ok((parent, above))
}

/// The writes of a reply beyond its own: the parent counts it (when `counted`), each ancestor
/// is checked to be as read, and the root's revision moves.
fn thread_writes(parent: &StoredComment, above: &[StoredComment], counted: i64) -> Vec<Write> {
    let key = StoredComment::key;
    let as_read = |c: &StoredComment| Condition::equals("status", s(c.status.name()));
    let mut parent_update = Update::new().add("replyCount", counted);
    if parent.parent_id.is_none() {
        parent_update = parent_update.add(REV, 1);
    }
    let mut writes = vec![Write::Update {
        key: key(parent),
        update: parent_update,
        condition: Some(as_read(parent)),
    }];
    for ancestor in above {
        writes.push(if ancestor.parent_id.is_none() {
            Write::Update {
                key: key(ancestor),
                update: Update::new().add(REV, 1),
                condition: Some(as_read(ancestor)),
            }
        } else {
            Write::Check { key: key(ancestor), condition: as_read(ancestor) }
        });
    }
    writes
}

/// Posts a comment of `caller` (checks, then the transaction, retried on a lost condition).
async fn post(
    ctx: &AppContext,
    caller: &Principal,
    input: CommentInput,
) -> Result<Comment, CommentError> {
    checked_content(&input.content)?;
    let article_id =
        article_target(input.target_type.as_deref(), raw_id(&input.target_id).as_deref())?;
    let parent_id = match &input.parent_id {
        None | Some(serde_json::Value::Null) => None,
        Some(raw) => Some(id_from_json("parentId", raw).map_err(CommentError::invalid)?),
    };
    let viewer = Some((caller.id, caller.is_admin()));
    let html = articles::render_comment(&input.content);
    let table: &dyn Table = ctx.table.as_ref();
    let mut id = None;
    for _ in 0..ATTEMPTS {
        // The author's name is read below: a rename older than this never overwrites it.
        let stamp = chrono::Utc::now().timestamp_millis();
        let reads = read_all(ctx, caller, article_id, parent_id).await?;
        let article = reads.article.ok_or(CommentFault::ArticleNotFound)?;
        if article.comments_disabled {
            return Err(CommentFault::CommentsDisabled.into());
        }
        let (parent, above) = match parent_id {
            Some(_) => {
                let (parent, above) = answerable(table, reads.parent, viewer).await?;
                (Some(parent), above)
            }
            None => (None, Vec::new()),
        };
        if parent.as_ref().is_some_and(|p| p.depth >= MAX_DEPTH) {
            return Err(CommentFault::TooDeep.into());
        }
        reads.window.check()?;
        let comment_id = match id {
            Some(id) => id,
            None => *id.insert(next_id(table, IdKind::Comment).await?),
        };
        let status = if caller.is_admin() || !ctx.config.comments_moderation {
            CommentStatus::Approved
        } else {
            CommentStatus::Pending
        };
        let time = blog_core::time::now_string();
        let comment = StoredComment {
            id: comment_id,
            article_id,
            parent_id,
            root_id: parent.as_ref().map_or(comment_id, |p| p.root_id),
            depth: parent.as_ref().map_or(0, |p| p.depth + 1),
            user_id: caller.id,
            user_name: reads.author.0,
            user_avatar: reads.author.1,
            user_renamed_at: stamp,
            reply_to_user_id: parent.as_ref().map(|p| p.user_id),
            reply_to_user_name: parent.as_ref().map(|p| p.user_name.clone()),
            reply_to_renamed_at: parent.as_ref().map_or(0, |p| p.user_renamed_at),
            content: input.content.clone(),
            content_html: html.clone(),
            status,
            like_count: 0,
            reply_count: 0,
            is_edited: false,
            thread_rev: 0,
            create_time: time.clone(),
            update_time: time,
        };
        let counted = i64::from(status == CommentStatus::Approved);
        let comment_put = Condition::NotExists;
        let mut writes = Transaction::new()
            .with(
                "comment",
                Write::Put { item: repo::item_of(&comment)?, condition: Some(comment_put) },
            )
            .with(
                "locator",
                Write::Put {
                    item: repo::locator_item(&comment),
                    condition: Some(Condition::NotExists),
                },
            )
            .with("rate window", reads.window.write())
            .with(
                "article",
                articles::counter_while(&article, articles::COMMENT_COUNT, counted, true),
            );
        match &parent {
            Some(parent) => {
                writes.extend("thread", thread_writes(parent, &above, counted));
                writes.extend(
                    "thread entry",
                    roots::moved(article_id, comment.root_id, counted, 1, None),
                );
            }
            None => writes.push(
                "thread entry",
                Write::Put {
                    item: RootEntry::of_new_root(&comment).item(article_id),
                    condition: Some(Condition::NotExists),
                },
            ),
        }
        match writes.commit(table).await {
            Ok(()) => {
                tracing::info!(comment_id, article_id, user_id = caller.id, "comment posted");
                return Ok(comment.view());
            }
            // The comment's own id was taken: not a race to retry.
            Err(error) if refused_by(&error, "comment") || refused_by(&error, "locator") => {
                return Err(error.into())
            }
            // Someone else's change landed between the reads and the write: read again.
            Err(TableError::Refused { .. }) => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("the article or the comment kept changing: try again".into()).into())
}

/// Comments on an article (signed in); with `parentId`, replies to a comment.
///
/// APPROVED at once, unless moderation is on (then PENDING until approved); an
/// administrator's comment is always APPROVED. At most 5 comments a minute per user. A reply's
/// parent must be APPROVED, under no PENDING or REJECTED comment.
#[utoipa::path(
    post,
    path = "",
    operation_id = "createComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    request_body = CommentInput,
    responses(
        (status = 200, description = "The new comment", body = Envelope<Comment>),
        (status = 400, description = "A field breaks its rule, or the parent takes no reply: \
            not APPROVED or under a comment that is not (PARAM_ERROR), or the parent is at \
            depth 4 (COMMENT_TOO_DEEP)", body = Error),
        (status = 403, description = "Comments are disabled on the article (COMMENTS_DISABLED)",
            body = Error),
        (status = 404, description = "No readable article (ARTICLE_NOT_FOUND), or no parent the \
            caller sees on it (COMMENT_NOT_FOUND)", body = Error),
        (status = 429, description = "More than 5 comments in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        CommentErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn create(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    JsonBody(input, ..): JsonBody<CommentInput, CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    post(&ctx, &caller, input).await.map(CommentOk::ok)
}

/// Replies to a comment (signed in): the body of a comment with `parentId` required.
#[utoipa::path(
    post,
    path = "/reply",
    operation_id = "replyToComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    request_body = CommentInput,
    responses(
        (status = 200, description = "The new reply", body = Envelope<Comment>),
        (status = 400, description = "A field breaks its rule, `parentId` is missing, or the \
            parent takes no reply: not APPROVED or under a comment that is not (PARAM_ERROR), \
            or the parent is at depth 4 (COMMENT_TOO_DEEP)", body = Error),
        (status = 403, description = "Comments are disabled on the article (COMMENTS_DISABLED)",
            body = Error),
        (status = 404, description = "No readable article (ARTICLE_NOT_FOUND), or no parent the \
            caller sees on it (COMMENT_NOT_FOUND)", body = Error),
        (status = 429, description = "More than 5 comments in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        CommentErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn reply(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    JsonBody(input, ..): JsonBody<CommentInput, CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    if matches!(input.parent_id, None | Some(serde_json::Value::Null)) {
        return Err(CommentError::invalid("parentId is required for a reply"));
    }
    post(&ctx, &caller, input).await.map(CommentOk::ok)
}
