//! Revisions: every update keeps the version it replaces (title, summary, content, who wrote
//! it and when) in the article's partition, at most [`MAX_REVISIONS`], the oldest dropped
//! first. A revision is two items, its summary (`A#REV#<version16>`, what the list reads) and
//! its content (`A#REVBODY#<version16>`); neither is in the detail's key range, so reading the
//! article stays one Query. Administrators list them, read one and restore one, which is an
//! update like any other (a new version, conditioned on the one read).

use axum::{
    body::Bytes,
    extract::{FromRequestParts, Path, State},
    http::request::Parts,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{api_time, id_string, IdParam},
        extract::{parse_id, parse_json, PathId, QueryParams},
        Failure,
    },
    ports::table::{Index, Key, Query, SortKey, Table, TableError, Write},
    records,
};
use blog_users::principal::AdminOnly;

use crate::envelope::ArticleErrors;
use crate::{
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleFault,
        ArticleOk,
    },
    input::Validated,
    keys,
    model::{ArticleBody, ArticleHead},
    update::update_article,
    Page, Paging, Publishing,
};

/// Revisions kept per article; an update past it drops the oldest.
pub const MAX_REVISIONS: i64 = 50;

/// A revision's summary as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredRevision {
    article_id: u64,
    version: i64,
    title: String,
    summary: String,
    edited_by: u64,
    editor_name: String,
    edited_at: String,
    replaced_at: String,
}

/// A revision's content as stored.
#[derive(Serialize, Deserialize)]
struct StoredContent {
    content: String,
}

/// An earlier version of an article (the list's item).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticleRevision)]
pub struct Revision {
    /// The version it was.
    #[schema(minimum = 1)]
    version: i64,
    /// Its title (plain text).
    title: String,
    /// Its summary (plain text).
    summary: String,
    /// Who wrote this version.
    #[schema(schema_with = id_string)]
    editor_id: String,
    /// Their user name then.
    editor_name: String,
    /// When this version was written.
    #[schema(schema_with = api_time)]
    edit_time: String,
    /// When the next version replaced it.
    #[schema(schema_with = api_time)]
    replaced_time: String,
}

/// An earlier version of an article with its content.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticleRevisionDetail)]
pub struct RevisionDetail {
    #[serde(flatten)]
    revision: Revision,
    /// Its Markdown as written.
    content: String,
}

impl From<StoredRevision> for Revision {
    fn from(stored: StoredRevision) -> Self {
        Revision {
            version: stored.version,
            title: stored.title,
            summary: stored.summary,
            editor_id: stored.edited_by.to_string(),
            editor_name: stored.editor_name,
            edit_time: stored.edited_at,
            replaced_time: stored.replaced_at,
        }
    }
}

/// Adds to `writes` the revision of `before` (replaced at `replaced_at`) and, when the article
/// already keeps [`MAX_REVISIONS`], the deletion of its oldest (one Query, made only then);
/// answers how many revisions the article keeps after the write.
pub(crate) async fn keep(
    table: &dyn Table,
    before: &ArticleHead,
    body: &ArticleBody,
    replaced_at: &str,
    writes: &mut Vec<Write>,
) -> Result<i64, TableError> {
    let partition = keys::partition(before.id);
    let stored = StoredRevision {
        article_id: before.id,
        version: before.version,
        title: before.title.clone(),
        summary: before.summary.clone(),
        edited_by: if body.edited_by == 0 { before.author_id } else { body.edited_by },
        editor_name: match body.editor_name.as_str() {
            "" => before.author_name.clone(),
            name => name.to_string(),
        },
        edited_at: match body.edited_at.as_str() {
            "" => before.update_time.clone(),
            at => at.to_string(),
        },
        replaced_at: replaced_at.to_string(),
    };
    let summary_key = Key::new(partition.clone(), keys::revision(before.version));
    let content_key = Key::new(partition.clone(), keys::revision_content(before.version));
    writes.push(Write::Put { item: records::to_item(&stored, &summary_key)?, condition: None });
    let content = StoredContent { content: body.content.clone() };
    writes.push(Write::Put { item: records::to_item(&content, &content_key)?, condition: None });
    if before.revision_count < MAX_REVISIONS {
        return Ok(before.revision_count + 1);
    }
    let mut oldest = summaries(before.id);
    oldest.limit = Some(1);
    let Some(oldest) = table.query(oldest).await?.items.into_iter().next() else {
        return Ok(1);
    };
    let oldest: StoredRevision = records::from_item(oldest)?;
    for sk in [keys::revision(oldest.version), keys::revision_content(oldest.version)] {
        writes.push(Write::Delete { key: Key::new(partition.clone(), sk), condition: None });
    }
    Ok(before.revision_count)
}

/// The Query of an article's revision summaries, oldest first.
fn summaries(id: u64) -> Query {
    Query::partition(Index::Primary, keys::partition(id))
        .sort(SortKey::BeginsWith(keys::REVISION_PREFIX.into()))
}

/// Paging of the revision list.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RevisionsQuery {
    /// Page number (default 1).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1000000)]
    page: Option<String>,
    /// Alias of `page`; the page object then carries `current` too.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1000000)]
    current: Option<String>,
    /// Page size (default 10).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    size: Option<String>,
}

/// The revisions of an article, newest first (administrators).
///
/// At most 50 are kept. One GetItem (the article) and one Query (the summaries), together.
#[utoipa::path(
    get,
    path = "/{id}/revisions",
    operation_id = "listArticleRevisions",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam, RevisionsQuery),
    responses(
        (status = 200, description = "A page of the article's revisions, newest first",
            body = Envelope<Page<Revision>>),
        (status = 400, description = "A bad id or paging parameter (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn list(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
    QueryParams(query, ..): QueryParams<RevisionsQuery, ArticleError>,
) -> Result<ArticleOk<Page<Revision>>, ArticleError> {
    let paging =
        Paging::parse(query.page.as_deref(), query.current.as_deref(), query.size.as_deref())?;
    let table = ctx.table.as_ref();
    let (head, found) = futures::join!(
        crate::read::load_head(table, id),
        records::query_all(table, summaries(id).descending())
    );
    head?.filter(|h| !h.is_deleted).ok_or(ArticleFault::ArticleNotFound)?;
    let revisions = found?
        .into_iter()
        .map(|item| records::from_item::<StoredRevision>(item).map(Revision::from))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ArticleOk::ok(paging.cut(revisions)))
}

/// `/{id}/revisions/{version}`: an article id and a version.
pub struct RevisionPath {
    id: u64,
    version: i64,
}

impl<S: Send + Sync> FromRequestParts<S> for RevisionPath {
    type Rejection = ArticleError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ArticleError> {
        let invalid = |message: String| ArticleError::from(Failure::Invalid(message));
        let Path((id, version)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|error| invalid(format!("path: {error}")))?;
        let id = parse_id(&id)
            .ok_or_else(|| invalid(format!("id must be a positive integer, got `{id}`")))?;
        let version = parse_id(&version).ok_or_else(|| {
            invalid(format!("version must be a positive integer, got `{version}`"))
        })? as i64;
        Ok(RevisionPath { id, version })
    }
}

/// The article (not deleted) and its revision `version`, read in one BatchGetItem.
async fn revision_of(
    table: &dyn Table,
    path: &RevisionPath,
) -> Result<(ArticleHead, StoredRevision, String), ArticleError> {
    let partition = keys::partition(path.id);
    let wanted = [
        keys::head(path.id),
        Key::new(partition.clone(), keys::revision(path.version)),
        Key::new(partition, keys::revision_content(path.version)),
    ];
    let (mut head, mut summary, mut content) = (None, None, None);
    for item in table.get_many(&wanted).await? {
        match Key::of(&item).map(|key| key.sk) {
            Some(sk) if sk == keys::HEAD => head = Some(records::from_item::<ArticleHead>(item)?),
            Some(sk) if sk == wanted[1].sk => summary = Some(records::from_item(item)?),
            Some(sk) if sk == wanted[2].sk => {
                content = Some(records::from_item::<StoredContent>(item)?.content)
            }
            _ => {}
        }
    }
    let head = head.filter(|h| !h.is_deleted).ok_or(ArticleFault::ArticleNotFound)?;
    match summary.zip(content) {
        Some((summary, content)) => Ok((head, summary, content)),
        None => Err(Failure::NotFound(format!(
            "article {} keeps no revision of version {}",
            path.id, path.version
        ))
        .into()),
    }
}

/// One revision of an article, with its content (administrators).
#[utoipa::path(
    get,
    path = "/{id}/revisions/{version}",
    operation_id = "getArticleRevision",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam, ("version" = u64, Path, minimum = 1, description = "The version it was")),
    responses(
        (status = 200, description = "The revision", body = Envelope<RevisionDetail>),
        (status = 400, description = "A bad id or version (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article (ARTICLE_NOT_FOUND), or no revision of \
            that version kept (NOT_FOUND)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn detail(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<ArticleError>,
    path: RevisionPath,
) -> Result<ArticleOk<RevisionDetail>, ArticleError> {
    let (_, revision, content) = revision_of(ctx.table.as_ref(), &path).await?;
    Ok(ArticleOk::ok(RevisionDetail { revision: revision.into(), content }))
}

/// The optional body of a restore.
#[derive(Deserialize, ToSchema)]
pub struct RestoreInput {
    /// The article's current version as the caller saw it; another one answers 409.
    #[schema(minimum = 1)]
    version: Option<i64>,
}

/// Restores a revision (administrators): its title, summary and content become a new version
/// through the update path (the other settings stay), and the version replaced is kept as a
/// revision in turn; `data` is true.
#[utoipa::path(
    put,
    path = "/{id}/revisions/{version}/restore",
    operation_id = "restoreArticleRevision",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam, ("version" = u64, Path, minimum = 1, description = "The version to restore")),
    request_body(content = Option<RestoreInput>, description = "Optional: the version the caller \
        saw, for optimistic locking"),
    responses(
        (status = 200, description = "Restored as a new version; `data` is true",
            body = Envelope<bool>),
        (status = 400, description = "A bad id, version or body (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article (ARTICLE_NOT_FOUND), or no revision of \
            that version kept (NOT_FOUND)", body = Error),
        (status = 409, description = "The article is not at the version given, or changed \
            meanwhile (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn restore(
    State(ctx): State<Publishing>,
    AdminOnly(admin, ..): AdminOnly<ArticleError>,
    path: RevisionPath,
    body: Bytes,
) -> Result<ArticleOk<bool>, ArticleError> {
    let expected = match body.iter().all(u8::is_ascii_whitespace) {
        true => None,
        false => parse_json::<RestoreInput>(&body).map_err(Failure::Invalid)?.version,
    };
    let (head, revision, content) = revision_of(ctx.table.as_ref(), &path).await?;
    if expected.is_some_and(|version| version != head.version) {
        return Err(ArticleFault::VersionConflict.into());
    }
    let input = Validated {
        title: revision.title,
        content,
        summary: Some(revision.summary).filter(|s| !s.is_empty()),
        cover_image: head.cover_image.clone(),
        category_id: head.category_id,
        tag_ids: head.tag_ids(),
        is_top: head.is_top,
        is_featured: head.is_featured,
        is_comment_disabled: head.is_comment_disabled,
        version: Some(head.version),
    };
    update_article(&ctx, &admin, path.id, input).await?;
    tracing::info!(article_id = path.id, version = path.version, "revision restored");
    Ok(ArticleOk::ok(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_shows_who_wrote_it_and_when_it_was_replaced() {
        let stored = StoredRevision {
            article_id: 7,
            version: 3,
            title: "T".into(),
            summary: "S".into(),
            edited_by: 1,
            editor_name: "admin".into(),
            edited_at: "2026-01-01T00:00:00".into(),
            replaced_at: "2026-01-02T00:00:00".into(),
        };
        let shown = serde_json::to_value(Revision::from(stored)).unwrap();
        assert_eq!(
            shown,
            serde_json::json!({"version": 3, "title": "T", "summary": "S", "editorId": "1",
                "editorName": "admin", "editTime": "2026-01-01T00:00:00",
                "replacedTime": "2026-01-02T00:00:00"})
        );
    }

    #[test]
    fn revision_keys_keep_summaries_apart_from_contents_and_out_of_the_detail() {
        let (summary, content) = (keys::revision(12), keys::revision_content(12));
        assert!(summary.starts_with(keys::REVISION_PREFIX));
        assert!(!content.starts_with(keys::REVISION_PREFIX));
        for key in [&summary, &content] {
            let in_detail = key.as_str() >= keys::BODY && key.as_str() <= keys::HEAD;
            assert!(!in_detail, "{key} would be read with the detail");
        }
        assert!(keys::revision(9) < keys::revision(10), "versions sort numerically");
    }
}
