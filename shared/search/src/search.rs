//! Running a [`Query`]: the text ranking (tantivy), the semantic ranking (the catalog), their
//! fusion, the order, the page and the highlights of its hits.

use std::cmp::Ordering;
use std::collections::HashMap;

use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::catalog::{Entry, Filters};
use crate::collect::AllMatches;
use crate::error::{Result, SearchError};
use crate::highlight::highlight;
use crate::index::SearchIndex;
use crate::query::{query_words, text_query, Fields, Mode, Order, Query, QueryWord, MAX_LIMIT};
use crate::schema::TextField;

/// The `k` of reciprocal rank fusion: a document ranked `r` (from 1) scores `1 / (k + r)`.
pub const RRF_K: f32 = 60.0;

/// One page of a search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Every matching article (all pages): text matches, vector candidates, or their union.
    pub total: usize,
    /// The page: hits `offset..offset + limit` in the query's order.
    pub hits: Vec<Hit>,
}

/// One article found.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The article's id.
    pub id: String,
    /// BM25 (text), cosine similarity (semantic) or fused reciprocal ranks (hybrid).
    pub score: f32,
    /// The article's publication time, epoch milliseconds.
    pub published_at: i64,
    /// Where the query's words matched.
    pub highlights: Highlights,
}

/// HTML fragments with each match in `<mark>`…`</mark>` and all other text escaped; `None`
/// where the field has no match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Highlights {
    /// The whole title.
    pub title: Option<String>,
    /// A fragment of the summary (at most about 160 characters).
    pub summary: Option<String>,
    /// A fragment of the body (at most about 160 characters); only with [`Fields::Everything`].
    pub content: Option<String>,
}

/// An article in the running: its catalog entry, its score, and its tantivy document if the
/// text ranking found it.
struct Candidate<'a> {
    key: u64,
    entry: &'a Entry,
    score: f32,
    address: Option<DocAddress>,
}

fn by_relevance(a: &Candidate<'_>, b: &Candidate<'_>) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then(b.entry.published_at.cmp(&a.entry.published_at))
        .then_with(|| a.entry.id.cmp(&b.entry.id))
}

/// Pinned first, then newest; equal times by id descending (shorter ids are smaller numbers).
fn by_newest(a: &Candidate<'_>, b: &Candidate<'_>) -> Ordering {
    b.entry
        .pinned
        .cmp(&a.entry.pinned)
        .then(b.entry.published_at.cmp(&a.entry.published_at))
        .then_with(|| (b.entry.id.len(), &b.entry.id).cmp(&(a.entry.id.len(), &a.entry.id)))
}

/// Sorts the first `count` candidates of `order` into place and drops the rest.
fn keep_first(
    candidates: &mut Vec<Candidate<'_>>,
    count: usize,
    order: fn(&Candidate<'_>, &Candidate<'_>) -> Ordering,
) {
    if count < candidates.len() {
        candidates.select_nth_unstable_by(count, order);
        candidates.truncate(count);
    }
    candidates.sort_unstable_by(order);
}

impl SearchIndex {
    /// Runs `query` and returns the exact total and the page asked for (see the crate
    /// documentation for matching, ranking and bounds).
    pub fn search(&self, query: &Query) -> Result<Results> {
        let words = query_words(&query.text);
        let filters =
            Filters { category_id: query.category_id.as_deref(), tag_id: query.tag_id.as_deref() };
        let searcher = self.reader.searcher();
        let mut candidates = match &query.mode {
            Mode::Text => self.text_ranking(&searcher, &words, query.fields, filters)?,
            Mode::Semantic(vector) => self.semantic_ranking(vector, filters)?,
            Mode::Hybrid(vector) => {
                let semantic = self.semantic_ranking(vector, filters)?;
                let text = self.text_ranking(&searcher, &words, query.fields, filters)?;
                fuse(text, semantic)
            }
        };
        let total = candidates.len();
        let end = query.offset.saturating_add(query.limit.min(MAX_LIMIT)).min(total);
        let order = match query.order {
            Order::Relevance => by_relevance,
            Order::Newest => by_newest,
        };
        keep_first(&mut candidates, end, order);
        let page = candidates.get(query.offset..).unwrap_or_default();
        let hits = page
            .iter()
            .map(|candidate| {
                Ok(Hit {
                    id: candidate.entry.id.clone(),
                    score: candidate.score,
                    published_at: candidate.entry.published_at,
                    highlights: self.highlights(&searcher, candidate, &words, query.fields)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Results { total, hits })
    }

    /// Every article matching all `words` in `fields` and passing `filters`, with its BM25.
    fn text_ranking(
        &self,
        searcher: &Searcher,
        words: &[QueryWord],
        fields: Fields,
        filters: Filters<'_>,
    ) -> Result<Vec<Candidate<'_>>> {
        if words.is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        let query = text_query(words, &self.fields.searched(fields == Fields::Everything));
        let matches = searcher.search(&query, &AllMatches)?;
        Ok(matches
            .into_iter()
            .filter_map(|found| {
                let entry = self.catalog.get(found.key)?;
                let address = Some(found.address);
                let candidate = Candidate { key: found.key, entry, score: found.score, address };
                entry.passes(filters).then_some(candidate)
            })
            .collect())
    }

    /// Every article with a vector passing `filters`, with its cosine similarity to `vector`.
    fn semantic_ranking(&self, vector: &[f32], filters: Filters<'_>) -> Result<Vec<Candidate<'_>>> {
        Ok(self
            .catalog
            .semantic(vector, filters)?
            .into_iter()
            .filter_map(|(key, score)| {
                Some(Candidate { key, entry: self.catalog.get(key)?, score, address: None })
            })
            .collect())
    }

    fn highlights(
        &self,
        searcher: &Searcher,
        candidate: &Candidate<'_>,
        words: &[QueryWord],
        fields: Fields,
    ) -> Result<Highlights> {
        if words.is_empty() {
            return Ok(Highlights::default());
        }
        let address = match candidate.address {
            Some(address) => Some(address),
            None => self.address_of(searcher, &candidate.entry.id)?,
        };
        let Some(address) = address else { return Ok(Highlights::default()) };
        let document: TantivyDocument = searcher.doc(address)?;
        let text = |field: TextField| {
            document.get_first(field.terms).and_then(|v| v.as_str()).unwrap_or("")
        };
        Ok(Highlights {
            title: highlight(text(self.fields.title), words, true),
            summary: highlight(text(self.fields.summary), words, false),
            content: match fields {
                Fields::Everything => highlight(text(self.fields.body), words, false),
                Fields::TitleAndSummary => None,
            },
        })
    }

    /// The live tantivy document of an article.
    fn address_of(&self, searcher: &Searcher, id: &str) -> Result<Option<DocAddress>> {
        let query =
            TermQuery::new(Term::from_field_text(self.fields.id, id), IndexRecordOption::Basic);
        Ok(searcher.search(&query, &DocSetCollector)?.into_iter().next())
    }
}

/// Reciprocal rank fusion of two rankings: each article scores the sum of `1 / (RRF_K + rank)`
/// over the rankings it is in (ranks from 1, each ranking by relevance).
fn fuse<'a>(mut text: Vec<Candidate<'a>>, mut semantic: Vec<Candidate<'a>>) -> Vec<Candidate<'a>> {
    text.sort_unstable_by(by_relevance);
    semantic.sort_unstable_by(by_relevance);
    let mut fused: HashMap<u64, Candidate<'a>> =
        HashMap::with_capacity(text.len() + semantic.len());
    for ranking in [text, semantic] {
        for (rank, candidate) in ranking.into_iter().enumerate() {
            let score = 1.0 / (RRF_K + rank as f32 + 1.0);
            fused
                .entry(candidate.key)
                .and_modify(|seen| {
                    seen.score += score;
                    seen.address = seen.address.or(candidate.address);
                })
                .or_insert(Candidate { score, ..candidate });
        }
    }
    fused.into_values().collect()
}
