//! What a caller asks ([`Query`]), the words a query text is read as, and the tantivy query
//! those words become.

use tantivy::query::{
    BooleanQuery, BoostQuery, FuzzyTermQuery, Occur, PhraseQuery, Query as TantivyQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::Term;

use crate::schema::TextField;
use crate::tokenizer::{normalize, pieces, Piece};

/// Characters of the query text read; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 200;
/// Words of the query text read (a CJK run is one word); the rest are ignored.
pub const MAX_QUERY_WORDS: usize = 32;
/// Largest page: a larger [`Query::limit`] is lowered to this.
pub const MAX_LIMIT: usize = 100;
/// Shortest word (in letters) that also matches with one typo.
pub const FUZZY_MIN_LETTERS: usize = 5;

/// Weight of a prefix match (per field, times the field's boost): well below any exact match.
const PREFIX_WEIGHT: f32 = 0.2;
/// Weight of a one-typo match (per field, times the field's boost).
const FUZZY_WEIGHT: f32 = 0.1;

/// One search.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// The words typed. Every word must match (see the crate documentation for how words are
    /// read); ignored for matching, and then optional, in [`Mode::Semantic`].
    pub text: String,
    /// Text, vector or both.
    pub mode: Mode,
    /// Which fields the words are looked for in.
    pub fields: Fields,
    /// Only articles of this category (exact id).
    pub category_id: Option<String>,
    /// Only articles with this tag (exact id).
    pub tag_id: Option<String>,
    /// Relevance or publication order.
    pub order: Order,
    /// Hits skipped before the page.
    pub offset: usize,
    /// Hits on the page, at most [`MAX_LIMIT`].
    pub limit: usize,
}

impl Query {
    /// A text search for `text` over every field, by relevance, first 10 hits.
    pub fn new(text: impl Into<String>) -> Self {
        Query { text: text.into(), ..Query::default() }
    }
}

impl Default for Query {
    fn default() -> Self {
        Query {
            text: String::new(),
            mode: Mode::Text,
            fields: Fields::Everything,
            category_id: None,
            tag_id: None,
            order: Order::Relevance,
            offset: 0,
            limit: 10,
        }
    }
}

/// How documents are matched and scored. The caller embeds the query text itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Mode {
    /// BM25 over the words (every word must match).
    #[default]
    Text,
    /// Cosine similarity of this vector to the articles' vectors; articles without one are
    /// not returned.
    Semantic(Vec<f32>),
    /// Reciprocal rank fusion (k = 60) of the text ranking and the semantic ranking.
    Hybrid(Vec<f32>),
}

/// The fields a query's words are looked for in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fields {
    /// Title and summary (the article list's keyword filter). No body highlight.
    TitleAndSummary,
    /// Title, summary, tag names, category name and body (the search endpoint).
    #[default]
    Everything,
}

/// The order of the hits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Best score first; equal scores newest first.
    #[default]
    Relevance,
    /// Pinned articles first, then newest `published_at` first (a blog's list order).
    Newest,
}

/// One word of a query, as it is matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum QueryWord {
    /// A word of a space-separated script.
    Word {
        text: String,
        /// The last word of the query also matches as a prefix.
        prefix: bool,
        /// Words of [`FUZZY_MIN_LETTERS`] letters or more also match with one edit.
        fuzzy: bool,
    },
    /// A CJK run, matched as a contiguous substring.
    Cjk(Vec<char>),
}

/// The words of a query text: at most [`MAX_QUERY_WORDS`] of its first [`MAX_QUERY_CHARS`]
/// characters, each once, the last one (if not CJK) also a prefix.
pub(crate) fn query_words(text: &str) -> Vec<QueryWord> {
    let bounded = match text.char_indices().nth(MAX_QUERY_CHARS) {
        Some((cut, _)) => &text[..cut],
        None => text,
    };
    let chars = normalize(bounded);
    let mut words: Vec<QueryWord> = pieces(&chars)
        .into_iter()
        .take(MAX_QUERY_WORDS)
        .map(|piece| match piece {
            Piece::Word(word) => QueryWord::Word {
                fuzzy: word.text.chars().count() >= FUZZY_MIN_LETTERS
                    && word.text.chars().all(char::is_alphabetic),
                text: word.text,
                prefix: false,
            },
            Piece::Cjk(run) => QueryWord::Cjk(run.iter().map(|c| c.ch).collect()),
        })
        .collect();
    if let Some(QueryWord::Word { prefix, .. }) = words.last_mut() {
        *prefix = true;
    }
    let mut distinct: Vec<QueryWord> = Vec::with_capacity(words.len());
    for word in words {
        match (&word, distinct.iter_mut().find(|seen| same_text(seen, &word))) {
            (QueryWord::Word { prefix: true, .. }, Some(QueryWord::Word { prefix, .. })) => {
                *prefix = true;
            }
            (_, Some(_)) => {}
            (_, None) => distinct.push(word),
        }
    }
    distinct
}

fn same_text(a: &QueryWord, b: &QueryWord) -> bool {
    match (a, b) {
        (QueryWord::Word { text: a, .. }, QueryWord::Word { text: b, .. }) => a == b,
        (QueryWord::Cjk(a), QueryWord::Cjk(b)) => a == b,
        _ => false,
    }
}

/// The tantivy query: every word must match in at least one of `fields` (each with its boost).
pub(crate) fn text_query(words: &[QueryWord], fields: &[(TextField, f32)]) -> BooleanQuery {
    let clauses = words
        .iter()
        .map(|word| {
            let alternatives: Vec<(Occur, Box<dyn TantivyQuery>)> = fields
                .iter()
                .flat_map(|&(field, boost)| word_in_field(word, field, boost))
                .map(|query| (Occur::Should, query))
                .collect();
            (Occur::Must, Box::new(BooleanQuery::new(alternatives)) as Box<dyn TantivyQuery>)
        })
        .collect();
    BooleanQuery::new(clauses)
}

/// The ways `word` matches in `field`: exactly (BM25), and, for a word, as a prefix or with a
/// typo (constant scores, well below an exact match); a CJK character as a term, two as a
/// bigram, more as the phrase of their bigrams.
fn word_in_field(word: &QueryWord, field: TextField, boost: f32) -> Vec<Box<dyn TantivyQuery>> {
    let boosted = |query: Box<dyn TantivyQuery>, weight: f32| {
        Box::new(BoostQuery::new(query, weight)) as Box<dyn TantivyQuery>
    };
    let term_query = |field: Field, text: &str| {
        let term = Term::from_field_text(field, text);
        Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs)) as Box<dyn TantivyQuery>
    };
    match word {
        QueryWord::Word { text, prefix, fuzzy } => {
            let term = Term::from_field_text(field.terms, text);
            let mut queries = vec![boosted(term_query(field.terms, text), boost)];
            if *prefix {
                let query = FuzzyTermQuery::new_prefix(term.clone(), 0, true);
                queries.push(boosted(Box::new(query), boost * PREFIX_WEIGHT));
            }
            if *fuzzy {
                let query = FuzzyTermQuery::new(term, 1, true);
                queries.push(boosted(Box::new(query), boost * FUZZY_WEIGHT));
            }
            queries
        }
        QueryWord::Cjk(run) => {
            let text: String = run.iter().collect();
            let query = match run.len() {
                1 => term_query(field.terms, &text),
                2 => term_query(field.bigrams, &text),
                _ => {
                    let bigrams = run
                        .windows(2)
                        .map(|pair| {
                            Term::from_field_text(field.bigrams, &pair.iter().collect::<String>())
                        })
                        .collect();
                    Box::new(PhraseQuery::new(bigrams))
                }
            };
            vec![boosted(query, boost)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, prefix: bool, fuzzy: bool) -> QueryWord {
        QueryWord::Word { text: text.into(), prefix, fuzzy }
    }

    #[test]
    fn only_the_last_word_is_a_prefix_and_long_words_are_fuzzy() {
        assert_eq!(
            query_words("Tantivy is FAST"),
            [word("tantivy", false, true), word("is", false, false), word("fast", true, false)]
        );
    }

    #[test]
    fn a_cjk_run_is_one_word_and_the_last_cjk_word_is_no_prefix() {
        assert_eq!(
            query_words("rust 安全管理"),
            [word("rust", false, false), QueryWord::Cjk("安全管理".chars().collect())]
        );
    }

    #[test]
    fn repeated_words_count_once_and_words_past_the_bound_are_ignored() {
        assert_eq!(query_words("rust Rust"), [word("rust", true, false)]);
        let many = (0..40).map(|i| format!("w{i:02}")).collect::<Vec<_>>().join(" ");
        assert_eq!(query_words(&many).len(), MAX_QUERY_WORDS);
        let long = "ab ".repeat(100);
        assert_eq!(query_words(&long).len(), 1);
    }

    #[test]
    fn punctuation_and_single_letters_give_no_words() {
        assert!(query_words("  ").is_empty());
        assert!(query_words("a ! ? -").is_empty());
    }
}
