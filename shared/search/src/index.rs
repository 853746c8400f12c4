//! The index: tantivy in RAM for the text, the catalog beside it, and the changes to both.

use std::collections::HashMap;
use std::fmt;

use tantivy::directory::RamDirectory;
use tantivy::indexer::LogMergePolicy;
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    Index, IndexReader, IndexSettings, IndexWriter, ReloadPolicy, TantivyDocument, Term,
};

use crate::catalog::{Catalog, Entry};
use crate::error::{Result, SearchError};
use crate::schema::{Article, SchemaFields};
use crate::tokenizer::{BlogTokenizer, TokenKind};
use crate::vectors::QuantizedVector;

/// Memory tantivy may buffer while indexing before it writes a segment.
const WRITER_MEMORY_BYTES: usize = 64 << 20;
/// Segments under this many articles are of one size level when merging: a change of a few
/// articles merges the small segments of recent changes, never the whole index (tantivy's
/// default, 10,000, put every segment of a 10,000-article index in one level, so about every
/// eighth change rewrote it all).
const MERGE_LEVEL_FLOOR: u32 = 64;
/// A segment with this share of deleted articles (replaced or removed) is merged, which drops
/// them, even alone at its level.
const MERGE_DELETED_SHARE: f32 = 0.3;

/// The blog's search index, held in RAM: articles' text in tantivy, their ids, filters,
/// publication times and vectors in a catalog beside it.
///
/// Every change commits before it returns, so the next [`SearchIndex::search`] sees it. The
/// index is `Send + Sync`: share it behind an `Arc<RwLock<_>>` (searches take `&self`).
pub struct SearchIndex {
    /// The files of the tantivy index (read raw, footers included, by the bundle).
    pub(crate) directory: RamDirectory,
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: SchemaFields,
    pub(crate) catalog: Catalog,
    pub(crate) generation: u64,
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("articles", &self.catalog.len())
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

/// The stored texts (titles, summaries, bodies: most of a bundle) in zstd blocks of 64 KiB:
/// a bundle about half the size of lz4's 16 KiB blocks on Chinese and English bodies
/// (docs/performance.md, "Search"), for a few milliseconds more per page of highlights.
fn settings() -> IndexSettings {
    IndexSettings {
        docstore_compression: Compressor::Zstd(ZstdCompressor { compression_level: Some(3) }),
        docstore_blocksize: 65_536,
        ..IndexSettings::default()
    }
}

impl SearchIndex {
    /// An empty index in RAM, at generation 0.
    pub fn new() -> Result<Self> {
        let (schema, _) = SchemaFields::build();
        let directory = RamDirectory::create();
        let index = Index::create(directory.clone(), schema, settings())?;
        Self::open(directory, index, Catalog::default(), 0)
    }

    /// Wraps a tantivy index (new or loaded) whose schema must be this build's.
    pub(crate) fn open(
        directory: RamDirectory,
        index: Index,
        catalog: Catalog,
        generation: u64,
    ) -> Result<Self> {
        let fields = SchemaFields::of(&index.schema()).ok_or_else(|| {
            SearchError::CorruptBundle("its index has another schema than this build's".into())
        })?;
        for kind in [TokenKind::Terms, TokenKind::Bigrams] {
            index
                .tokenizers()
                .register(kind.tokenizer_name(), TextAnalyzer::from(BlogTokenizer(kind)));
        }
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(SearchIndex { directory, index, reader, fields, catalog, generation })
    }

    /// Number of articles indexed.
    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    /// Whether no article is indexed.
    pub fn is_empty(&self) -> bool {
        self.catalog.len() == 0
    }

    /// A number that grows by one with every change ([`SearchIndex::upsert`] or
    /// [`SearchIndex::remove`] that changed something) and is kept by the bundle: of two
    /// bundles of one lineage, the one with the larger generation is newer.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The dimension of the index's vectors, `None` while no article has one.
    pub fn vector_dims(&self) -> Option<usize> {
        self.catalog.vector_dims()
    }

    /// Whether an article with this id is indexed.
    pub fn contains(&self, id: &str) -> bool {
        self.catalog.key_of(id).is_some()
    }

    /// The stored vector of an article (as kept: quantised to i8, so close to, not equal to,
    /// the vector it was given), `None` if it has none or is not indexed.
    pub fn embedding(&self, id: &str) -> Option<Vec<f32>> {
        self.catalog.entry_of(id)?.vector.as_ref().map(QuantizedVector::to_f32)
    }

    /// Indexes `articles`, replacing those whose id is already indexed (of one id given twice,
    /// the last wins), and commits. Refuses the whole batch, changing nothing, when an id is
    /// empty or a vector is invalid or of another dimension than the index's vectors.
    pub fn upsert(&mut self, articles: impl IntoIterator<Item = Article>) -> Result<()> {
        let mut batch: Vec<Article> = Vec::new();
        let mut slot_of: HashMap<String, usize> = HashMap::new();
        for article in articles {
            if article.id.is_empty() {
                return Err(SearchError::InvalidArticle("an article has an empty id"));
            }
            match slot_of.get(&article.id) {
                Some(&slot) => batch[slot] = article,
                None => {
                    slot_of.insert(article.id.clone(), batch.len());
                    batch.push(article);
                }
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        let vectors = batch
            .iter()
            .map(|article| article.embedding.as_deref().map(QuantizedVector::quantize).transpose())
            .collect::<Result<Vec<_>>>()?;
        self.catalog.check_dims(
            batch.iter().map(|article| article.id.as_str()),
            vectors.iter().flatten().map(QuantizedVector::dims),
        )?;
        let first_key = self.catalog.next_key();
        let mut writer = self.writer()?;
        for (key, article) in (first_key..).zip(&batch) {
            writer.delete_term(Term::from_field_text(self.fields.id, &article.id));
            writer.add_document(self.fields.document(article, key))?;
        }
        writer.commit()?;
        for ((key, article), vector) in (first_key..).zip(batch).zip(vectors) {
            let entry = Entry {
                id: article.id,
                published_at: article.published_at,
                pinned: article.pinned,
                category_id: article.category_id,
                tag_ids: article.tag_ids,
                vector,
            };
            self.catalog.insert(key, entry);
        }
        self.settle(writer)
    }

    /// Removes the articles with these ids (ids not indexed are ignored) and commits; returns
    /// how many were removed.
    pub fn remove<I, S>(&mut self, ids: I) -> Result<usize>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut present: Vec<String> = ids
            .into_iter()
            .map(|id| id.as_ref().to_owned())
            .filter(|id| self.catalog.key_of(id).is_some())
            .collect();
        present.sort_unstable();
        present.dedup();
        if present.is_empty() {
            return Ok(0);
        }
        let mut writer = self.writer()?;
        for id in &present {
            writer.delete_term(Term::from_field_text(self.fields.id, id));
        }
        writer.commit()?;
        for id in &present {
            self.catalog.remove(id);
        }
        self.settle(writer)?;
        Ok(present.len())
    }

    /// The `k` articles whose vectors are nearest (cosine) to the vector of `id`, best first,
    /// without `id` itself; empty if `id` is not indexed or has no vector.
    pub fn related(&self, id: &str, k: usize) -> Vec<(String, f32)> {
        self.catalog.nearest(id, k)
    }

    fn writer(&self) -> Result<IndexWriter<TantivyDocument>> {
        let writer = self.index.writer_with_num_threads(1, WRITER_MEMORY_BYTES)?;
        let mut merges = LogMergePolicy::default();
        merges.set_min_layer_size(MERGE_LEVEL_FLOOR);
        merges.set_del_docs_ratio_before_merge(MERGE_DELETED_SHARE);
        writer.set_merge_policy(Box::new(merges));
        Ok(writer)
    }

    /// After a commit: counts the change, lets the merges the commit started finish (so the
    /// index and its bundle hold no dead segment) and shows the change to searches.
    fn settle(&mut self, writer: IndexWriter<TantivyDocument>) -> Result<()> {
        self.generation += 1;
        writer.wait_merging_threads()?;
        self.reader.reload()?;
        Ok(())
    }
}
