//! Writing a comment or a reply: one transaction puts it, counts it on the article and its
//! parent when it is APPROVED, and takes its place in the author's rate window, each write
//! conditioned on the state read; a lost condition is read again and retried.

use axum::extract::State;
use futures::join;

use crate::{
    articles::{self, ReactionTarget},
    context::AppContext,
    http::{
        docs::{INTERNAL, UNAUTHORIZED},
        extract::{id_from_json, JsonBody},
        Failure,
    },
    ids::{next_id, IdKind},
    ports::table::{n, s, Condition, Table, TableError, Update, Write, TTL},
    records,
    users::{
        principal::{Authenticated, Principal},
        repo as accounts,
    },
};

use super::{
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentOk,
    },
    keys,
    model::{Comment, CommentStatus, StoredComment},
    public::article_target,
    repo,
};

/// Comments a user may post in one minute.
pub const PER_MINUTE: i64 = 5;
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
pub(super) fn checked_content(content: &str) -> Result<(), CommentError> {
    let chars = content.chars().count();
    if content.trim().is_empty() || chars > MAX_CHARS {
        return Err(CommentError::param(format!(
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
    window: Option<i64>,
    author: (String, String),
}

async fn read_all(
    ctx: &AppContext,
    caller: &Principal,
    article_id: u64,
    parent_id: Option<u64>,
    minute: i64,
) -> Result<Reads, CommentError> {
    let table = ctx.table.as_ref();
    let parent = async {
        match parent_id {
            Some(id) => repo::get_in(table, article_id, id).await,
            None => Ok(None),
        }
    };
    let window = async {
        let item = table.get(&keys::rate_window(caller.id, minute)).await?;
        Ok::<_, TableError>(item.map(|item| records::number(&item, "count").unwrap_or(0)))
    };
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

fn rate_write(user_id: u64, minute: i64, window: Option<i64>) -> Write {
    let key = keys::rate_window(user_id, minute);
    match window {
        None => {
            let mut item = records::key_item(&key);
            item.insert("count".into(), n(1));
            item.insert(TTL.into(), n((minute + 2) * 60));
            Write::Put { item, condition: Some(Condition::NotExists) }
        }
        Some(_) => Write::Update {
            key,
            update: Update::new().add("count", 1),
            condition: Some(Condition::LessThan("count".into(), PER_MINUTE)),
        },
    }
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
        Some(raw) => Some(id_from_json("parentId", raw).map_err(CommentError::param)?),
    };
    let viewer = Some((caller.id, caller.is_admin()));
    let html = articles::render_comment(&input.content);
    let table: &dyn Table = ctx.table.as_ref();
    let mut id = None;
    for _ in 0..ATTEMPTS {
        let now = crate::ports::table::now_epoch_seconds();
        let minute = now.div_euclid(60);
        // The author's name is read below: a rename older than this never overwrites it.
        let stamp = chrono::Utc::now().timestamp_millis();
        let reads = read_all(ctx, caller, article_id, parent_id, minute).await?;
        let article = reads.article.ok_or(CommentError::ArticleNotFound)?;
        if article.comments_disabled {
            return Err(CommentError::CommentsDisabled);
        }
        let parent = match parent_id {
            Some(_) => match reads.parent {
                Some(parent) if parent.visible_to(viewer) => Some(parent),
                _ => return Err(CommentError::CommentNotFound),
            },
            None => None,
        };
        if parent.as_ref().is_some_and(|p| p.depth >= MAX_DEPTH) {
            return Err(CommentError::TooDeep);
        }
        if reads.window.is_some_and(|count| count >= PER_MINUTE) {
            let retry_after_secs = ((minute + 1) * 60 - now).max(1) as u64;
            return Err(CommentError::TooManyRequests { retry_after_secs });
        }
        let comment_id = match id {
            Some(id) => id,
            None => *id.insert(next_id(table, IdKind::Comment).await?),
        };
        let status = if caller.is_admin() || !ctx.config.comments_moderation {
            CommentStatus::Approved
        } else {
            CommentStatus::Pending
        };
        let time = crate::time::now_string();
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
            create_time: time.clone(),
            update_time: time,
        };
        let counted = i64::from(status == CommentStatus::Approved);
        let mut writes = vec![
            Write::Put { item: repo::item_of(&comment)?, condition: Some(Condition::NotExists) },
            Write::Put {
                item: repo::locator_item(&comment),
                condition: Some(Condition::NotExists),
            },
            rate_write(caller.id, minute, reads.window),
            articles::counter_while(&article, articles::COMMENT_COUNT, counted, true),
        ];
        if let Some(parent) = &parent {
            writes.push(Write::Update {
                key: keys::comment(article_id, parent.id),
                update: Update::new().add("replyCount", counted),
                condition: Some(Condition::equals("status", s(parent.status.name()))),
            });
        }
        match table.transact(writes).await {
            Ok(()) => {
                tracing::info!(comment_id, article_id, user_id = caller.id, "comment posted");
                return Ok(comment.view());
            }
            // Someone else's change landed between the reads and the write: read again.
            Err(TableError::TransactionCancelled { failed }) if !failed.iter().any(|i| *i < 2) => {
                continue
            }
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("the article or the comment kept changing: try again".into()).into())
}

/// Comments on an article (signed in); with `parentId`, replies to a comment.
///
/// APPROVED at once, unless moderation is on (then PENDING until approved); an
/// administrator's comment is always APPROVED. At most 5 comments a minute per user.
#[utoipa::path(
    post,
    path = "",
    operation_id = "createComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    request_body = CommentInput,
    responses(
        (status = 200, description = "The new comment", body = Envelope<Comment>),
        (status = 400, description = "A field breaks its rule (PARAM_ERROR), or the parent is \
            at depth 4 (COMMENT_TOO_DEEP)", body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = "Comments are disabled on the article (COMMENTS_DISABLED)",
            body = Error),
        (status = 404, description = "No readable article (ARTICLE_NOT_FOUND), or no parent the \
            caller sees on it (COMMENT_NOT_FOUND)", body = Error),
        (status = 429, description = "More than 5 comments in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn create(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    JsonBody(input, ..): JsonBody<CommentInput, CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    post(&ctx, &caller, input).await.map(CommentOk)
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
        (status = 400, description = "A field breaks its rule or `parentId` is missing \
            (PARAM_ERROR), or the parent is at depth 4 (COMMENT_TOO_DEEP)", body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = "Comments are disabled on the article (COMMENTS_DISABLED)",
            body = Error),
        (status = 404, description = "No readable article (ARTICLE_NOT_FOUND), or no parent the \
            caller sees on it (COMMENT_NOT_FOUND)", body = Error),
        (status = 429, description = "More than 5 comments in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn reply(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    JsonBody(input, ..): JsonBody<CommentInput, CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    if matches!(input.parent_id, None | Some(serde_json::Value::Null)) {
        return Err(CommentError::param("parentId is required for a reply"));
    }
    post(&ctx, &caller, input).await.map(CommentOk)
}
