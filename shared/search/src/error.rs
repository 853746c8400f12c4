//! The engine's one error type.

/// Why a search, a change or a bundle was refused.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query text is empty, or has no searchable word (only punctuation, symbols or single
    /// letters). A caller answering HTTP maps it to 400.
    #[error("the query has no searchable words: type at least one word of two letters or one CJK character")]
    EmptyQuery,
    /// A vector's dimension differs from the index's vectors (a query vector, or an article's).
    #[error("the vector has {found} dimensions but the index's vectors have {expected}")]
    DimensionMismatch {
        /// The dimension of the vectors in the index.
        expected: usize,
        /// The dimension of the vector given.
        found: usize,
    },
    /// A vector that cannot be compared: empty, all zeros, or holding NaN or infinity.
    #[error("invalid vector: {0}")]
    InvalidVector(&'static str),
    /// An article that cannot be indexed (an empty id).
    #[error("invalid article: {0}")]
    InvalidArticle(&'static str),
    /// The bundle is truncated, damaged, or not a search bundle at all.
    #[error("corrupt search bundle: {0}")]
    CorruptBundle(String),
    /// The bundle was written by a build with another bundle format.
    #[error("search bundle format {found} is not supported (this build reads format {supported}): rebuild the index")]
    UnsupportedBundleVersion {
        /// The format version the bundle declares.
        found: u8,
        /// The format version this build reads and writes.
        supported: u8,
    },
    /// tantivy failed (in RAM this means a bug or memory exhaustion, not bad input).
    #[error("search engine failure: {0}")]
    Engine(#[from] tantivy::TantivyError),
}

/// The result of the engine's fallible operations.
pub type Result<T, E = SearchError> = std::result::Result<T, E>;
