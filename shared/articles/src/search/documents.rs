//! What the search engine indexes of an article, and every published article read from the
//! table for a rebuild.

use futures::{stream, StreamExt, TryStreamExt};

use blog_core::{
    ports::table::{Index, Query, Table, TableError},
    records::{self, query_all},
};

use crate::{
    content, keys,
    model::{ArticleBody, ArticleHead},
    read, related,
};

/// Articles read at once while the whole index is rebuilt.
const REBUILD_CONCURRENCY: usize = 16;

/// Milliseconds since the epoch of an API time (`YYYY-MM-DDTHH:MM:SS`, UTC); 0 when absent.
fn epoch_millis(api_time: Option<&str>) -> i64 {
    api_time
        .and_then(|at| chrono::NaiveDateTime::parse_from_str(at, blog_core::time::FORMAT).ok())
        .map_or(0, |at| at.and_utc().timestamp_millis())
}

/// The engine's document of a published article: its title, summary, the body's plain text,
/// its category and tags (ids to filter on, names to search), its place in the list (pinned,
/// publish time) and its embedding, if it has one.
pub fn document(
    head: &ArticleHead,
    body: &ArticleBody,
    embedding: Option<Vec<f32>>,
) -> blog_search::Article {
    blog_search::Article {
        id: head.id.to_string(),
        title: head.title.clone(),
        summary: head.summary.clone(),
        body: content::render(&body.content).plain_text,
        category_id: head.category_id.map(|id| id.to_string()),
        category_name: head.category_name.clone(),
        tag_ids: head.tags.iter().map(|tag| tag.id.clone()).collect(),
        tag_names: head.tags.iter().map(|tag| tag.name.clone()).collect(),
        published_at: epoch_millis(head.publish_time.as_deref()),
        pinned: head.is_top,
        embedding: embedding.filter(|vector| vector.iter().any(|v| *v != 0.0)),
    }
}

/// The document of article `id` as the table holds it now, with its stored embedding when that
/// is of `model`; `None` when it is not published.
pub async fn current(
    table: &dyn Table,
    id: u64,
    model: &str,
) -> Result<Option<blog_search::Article>, TableError> {
    let (article, vector) = futures::try_join!(read::load(table, id), related::vector(table, id))?;
    let Some((head, body)) = article.filter(|(head, _)| head.is_listed()) else {
        return Ok(None);
    };
    let embedding = vector.filter(|record| record.model == model).map(|record| record.embedding());
    Ok(Some(document(&head, &body, embedding)))
}

/// Every published article's document: the public listing's heads (one paged Query), then
/// each article's body and vector, [`REBUILD_CONCURRENCY`] at a time.
pub async fn every_published(
    table: &dyn Table,
    model: &str,
) -> Result<Vec<blog_search::Article>, TableError> {
    let listing = Query::partition(Index::Gsi1, keys::PUBLISHED);
    let heads: Vec<ArticleHead> = query_all(table, listing)
        .await?
        .into_iter()
        .map(records::from_item)
        .collect::<Result<_, _>>()?;
    let documents: Vec<Option<blog_search::Article>> = stream::iter(heads)
        .map(|head| async move { current(table, head.id, model).await })
        .buffer_unordered(REBUILD_CONCURRENCY)
        .try_collect()
        .await?;
    Ok(documents.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_time_becomes_epoch_milliseconds_and_no_time_zero() {
        assert_eq!(epoch_millis(Some("2026-01-02T03:04:05")), 1_767_323_045_000);
        assert_eq!(epoch_millis(Some("yesterday")), 0);
        assert_eq!(epoch_millis(None), 0);
    }
}
