//! The anonymous reads of /api/v1/comments: an article's tree and one comment.

use std::collections::HashMap;

use axum::extract::State;
use futures::try_join;

use blog_articles::{self as articles};
use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::IdParam,
        extract::{parse_id, PathId, QueryParams},
    },
};

use blog_core::http::ApiError;

use crate::envelope::CommentErrors;
use crate::{
    caller::Viewer,
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk, CommentRead,
    },
    model::{Comment, CommentNode, CommentStatus, StoredComment},
    pages::TreePage,
    repo, thread, tree,
};

/// Query of the tree.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct TreeQuery {
    /// `ARTICLE`.
    #[param(required = true)]
    target_type: Option<String>,
    /// The article's id.
    #[param(value_type = u64, minimum = 1)]
    target_id: Option<String>,
    /// Page of roots, from 1 (default 1).
    #[param(value_type = Option<u64>, minimum = 1)]
    page: Option<String>,
    /// Roots per page, 1-100 (default 50).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    size: Option<String>,
}

/// `targetType` must be ARTICLE; the target id a positive id.
pub(crate) fn article_target(
    target_type: Option<&str>,
    raw_id: Option<&str>,
) -> Result<u64, CommentError> {
    match target_type.map(str::trim) {
        Some(kind) if kind.eq_ignore_ascii_case("ARTICLE") => {}
        None | Some("") => return Err(CommentError::invalid("targetType is required (ARTICLE)")),
        Some(other) => {
            return Err(CommentError::invalid(format!("targetType must be ARTICLE, not `{other}`")))
        }
    }
    let raw = raw_id.map(str::trim).unwrap_or_default();
    parse_id(raw).ok_or_else(|| CommentError::invalid("targetId must be a positive integer id"))
}

/// The forest `viewer` sees: roots oldest first, children oldest first. A comment the viewer
/// may not see is left out with its replies; a deleted one stays as a placeholder while one
/// of its replies is shown. A reply's `replyToUserName` is its parent's current `userName`.
pub(crate) fn forest(
    comments: Vec<StoredComment>,
    viewer: Option<(u64, bool)>,
) -> Vec<CommentNode> {
    let mut children: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut roots = Vec::new();
    for comment in &comments {
        match comment.parent_id {
            Some(parent) => children.entry(parent).or_default().push(comment.id),
            None => roots.push(comment.id),
        }
    }
    let by_id: HashMap<u64, StoredComment> = comments.into_iter().map(|c| (c.id, c)).collect();
    fn build(
        id: u64,
        by_id: &HashMap<u64, StoredComment>,
        children: &HashMap<u64, Vec<u64>>,
        viewer: Option<(u64, bool)>,
    ) -> Option<CommentNode> {
        let comment = by_id.get(&id)?;
        let deleted = comment.status == CommentStatus::Deleted;
        if !deleted && !comment.visible_to(viewer) {
            return None;
        }
        let kids: Vec<CommentNode> = children
            .get(&id)
            .into_iter()
            .flatten()
            .filter_map(|child| build(*child, by_id, children, viewer))
            .collect();
        if deleted && kids.is_empty() {
            return None;
        }
        let mut view = comment.view();
        // The parent's author as the parent shows them now (a rename reaches the parent
        // first; the tree holds it anyway).
        if let Some(parent) = comment.parent_id.and_then(|id| by_id.get(&id)) {
            view.reply_to_user_name = Some(parent.user_name.clone());
        }
        Some(CommentNode { comment: view, children: kids })
    }
    roots.into_iter().filter_map(|id| build(id, &by_id, &children, viewer)).collect()
}

/// The comments of a readable article as a forest, paged by roots (its threads' entries, then
/// the page's threads, at most 1,000 comments, read beside the article's head).
///
/// Everyone sees the APPROVED comments; a signed-in caller also their own PENDING and REJECTED
/// ones (with the replies under them), an administrator every one. Deleted comments with shown
/// replies stay as placeholders. A page holds `size` roots (default 50), oldest first, each
/// with its subtree; a page's replies take at most 1,000 comments and 1 MiB, shared fairly
/// among its threads (a thread past its share keeps its oldest replies).
#[utoipa::path(
    get,
    path = "/tree",
    operation_id = "commentTree",
    tag = "comments",
    params(TreeQuery),
    responses(
        (status = 200, description = "A page of the forest, roots oldest first",
            body = Envelope<Vec<CommentNode>>,
            headers(
                ("X-Total-Count" = u64, description = "How many roots the caller sees, on \
                    every page"),
                ("Link" = String, description = "`</api/v1/comments/tree?targetType=ARTICLE&\
                    targetId=…&page=…&size=…>; rel=\"next\"`: the next page, when roots follow \
                    this one"),
            )),
        (status = 400, description = "`targetType` is not ARTICLE, `targetId` is not an id, or \
            `page` or `size` is out of range (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article, or a draft or deleted one \
            (ARTICLE_NOT_FOUND)", body = Error),
        CommentErrors<Internal>,
    )
)]
pub async fn tree(
    State(ctx): State<AppContext>,
    Viewer(viewer): Viewer,
    QueryParams(query, ..): QueryParams<TreeQuery, CommentError>,
) -> Result<CommentRead<Vec<CommentNode>>, CommentError> {
    let article_id = article_target(query.target_type.as_deref(), query.target_id.as_deref())?;
    let page = TreePage::parse(query.page.as_deref(), query.size.as_deref())?;
    let table = ctx.table.as_ref();
    let (article, read) = try_join!(
        articles::reaction_target(table, article_id),
        tree::read_page(table, article_id, viewer, page)
    )?;
    article.ok_or(CommentFault::ArticleNotFound)?;
    let roots = forest(read.comments, viewer);
    let (headers, roots) = page.answer(read.total, roots, article_id);
    Ok(CommentRead(roots, headers))
}

/// One comment: an APPROVED one to anyone, a PENDING or REJECTED one to its author and
/// administrators only, as is one under a PENDING or REJECTED comment; one on an article no
/// longer readable (a draft again, deleted) to administrators only.
#[utoipa::path(
    get,
    path = "/{id}",
    operation_id = "getComment",
    tag = "comments",
    params(IdParam),
    responses(
        (status = 200, description = "The comment", body = Envelope<Comment>),
        (status = 404, description = "No such comment, a deleted one, one the caller may not \
            see (itself or a comment it answers), or one on an article that is not readable \
            (COMMENT_NOT_FOUND)", body = Error),
        CommentErrors<(Invalid, Internal)>,
    )
)]
pub async fn get(
    State(ctx): State<AppContext>,
    Viewer(viewer): Viewer,
    PathId(id, ..): PathId<CommentError>,
) -> Result<CommentOk<Comment>, CommentError> {
    let admin = viewer.is_some_and(|(_, admin)| admin);
    let table = ctx.table.as_ref();
    match repo::find_with_article(table, id).await? {
        Some((comment, readable))
            if (readable || admin) && thread::shown_to(table, &comment, viewer).await? =>
        {
            Ok(CommentOk::ok(comment.view()))
        }
        _ => Err(CommentFault::CommentNotFound.into()),
    }
}
