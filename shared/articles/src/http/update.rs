//! PUT /api/v1/admin/articles/{id}: the update path, which a restored revision takes too. Every
//! update keeps the version it replaces as a revision, in the update's own transaction.

use axum::extract::State;
use futures::join;

use blog_core::http::responses::kinds::*;
use blog_core::http::{
    docs::IdParam,
    extract::{JsonBody, PathId},
};
use blog_users::principal::{author_card, AdminOnly, Principal};

use crate::envelope::ArticleErrors;
use crate::{
    admin::{existing, store_error},
    compose::{apply, taxonomy_of},
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleFault,
        ArticleOk,
    },
    events::{self, outbox_write, ArticlePublishedEvent},
    input::{ArticleInput, Validated},
    revisions, store, Publishing,
};

/// Replaces an article's content and settings in any state (administrators).
///
/// The pipeline re-runs and `version` rises by 1; the version replaced is kept as a revision.
/// A `version` in the body that is not the current one, or a concurrent update of the same
/// version, answers 409.
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
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        (status = 409, description = "`version` is not the current one, or a concurrent update \
            won (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn update(
    State(ctx): State<Publishing>,
    AdminOnly(admin, ..): AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
    JsonBody(input, ..): JsonBody<ArticleInput, ArticleError>,
) -> Result<ArticleOk<bool>, ArticleError> {
    update_article(&ctx, &admin, id, input.validate()?).await?;
    Ok(ArticleOk::ok(true))
}

/// Writes `input` over article `id` as `editor`: the new version, the revision of the one it
/// replaces (dropping the oldest past [`revisions::MAX_REVISIONS`]), and the publication event
/// when the article is published, in one transaction conditioned on the version read.
pub(crate) async fn update_article(
    ctx: &Publishing,
    editor: &Principal,
    id: u64,
    input: Validated,
) -> Result<(), ArticleError> {
    let table = ctx.table.as_ref();
    // The article and the taxonomy it names are read together; a missing article answers
    // before a stale version, and both before a missing category or tag.
    let (current, taxonomy) = join!(existing(ctx, id), taxonomy_of(ctx, &input));
    let (before, before_body) = current?;
    if input.version.is_some_and(|v| v != before.version) {
        return Err(ArticleFault::VersionConflict.into());
    }
    let taxonomy = taxonomy?;
    let stamp = chrono::Utc::now().timestamp_millis();
    let mut after = before.clone();
    // The author's card is the worker's to keep current (renames); a head written before
    // cards existed gets its author's now (one more read, for such heads only).
    if before.author_name.is_empty() {
        if let Some(author) = author_card(table, before.author_id).await? {
            after.set_author(author, stamp);
        }
    }
    let mut body = apply(&mut after, input, taxonomy)?;
    after.version += 1;
    after.update_time = blog_core::time::now_string();
    // The editor as the token names them (no read): who wrote this version, for its revision.
    (body.edited_by, body.editor_name, body.edited_at) =
        (editor.id, editor.username.clone(), after.update_time.clone());
    let mut extra = Vec::new();
    after.revision_count =
        revisions::keep(table, &before, &before_body, &after.update_time, &mut extra).await?;
    let event = after.is_listed().then(|| ArticlePublishedEvent::of(&after));
    if let Some(event) = &event {
        extra.push(outbox_write(event)?);
    }
    store::save(table, Some(&before), &after, Some(&body), extra).await.map_err(store_error)?;
    if let Some(event) = event {
        events::deliver(ctx, &event).await;
    }
    Ok(())
}
