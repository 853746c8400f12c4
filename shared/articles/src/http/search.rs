//! `GET /api/v1/search`: published articles by words (title, summary, tag and category names,
//! body), by meaning, or both, with where the words matched.

use axum::{
    extract::State,
    http::{header::CACHE_CONTROL, HeaderMap},
};
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

use blog_core::http::responses::kinds::*;
use blog_core::http::{
    caching,
    extract::{ClientAddress, QueryParams},
    Failure,
};
use blog_search::{Fields, Mode, Order, Query};

use crate::{
    envelope::ArticleFault,
    envelope::{ArticleEnvelope, ArticleError, ArticleErrorEnvelope, ArticleErrors, ArticleOk},
    input::{self, MAX_PUBLIC_DEPTH},
    model::{ListItem, Page},
    search::{self, QueryVector, Searching},
    Reading,
};

/// The longest `q`, in characters.
pub const MAX_QUERY_CHARS: usize = blog_search::MAX_QUERY_CHARS;
/// The largest `size`.
pub const MAX_SIZE: u64 = 50;
/// Freshness of a search's answer for browsers and a CDN: the index changes without the
/// table telling, so its answers are never kept longer than this.
pub const FRESH_SECONDS: u64 = 5;

/// The query of a search.
#[derive(serde::Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// What to look for, 1-200 characters: every word must match (the last one also as the
    /// start of a word; words of 5+ letters also with one typo), in any script.
    #[param(value_type = String, min_length = 1, max_length = 200)]
    q: Option<String>,
    /// Page number (default 1).
    #[param(value_type = Option<u64>, minimum = 1)]
    page: Option<String>,
    /// Page size, 1-50 (default 10).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 50)]
    size: Option<String>,
    /// Only articles of this category.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 9007199254740991_u64)]
    category_id: Option<String>,
    /// Only articles carrying this tag.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 9007199254740991_u64)]
    tag_id: Option<String>,
    /// `text` (default: by words), `semantic` (by meaning) or `hybrid` (both, fused).
    #[param(value_type = Option<String>, pattern = "^(text|semantic|hybrid)$")]
    mode: Option<String>,
}

/// Where the words of `q` occur: plain text with each in `<mark>`…`</mark>` and everything
/// else HTML-escaped; `null` where none occurs (in every mode: an article found by meaning
/// shows the words it holds, if any).
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct SearchHighlights {
    /// The whole title.
    #[schema(required = true)]
    title: Option<String>,
    /// A fragment of the summary (about 160 characters at most).
    #[schema(required = true)]
    summary: Option<String>,
    /// A fragment of the body's text (about 160 characters at most).
    #[schema(required = true)]
    content: Option<String>,
}

/// A list item found by a search, with its score and highlights.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    #[serde(flatten)]
    item: ListItem,
    /// Relevance: BM25 (`text`), cosine similarity (`semantic`) or fused reciprocal ranks
    /// (`hybrid`); higher is better, comparable within one search only.
    score: f32,
    /// Where the words matched.
    highlights: SearchHighlights,
}

/// A validated search.
#[derive(Debug)]
struct Search {
    text: String,
    mode: &'static str,
    page: u64,
    size: u64,
    category_id: Option<u64>,
    tag_id: Option<u64>,
}

fn invalid(message: impl Into<String>) -> ArticleError {
    Failure::Invalid(message.into()).into()
}

impl SearchQuery {
    fn validate(self) -> Result<Search, ArticleError> {
        let text = self.q.unwrap_or_default();
        let length = text.trim().chars().count();
        if length == 0 || text.chars().count() > MAX_QUERY_CHARS {
            return Err(invalid(format!("q must be 1-{MAX_QUERY_CHARS} characters")));
        }
        let mode = match self.mode.as_deref().map(str::trim) {
            None | Some("") | Some("text") => "text",
            Some("semantic") => "semantic",
            Some("hybrid") => "hybrid",
            Some(_) => return Err(invalid("mode must be text, semantic or hybrid")),
        };
        let page = input::number("page", self.page.as_deref(), 1..=1_000_000)?.unwrap_or(1);
        let size = input::number("size", self.size.as_deref(), 1..=MAX_SIZE)?.unwrap_or(10);
        if page.saturating_mul(size) > MAX_PUBLIC_DEPTH {
            return Err(invalid(format!(
                "page × size must be at most {MAX_PUBLIC_DEPTH} (here {page} × {size}): \
                 narrow the search with more words, categoryId or tagId"
            )));
        }
        Ok(Search {
            text: text.trim().to_owned(),
            mode,
            page,
            size,
            category_id: input::id("categoryId", self.category_id.as_deref())?,
            tag_id: input::id("tagId", self.tag_id.as_deref())?,
        })
    }
}

/// The text a query is embedded from: its words, lower-cased, single-spaced (so the queries a
/// reader types differently share one embedding).
fn embedded_text(text: &str) -> String {
    text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// Search published articles by words, by meaning, or both.
///
/// Title, summary, tag and category names and the body's text are searched; a title match
/// ranks above a body-only match. `semantic` and `hybrid` embed `q` (at most 20 new queries a
/// minute per client: 429 TOO_MANY_REQUESTS beyond). A change of an article is searchable
/// within about 10 seconds.
#[utoipa::path(
    get,
    path = "/search",
    operation_id = "searchArticles",
    tag = "articles",
    params(SearchQuery),
    responses(
        (status = 200, description = "A page of published articles, best first, with their \
            score and highlights", body = ArticleEnvelope<Page<SearchItem>>),
        (status = 400, description = "`q` empty or longer than 200 characters, an unknown \
            `mode`, or a parameter out of range (PARAM_ERROR)", body = ArticleErrorEnvelope),
        (status = 429, description = "Too many new semantic queries from this client, or from \
            all clients, this minute (TOO_MANY_REQUESTS, with `Retry-After`)",
            body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn search(
    State(ctx): State<Reading>,
    ClientAddress(client): ClientAddress,
    QueryParams(query, ..): QueryParams<SearchQuery, ArticleError>,
) -> Result<(HeaderMap, ArticleOk<Page<SearchItem>>), ArticleError> {
    let search = query.validate()?;
    let Searching { index, vectors } = &ctx.port;
    let mode = match search.mode {
        "text" => Mode::Text,
        semantic_or_hybrid => {
            let text = embedded_text(&search.text);
            let vector = match vectors.of(ctx.table.as_ref(), &client, &text).await {
                Ok(QueryVector::Ready(vector)) => vector.as_ref().clone(),
                Ok(QueryVector::Limited { retry_after_secs }) => {
                    return Err(ArticleFault::TooManyRequests { retry_after_secs }.into())
                }
                Err(error) => return Err(Failure::Internal(error.context("embedding q")).into()),
            };
            // A query with nothing to embed (stop words, punctuation) has no direction: by
            // meaning it finds nothing, and a hybrid search is its words' alone.
            let meaningless = vector.iter().all(|value| *value == 0.0);
            match (semantic_or_hybrid, meaningless) {
                ("semantic", _) => Mode::Semantic(vector),
                (_, false) => Mode::Hybrid(vector),
                (_, true) => Mode::Text,
            }
        }
    };
    let engine_query = Query {
        text: search.text.clone(),
        mode,
        fields: Fields::Everything,
        category_id: search.category_id.map(|id| id.to_string()),
        tag_id: search.tag_id.map(|id| id.to_string()),
        order: Order::Relevance,
        offset: ((search.page - 1) * search.size) as usize,
        limit: search.size as usize,
    };
    let results = search::run(index, &engine_query).await?;
    let ids: Vec<u64> = results.hits.iter().filter_map(|hit| hit.id.parse().ok()).collect();
    let mut heads = search::listed_heads(ctx.table.as_ref(), &ids).await?;
    let records = results
        .hits
        .into_iter()
        .filter_map(|hit| {
            let head = heads.remove(&hit.id.parse().ok()?)?;
            let highlights = SearchHighlights {
                title: hit.highlights.title,
                summary: hit.highlights.summary,
                content: hit.highlights.content,
            };
            Some(SearchItem { item: head.list_item(), score: hit.score, highlights })
        })
        .collect();
    let page = Page::new(records, results.total as u64, search.page, search.size, false);
    Ok((fresh_for_seconds(), ArticleOk::ok(page)))
}

/// `Cache-Control` of an answer read from the index ([`FRESH_SECONDS`]).
pub fn fresh_for_seconds() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CACHE_CONTROL, caching::public(std::time::Duration::from_secs(FRESH_SECONDS)));
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Result<Search, String> {
        let encoded = serde_urlencoded::to_string(pairs).unwrap();
        let query: SearchQuery = serde_urlencoded::from_str(&encoded).unwrap();
        query.validate().map_err(|e| e.to_string())
    }

    #[test]
    fn q_is_required_and_at_most_200_characters() {
        for bad in [vec![], vec![("q", "")], vec![("q", "   ")]] {
            assert_eq!(query(&bad).unwrap_err(), "q must be 1-200 characters");
        }
        let long = "安".repeat(201);
        assert_eq!(query(&[("q", &long)]).unwrap_err(), "q must be 1-200 characters");
        assert_eq!(query(&[("q", &"安".repeat(200))]).unwrap().text.chars().count(), 200);
    }

    #[test]
    fn mode_size_and_depth_are_checked() {
        assert_eq!(query(&[("q", "rust")]).unwrap().mode, "text");
        assert_eq!(query(&[("q", "rust"), ("mode", "hybrid")]).unwrap().mode, "hybrid");
        let bad_mode = query(&[("q", "rust"), ("mode", "fuzzy")]).unwrap_err();
        assert_eq!(bad_mode, "mode must be text, semantic or hybrid");
        assert_eq!(query(&[("q", "rust")]).unwrap().size, 10);
        assert!(query(&[("q", "rust"), ("size", "51")]).unwrap_err().contains("size"));
        assert!(query(&[("q", "rust"), ("page", "21"), ("size", "50")])
            .unwrap_err()
            .contains("at most 1000"));
        assert!(query(&[("q", "rust"), ("tagId", "x")]).unwrap_err().contains("tagId"));
    }

    #[test]
    fn queries_typed_differently_share_one_embedding() {
        assert_eq!(embedded_text("  Rust   ASYNC\tRuntime "), "rust async runtime");
    }
}
