//! Search: published articles in the search engine ([`blog_search`]), kept as one object of
//! the bucket. The worker keeps it up to date from the article events ([`stored::IndexKeeper`]:
//! conditional writes, a rebuild from the table when it is missing or of another format); the
//! public area loads it on its first search and checks for a newer one at most every
//! `BLOG_SEARCH_REFRESH_SECONDS` ([`live::LiveIndex`]). The list's `keyword` and
//! `GET /api/v1/search` both read it.

pub mod documents;
pub mod live;
pub mod query_vectors;
pub mod stored;

use std::{collections::HashMap, sync::Arc};

use blog_core::{
    area::Port, context::AppContext, http::error::ResultExt, ports::table::Table, records,
};
use blog_search::{Fields, Mode, Order, Query, Results, SearchError};

use crate::{
    envelope::ArticleError,
    keys,
    model::ArticleHead,
    read::{get_all, Found},
};

pub use live::LiveIndex;
pub use query_vectors::{QueryVector, QueryVectors};
pub use stored::{IndexKeeper, Synced, INDEX_KEY};

/// What the public area searches with: the loaded index and the query embeddings.
#[derive(Clone)]
pub struct Searching {
    /// The index as stored, loaded on the first search.
    pub index: Arc<LiveIndex>,
    /// Query embeddings for semantic and hybrid search.
    pub vectors: Arc<QueryVectors>,
}

impl Port for Searching {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        let index = LiveIndex::new(ctx.require_blobs()?, ctx.config.search_refresh);
        let vectors = QueryVectors::new(ctx.require_embedder()?);
        Ok(Self { index: Arc::new(index), vectors: Arc::new(vectors) })
    }
}

/// Runs `query` on the index as stored now: no index yet, a query without a searchable word
/// (only one-letter words or punctuation), or a query vector without a direction (a text with
/// nothing to embed), finds nothing.
pub async fn run(index: &LiveIndex, query: &Query) -> Result<Results, ArticleError> {
    let Some(index) = index.current().await.or_internal("loading the search index")? else {
        return Ok(Results::default());
    };
    match index.search(query) {
        Err(SearchError::EmptyQuery | SearchError::InvalidVector(_)) => Ok(Results::default()),
        other => Ok(other.or_internal("searching")?),
    }
}

/// The heads of `ids` still listed (the index may be a few seconds behind the table), in the
/// order of `ids`: one BatchGetItem.
pub async fn listed_heads(
    table: &dyn Table,
    ids: &[u64],
) -> Result<HashMap<u64, ArticleHead>, ArticleError> {
    let keys: Vec<_> = ids.iter().map(|id| keys::head(*id)).collect();
    let mut heads = HashMap::with_capacity(ids.len());
    for item in get_all(table, &keys).await? {
        let head: ArticleHead = records::from_item(item)?;
        if head.is_listed() {
            heads.insert(head.id, head);
        }
    }
    Ok(heads)
}

/// The list's page of a keyword: every word in the title or summary (or their prefixes and
/// near spellings, as the engine matches them), with the list's filters and order (pinned,
/// then newest).
pub async fn keyword_page(
    searching: &Searching,
    table: &dyn Table,
    keyword: &str,
    (category_id, tag_id): (Option<u64>, Option<u64>),
    (page, size): (u64, u64),
) -> Result<Found, ArticleError> {
    let query = Query {
        text: keyword.to_owned(),
        mode: Mode::Text,
        fields: Fields::TitleAndSummary,
        category_id: category_id.map(|id| id.to_string()),
        tag_id: tag_id.map(|id| id.to_string()),
        order: Order::Newest,
        offset: ((page - 1) * size) as usize,
        limit: size as usize,
    };
    let results = run(&searching.index, &query).await?;
    let ids: Vec<u64> = results.hits.iter().filter_map(|hit| hit.id.parse().ok()).collect();
    let mut heads = listed_heads(table, &ids).await?;
    let heads = ids.iter().filter_map(|id| heads.remove(id)).collect();
    Ok(Found { heads, total: results.total as u64 })
}
