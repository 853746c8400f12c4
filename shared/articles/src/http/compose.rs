//! What create and update compute before they write: the taxonomy an article names (read
//! together) and the content pipeline's results.

use futures::join;

use blog_core::{context::AppContext, http::Failure, ports::table::Table};
use blog_taxonomy::{self as taxonomy};

use crate::{
    content,
    envelope::ArticleError,
    input::{Validated, MAX_BODY_BYTES},
    model::{ArticleBody, ArticleHead, TagRef},
};

/// The category name and tag references of a body: one GetItem and one BatchGetItem, made
/// together. A missing category is reported before a missing tag.
pub(crate) async fn taxonomy_of(
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
pub(crate) fn apply(
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
        ..ArticleBody::default()
    })
}
