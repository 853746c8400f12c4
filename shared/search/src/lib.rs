//! The blog's search engine: published articles indexed in RAM with
//! [tantivy](https://docs.rs/tantivy), searched by words (BM25), by vector (cosine) or both
//! (reciprocal rank fusion), and saved and loaded as one blob.
//!
//! A leaf crate: it knows no other `blog-*` crate. The caller feeds it [`Article`]s
//! ([`SearchIndex::upsert`], [`SearchIndex::remove`]), asks it [`Query`]s
//! ([`SearchIndex::search`]) and nearest neighbours ([`SearchIndex::related`]), and keeps it as
//! one object ([`SearchIndex::to_bundle`], [`SearchIndex::from_bundle`]).
//!
//! # Tokenizer
//!
//! One tokenizer serves indexing, queries and highlights. It is registered on the index under
//! two names, one per token stream it produces (`blog_terms`, `blog_cjk_bigrams`), each
//! indexing its own field of every searched text:
//!
//! - Text is NFKC-normalised and lower-cased first, so fullwidth and halfwidth forms
//!   (`ＲＵＳＴ`, `１２３`, `ｶﾀｶﾅ`), ligatures and case all match their plain form.
//! - Space-separated scripts: words are runs of letters, digits and combining marks. Words of
//!   one character are dropped (in texts and queries alike: `a`, `C`, `3` are not searchable,
//!   and a query of only such words is [`SearchError::EmptyQuery`]); this keeps a
//!   search-as-you-type prefix from ever expanding a single letter. Words longer than 40
//!   characters are cut to 40. Every word of every field is indexed: there is no token limit.
//! - CJK runs (Han with its extension and compatibility blocks, kana, Hangul, Bopomofo): every
//!   character is indexed as a term, and every overlapping bigram, with its position, in the
//!   bigram field. A query run of one character matches that character; of two, the bigram; of
//!   three or more, the phrase of its bigrams, i.e. exactly the texts holding the run
//!   contiguously: `安全` finds `java 安全管理器`, `安全管理` does not find `安全 … 管理`.
//!   Only bigrams keep positions (a phrase needs them; a term does not), which keeps the index
//!   about a fifth smaller. Scripts written without spaces but outside these blocks (Thai,
//!   Lao, Khmer, Burmese) are read as long words.
//!
//! # Queries
//!
//! - Every word must match (AND), each in any of the chosen [`Fields`]; a CJK run is one word.
//! - The last word, if not CJK, also matches as a prefix (`rus` finds `rust`).
//! - Words of [`FUZZY_MIN_LETTERS`] letters or more (letters only) also match at one edit,
//!   a transposition counting as one (`tantivu` finds `tantivy`); shorter words match exactly.
//! - Relevance is BM25 with field boosts (title 3, summary 1.5, tag and category names 1.5,
//!   body 1), so a title match outranks a body-only match. Prefix and typo matches add a small
//!   constant instead, so an exact match ranks above them. Equal scores: newest first.
//! - Bounds: the first [`MAX_QUERY_CHARS`] characters and [`MAX_QUERY_WORDS`] words of the
//!   text are read; a page holds at most [`MAX_LIMIT`] hits; `total` is always exact.
//! - Semantic search ranks the articles that have a vector by cosine similarity; hybrid search
//!   fuses the text and the semantic rankings (k = [`RRF_K`]); filters apply in every mode.
//!
//! # Vectors
//!
//! Vectors are stored quantised to i8 with one f32 scale per vector (about one byte per
//! dimension), which moves a cosine by less than 0.001 at 512 dimensions. Every vector of an
//! index has one dimension: that of the vectors already stored (an article's vector of another
//! dimension, or a query vector of another, is [`SearchError::DimensionMismatch`]).
//!
//! # Persistence
//!
//! [`SearchIndex::to_bundle`] writes the whole index as one blob (format [`BUNDLE_FORMAT`],
//! checksummed); [`SearchIndex::from_bundle`] loads it into RAM or refuses it with
//! [`SearchError::CorruptBundle`] or [`SearchError::UnsupportedBundleVersion`], in which case
//! the caller rebuilds the index from its articles. [`SearchIndex::generation`] tells which of
//! two bundles is newer.
//!
//! # Highlights
//!
//! Titles whole, summaries and bodies as fragments of at most [`FRAGMENT_CHARS`] characters
//! around the best cluster of matches, each match in `<mark>`…`</mark>`, everything else
//! HTML-escaped.

#![warn(missing_docs)]

mod bundle;
mod catalog;
mod collect;
mod error;
mod highlight;
mod index;
mod query;
mod schema;
mod search;
mod tokenizer;
mod vectors;

pub use bundle::BUNDLE_FORMAT;
pub use error::{Result, SearchError};
pub use highlight::FRAGMENT_CHARS;
pub use index::SearchIndex;
pub use query::{
    Fields, Mode, Order, Query, FUZZY_MIN_LETTERS, MAX_LIMIT, MAX_QUERY_CHARS, MAX_QUERY_WORDS,
};
pub use schema::Article;
pub use search::{Highlights, Hit, Results, RRF_K};
