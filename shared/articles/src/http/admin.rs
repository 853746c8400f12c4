//! Writes of /api/v1/admin/articles (administrators): create, update, the status changes and
//! deletion.

use axum::extract::State;
use futures::join;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{IdParam, Null},
        extract::{JsonBody, PathId},
        Failure,
    },
    ids::{next_id, IdKind},
};
use blog_users::principal::AdminOnly;

use crate::envelope::ArticleErrors;
use crate::{
    compose::{apply, taxonomy_of},
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleFault,
        ArticleOk,
    },
    events::{self, outbox_write, ArticlePublishedEvent},
    input::ArticleInput,
    lifecycle::{self, Action},
    model::{ArticleBody, ArticleHead, Status},
    read,
    store::{self, StoreError},
    Publishing,
};

type Admin = AdminOnly<ArticleError>;
type Id = PathId<ArticleError>;

const NOT_FOUND: &str = "No such article, or a deleted one (ARTICLE_NOT_FOUND)";

/// Attempts of a state change that lost a race before the answer reflects the new state.
const ATTEMPTS: usize = 5;

pub(crate) fn store_error(error: StoreError) -> ArticleError {
    match error {
        StoreError::Stale => ArticleFault::VersionConflict.into(),
        StoreError::MissingCategory(_) | StoreError::MissingTag(_) => {
            Failure::Invalid(error.to_string()).into()
        }
        StoreError::Table(error) => error.into(),
    }
}

/// Creates an article as a DRAFT (administrators); `data` is the new id.
///
/// Validates, sanitises, renders the Markdown, builds the table of contents, derives the summary.
#[utoipa::path(
    post,
    path = "",
    operation_id = "createArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    request_body = ArticleInput,
    responses(
        (status = 200, description = "Created as a DRAFT; `data` is the new id",
            body = Envelope<String>),
        (status = 400, description = "A field breaks its rule, or the category or a tag does \
            not exist (PARAM_ERROR)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn create(
    State(ctx): State<Publishing>,
    AdminOnly(admin, ..): Admin,
    JsonBody(input, ..): JsonBody<ArticleInput, ArticleError>,
) -> Result<ArticleOk<String>, ArticleError> {
    let input = input.validate()?;
    // The author's name and avatar are read with the taxonomy (no read at all when the token
    // check read the account in this request).
    let stamp = chrono::Utc::now().timestamp_millis();
    let (taxonomy, card) = join!(taxonomy_of(&ctx, &input), admin.author_card(ctx.table.as_ref()));
    let (taxonomy, card) = (taxonomy?, card?.unwrap_or_default());
    let now = blog_core::time::now_string();
    // The id is taken once the content renders within bounds (a refused article takes none).
    let mut head = ArticleHead {
        id: 0,
        title: String::new(),
        summary: String::new(),
        cover_image: String::new(),
        author_id: admin.id,
        category_id: None,
        category_name: None,
        tags: Vec::new(),
        status: Status::Draft,
        is_top: false,
        is_featured: false,
        is_comment_disabled: false,
        version: 1,
        publish_time: None,
        create_time: now.clone(),
        update_time: now,
        is_deleted: false,
        author_name: card.name,
        author_avatar: card.avatar,
        author_renamed_at: stamp,
        view_count: 0,
        like_count: 0,
        comment_count: 0,
        scheduled_at: None,
        revision_count: 0,
    };
    let mut body = apply(&mut head, input, taxonomy)?;
    (body.edited_by, body.editor_name, body.edited_at) =
        (admin.id, admin.username.clone(), head.update_time.clone());
    head.id = next_id(ctx.table.as_ref(), IdKind::Article).await?;
    store::save(ctx.table.as_ref(), None, &head, Some(&body), Vec::new())
        .await
        .map_err(store_error)?;
    tracing::info!(article_id = head.id, admin_id = admin.id, "article created");
    Ok(ArticleOk::ok(head.id.to_string()).saying("article created successfully"))
}

pub(crate) async fn existing(
    ctx: &AppContext,
    id: u64,
) -> Result<(ArticleHead, ArticleBody), ArticleError> {
    match read::load(ctx.table.as_ref(), id).await? {
        Some((head, body)) if !head.is_deleted => Ok((head, body)),
        _ => Err(ArticleFault::ArticleNotFound.into()),
    }
}

/// Applies `edit` to the current head in one transaction, re-reading and retrying when another
/// change landed in between (so a refused transition reflects the latest state). A change that
/// leaves the article published emits ArticlePublishedEvent through the outbox, one that
/// unpublishes it (archive, delete) its withdrawal; an edit that changes nothing writes nothing.
pub(crate) async fn change(
    ctx: &Publishing,
    id: u64,
    edit: impl Fn(&ArticleHead) -> Result<ArticleHead, ArticleError>,
) -> Result<ArticleHead, ArticleError> {
    for _ in 0..ATTEMPTS {
        let before = read::load_head(ctx.table.as_ref(), id)
            .await?
            .filter(|h| !h.is_deleted)
            .ok_or(ArticleFault::ArticleNotFound)?;
        let mut after = edit(&before)?;
        if after == before {
            // Nothing to change (a cancel of a schedule that is not there): nothing written.
            return Ok(after);
        }
        after.update_time = blog_core::time::now_string();
        let event = ArticlePublishedEvent::of_change(&before, &after);
        let extra = event.iter().map(outbox_write).collect::<Result<Vec<_>, _>>()?;
        match store::save(ctx.table.as_ref(), Some(&before), &after, None, extra).await {
            Ok(()) => {
                if let Some(event) = event {
                    events::deliver(ctx, &event).await;
                }
                return Ok(after);
            }
            Err(StoreError::Stale) => continue,
            Err(other) => return Err(store_error(other)),
        }
    }
    Err(ArticleFault::VersionConflict.into())
}

async fn change_status(
    ctx: &Publishing,
    id: u64,
    action: Action,
) -> Result<ArticleHead, ArticleError> {
    change(ctx, id, |before| {
        let mut after = before.clone();
        after.status = lifecycle::transition(before.status, action)?;
        if action == Action::Publish {
            after.publish_time = Some(blog_core::time::now_string());
            after.scheduled_at = None;
        }
        Ok(after)
    })
    .await
}

/// Publishes a draft (administrators): publish time set, ArticlePublishedEvent emitted.
#[utoipa::path(
    put,
    path = "/{id}/publish",
    operation_id = "publishArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Published", body = Envelope<Null>),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Already published (ARTICLE_ALREADY_PUBLISHED), archived \
            (ARTICLE_STATUS_INVALID), or it kept changing (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn publish(
    State(ctx): State<Publishing>,
    _admin: Admin,
    PathId(id, ..): Id,
) -> Result<ArticleOk<()>, ArticleError> {
    change_status(&ctx, id, Action::Publish).await?;
    Ok(ArticleOk::ok(()))
}

/// Archives a published article (administrators).
#[utoipa::path(
    put,
    path = "/{id}/archive",
    operation_id = "archiveArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Archived", body = Envelope<Null>),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Already archived (ARTICLE_ALREADY_ARCHIVED), a draft \
            (ARTICLE_STATUS_INVALID), or it kept changing (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn archive(
    State(ctx): State<Publishing>,
    _admin: Admin,
    PathId(id, ..): Id,
) -> Result<ArticleOk<()>, ArticleError> {
    change_status(&ctx, id, Action::Archive).await?;
    Ok(ArticleOk::ok(()))
}

/// Publishes an archived article again (administrators).
///
/// The first publish time is kept; the event is emitted again so the article rejoins
/// related-article lists.
#[utoipa::path(
    put,
    path = "/{id}/unarchive",
    operation_id = "unarchiveArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Published again", body = Envelope<Null>),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Not archived (ARTICLE_STATUS_INVALID), or it kept \
            changing (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn unarchive(
    State(ctx): State<Publishing>,
    _admin: Admin,
    PathId(id, ..): Id,
) -> Result<ArticleOk<()>, ArticleError> {
    change_status(&ctx, id, Action::Unarchive).await?;
    Ok(ArticleOk::ok(()))
}

/// Deletes an article logically, in any state (administrators); `data` is true.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "Deleted; `data` is true", body = Envelope<bool>),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "It kept changing (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn delete(
    State(ctx): State<Publishing>,
    _admin: Admin,
    PathId(id, ..): Id,
) -> Result<ArticleOk<bool>, ArticleError> {
    change(&ctx, id, |before| {
        let mut after = before.clone();
        after.is_deleted = true;
        after.scheduled_at = None;
        Ok(after)
    })
    .await?;
    Ok(ArticleOk::ok(true))
}
