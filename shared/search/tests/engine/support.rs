//! Builders and shorthands shared by the engine's tests.

use blog_search::{Article, Fields, Mode, Order, Query, SearchIndex};

/// An article with a title, summary and body, published at `published_at`.
pub fn article(id: &str, title: &str, summary: &str, body: &str, published_at: i64) -> Article {
    Article {
        id: id.into(),
        title: title.into(),
        summary: summary.into(),
        body: body.into(),
        published_at,
        ..Article::default()
    }
}

/// An article with only a title.
pub fn titled(id: &str, title: &str, published_at: i64) -> Article {
    article(id, title, "", "", published_at)
}

/// An index holding `articles`.
pub fn index_of(articles: impl IntoIterator<Item = Article>) -> SearchIndex {
    let mut index = SearchIndex::new().unwrap();
    index.upsert(articles).unwrap();
    index
}

/// The ids a query finds (first page of at most 100).
pub fn ids(index: &SearchIndex, query: &Query) -> Vec<String> {
    let query = Query { limit: 100, ..query.clone() };
    index.search(&query).unwrap().hits.into_iter().map(|hit| hit.id).collect()
}

/// The ids a text query over every field finds, by relevance.
pub fn find(index: &SearchIndex, text: &str) -> Vec<String> {
    ids(index, &Query::new(text))
}

/// The same, sorted, for set comparisons.
pub fn find_sorted(index: &SearchIndex, text: &str) -> Vec<String> {
    let mut found = find(index, text);
    found.sort();
    found
}

/// A text query over title and summary, newest first (the article list's keyword filter).
pub fn keyword(text: &str, offset: usize, limit: usize) -> Query {
    Query {
        fields: Fields::TitleAndSummary,
        order: Order::Newest,
        offset,
        limit,
        ..Query::new(text)
    }
}

/// A semantic query for `vector`.
pub fn semantic(vector: Vec<f32>) -> Query {
    Query { mode: Mode::Semantic(vector), ..Query::default() }
}

/// Deterministic pseudo-random numbers (SplitMix64), so tests need no random crate.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Random(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound`.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// Roughly normal (sum of uniforms), mean 0.
    pub fn gaussian(&mut self) -> f32 {
        (0..4).map(|_| (self.next_u64() >> 11) as f32 / (1u64 << 53) as f32).sum::<f32>() - 2.0
    }

    pub fn vector(&mut self, dims: usize) -> Vec<f32> {
        (0..dims).map(|_| self.gaussian()).collect()
    }
}

/// Exact cosine similarity in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}
