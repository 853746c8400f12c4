//! Writes of /api/v1/admin/articles (administrators): create, update, the status changes and
//! deletion.

use axum::extract::State;
use futures::join;

use crate::{
    context::AppContext,
    http::{
        docs::{IdParam, Null, FORBIDDEN, INTERNAL, UNAUTHORIZED},
        extract::{JsonBody, PathId},
        Failure,
    },
    ids::{next_id, IdKind},
    ports::table::Table,
    taxonomy,
    users::principal::AdminOnly,
};

use super::{
    content,
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleOk,
    },
    events::{self, outbox_write, ArticlePublishedEvent},
    input::{ArticleInput, Validated, MAX_BODY_BYTES},
    lifecycle::{self, Action},
    model::{ArticleBody, ArticleHead, Status, TagRef},
    read,
    store::{self, StoreError},
    Publishing,
};

type Admin = AdminOnly<ArticleError>;
type Id = PathId<ArticleError>;

const BAD_ID: &str = "The id is not a positive integer of at most 2^53-1 (PARAM_ERROR)";
const NOT_FOUND: &str = "No such article, or a deleted one (ARTICLE_NOT_FOUND)";

/// Attempts of a state change that lost a race before the answer reflects the new state.
const ATTEMPTS: usize = 5;

fn store_error(error: StoreError) -> ArticleError {
    match error {
        StoreError::Stale => ArticleError::VersionConflict,
        StoreError::MissingCategory(_) | StoreError::MissingTag(_) => {
            Failure::Invalid(error.to_string()).into()
        }
        StoreError::Table(error) => error.into(),
    }
}

/// The category name and tag references of a body: one GetItem and one BatchGetItem, made
/// together. A missing category is reported before a missing tag.
async fn taxonomy_of(
    ctx: &AppContext,
    input: &Validated,
) -> Result<(Option<String>, Vec<TagRef>), ArticleError> {
    let table = ctx.table.as_ref();
    let (category, tags) = join!(category_name(table, input.category_id), tag_refs(table, input));
    Ok((category?, tags?))
}

async fn category_name(table: &dyn Table, id: Option<u64>) -> Result<Option<String>, ArticleError> {
    let Some(id) = id else {
        return Ok(None);
    };
    let name = taxonomy::category_name(table, id).await?;
    let name =
        name.ok_or_else(|| Failure::Invalid(format!("categoryId: category {id} does not exist")))?;
    Ok(Some(name))
}

async fn tag_refs(table: &dyn Table, input: &Validated) -> Result<Vec<TagRef>, ArticleError> {
    let found = taxonomy::tag_labels(table, &input.tag_ids).await?;
    let mut refs = Vec::new();
    for id in &input.tag_ids {
        let tag = found
            .iter()
            .find(|t| t.id == *id)
            .ok_or_else(|| Failure::Invalid(format!("tagIds: tag {id} does not exist")))?;
        refs.push(TagRef::from(tag));
    }
    Ok(refs)
}

/// Runs the content pipeline: render (sanitised), table of contents, summary. Content whose
/// rendering would not fit one item is a PARAM_ERROR naming `content`.
fn apply(
    head: &mut ArticleHead,
    input: Validated,
    taxonomy: (Option<String>, Vec<TagRef>),
) -> Result<ArticleBody, ArticleError> {
    let rendered = content::render(&input.content);
    let body_bytes = input.content.len() + rendered.html.len() + rendered.toc_json.len();
    if body_bytes > MAX_BODY_BYTES {
        return Err(Failure::Invalid(format!(
            "content renders to {body_bytes} bytes with its HTML and contents, more than the \
             {MAX_BODY_BYTES} an article holds: shorten it"
        ))
        .into());
    }
    head.title = input.title;
    head.summary = input.summary.unwrap_or_else(|| content::summarize(&rendered.plain_text, 200));
    head.cover_image = input.cover_image;
    head.category_id = input.category_id;
    (head.category_name, head.tags) = taxonomy;
    head.is_top = input.is_top;
    head.is_featured = input.is_featured;
    head.is_comment_disabled = input.is_comment_disabled;
    Ok(ArticleBody {
        content: input.content,
        content_html: rendered.html,
        toc_json: rendered.toc_json,
    })
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
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn create(
    State(ctx): State<Publishing>,
    AdminOnly(admin, ..): Admin,
    JsonBody(input, ..): JsonBody<ArticleInput, ArticleError>,
) -> Result<ArticleOk<String>, ArticleError> {
    let input = input.validate()?;
    let taxonomy = taxonomy_of(&ctx, &input).await?;
    let now = crate::time::now_string();
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
    };
    let body = apply(&mut head, input, taxonomy)?;
    head.id = next_id(ctx.table.as_ref(), IdKind::Article).await?;
    store::save(ctx.table.as_ref(), None, &head, Some(&body), Vec::new())
        .await
        .map_err(store_error)?;
    tracing::info!(article_id = head.id, admin_id = admin.id, "article created");
    Ok(ArticleOk { message: "article created successfully", ..ArticleOk::ok(head.id.to_string()) })
}

pub(super) async fn existing(
    ctx: &AppContext,
    id: u64,
) -> Result<(ArticleHead, ArticleBody), ArticleError> {
    match read::load(ctx.table.as_ref(), id).await? {
        Some((head, body)) if !head.is_deleted => Ok((head, body)),
        _ => Err(ArticleError::ArticleNotFound),
    }
}

/// Replaces an article's content and settings in any state (administrators).
///
/// The pipeline re-runs and `version` rises by 1. A `version` in the body that is not the
/// current one, or a concurrent update of the same version, answers 409.
#[utoipa::path(
    put,
    path = "/{id}",
    operation_id = "updateArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = ArticleInput,
    responses(
        (status = 200, description = "Updated; `data` is true", body = Envelope<bool>),
        (status = 400, description = "A bad id, a field that breaks its rule, or a category or \
            tag that does not exist (PARAM_ERROR)", body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "`version` is not the current one, or a concurrent update \
            won (VERSION_CONFLICT)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
    )
)]
pub async fn update(
    State(ctx): State<Publishing>,
    _admin: Admin,
    PathId(id, ..): Id,
    JsonBody(input, ..): JsonBody<ArticleInput, ArticleError>,
) -> Result<ArticleOk<bool>, ArticleError> {
    let input = input.validate()?;
    // The article and the taxonomy it names are read together; a missing article answers
    // before a stale version, and both before a missing category or tag.
    let (current, taxonomy) = join!(existing(&ctx, id), taxonomy_of(&ctx, &input));
    let (before, _) = current?;
    if input.version.is_some_and(|v| v != before.version) {
        return Err(ArticleError::VersionConflict);
    }
    let taxonomy = taxonomy?;
    let mut after = before.clone();
    let body = apply(&mut after, input, taxonomy)?;
    after.version += 1;
    after.update_time = crate::time::now_string();
    let event = after.is_listed().then(|| ArticlePublishedEvent::of(&after));
    let extra = event.iter().map(outbox_write).collect::<Result<Vec<_>, _>>()?;
    store::save(ctx.table.as_ref(), Some(&before), &after, Some(&body), extra)
        .await
        .map_err(store_error)?;
    if let Some(event) = event {
        events::deliver(&ctx, &event).await;
    }
    Ok(ArticleOk::ok(true))
}

/// Applies `edit` to the current head in one transaction, re-reading and retrying when another
/// change landed in between (so a refused transition reflects the latest state). A change that
/// leaves the article published emits ArticlePublishedEvent through the outbox.
async fn change(
    ctx: &Publishing,
    id: u64,
    edit: impl Fn(&ArticleHead) -> Result<ArticleHead, ArticleError>,
) -> Result<ArticleHead, ArticleError> {
    for _ in 0..ATTEMPTS {
        let before = read::load_head(ctx.table.as_ref(), id)
            .await?
            .filter(|h| !h.is_deleted)
            .ok_or(ArticleError::ArticleNotFound)?;
        let mut after = edit(&before)?;
        after.update_time = crate::time::now_string();
        let event = after.is_listed().then(|| ArticlePublishedEvent::of(&after));
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
    Err(ArticleError::VersionConflict)
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
            after.publish_time = Some(crate::time::now_string());
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
        (status = 400, description = BAD_ID, body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Already published (ARTICLE_ALREADY_PUBLISHED), archived \
            (ARTICLE_STATUS_INVALID), or it kept changing (VERSION_CONFLICT)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
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
        (status = 400, description = BAD_ID, body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Already archived (ARTICLE_ALREADY_ARCHIVED), a draft \
            (ARTICLE_STATUS_INVALID), or it kept changing (VERSION_CONFLICT)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
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
        (status = 400, description = BAD_ID, body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "Not archived (ARTICLE_STATUS_INVALID), or it kept \
            changing (VERSION_CONFLICT)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
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
        (status = 400, description = BAD_ID, body = Error),
        (status = 401, description = UNAUTHORIZED, body = Error),
        (status = 403, description = FORBIDDEN, body = Error),
        (status = 404, description = NOT_FOUND, body = Error),
        (status = 409, description = "It kept changing (VERSION_CONFLICT)", body = Error),
        (status = 500, description = INTERNAL, body = Error),
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
        Ok(after)
    })
    .await?;
    Ok(ArticleOk::ok(true))
}
