//! The index as one object of the bucket ([`INDEX_KEY`]), and the worker's side of it: every
//! change is a read of the object (free while the worker's copy is current), a change made in
//! memory from the table's state, and a conditional write (`If-Match` the entity tag read, or
//! `If-None-Match: *` for the first), retried from a fresh read when another worker wrote
//! first. So two workers never lose each other's update, and events handled out of order leave
//! the table's latest state: the table is read after the object, each attempt.

use std::sync::Arc;

use anyhow::Context;
use blog_core::ports::{
    blobs::{Blobs, Fetched, Put, PutCondition},
    table::Table,
};
use blog_search::{Mode, Query, SearchError, SearchIndex};

use super::documents;

/// Key of the index object in the bucket (on disk, under the local blob store's directory).
pub const INDEX_KEY: &str = "search/articles.index";
/// Content type of the index object.
const CONTENT_TYPE: &str = "application/octet-stream";
/// Writes attempted before a change gives up (the event is then redelivered).
const ATTEMPTS: usize = 8;

/// The worker's copy of the index, kept between events so that an unchanged object is not read
/// again.
pub struct IndexKeeper {
    blobs: Arc<dyn Blobs>,
    held: tokio::sync::Mutex<Option<Held>>,
}

struct Held {
    index: SearchIndex,
    etag: String,
}

/// What a change did to the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synced {
    /// The article is in the index as the table holds it.
    Indexed,
    /// The article is not published: it is not in the index.
    Removed,
}

/// The index as read: its copy and what the write must be conditioned on.
struct Current {
    index: SearchIndex,
    condition: PutCondition,
}

impl IndexKeeper {
    /// A keeper of the index object in `blobs`.
    pub fn new(blobs: Arc<dyn Blobs>) -> Self {
        Self { blobs, held: tokio::sync::Mutex::new(None) }
    }

    /// Brings article `id` in the index to its state in the table (indexed while published,
    /// with its stored embedding of `model`; removed otherwise): read the object, then the
    /// article, change, write; again from a fresh read when another writer came first. A
    /// missing or unreadable object (another format) is first rebuilt from the table.
    pub async fn sync(&self, table: &dyn Table, model: &str, id: u64) -> anyhow::Result<Synced> {
        let mut held = self.held.lock().await;
        for _ in 0..ATTEMPTS {
            let Current { mut index, condition } = self.current(held.take(), table, model).await?;
            let document = documents::current(table, id, model).await?;
            let synced = match document {
                Some(document) => {
                    if let Err(SearchError::DimensionMismatch { .. }) =
                        index.upsert([document.clone()])
                    {
                        // The embedder changed: the index is rebuilt with this model's vectors.
                        index = built(table, model).await?;
                        index.upsert([document])?;
                    }
                    Synced::Indexed
                }
                None => {
                    let removed = index.remove([id.to_string()])?;
                    // Not in the stored index either (a redelivery, say): nothing to write.
                    if let (0, PutCondition::Matches(etag)) = (removed, &condition) {
                        *held = Some(Held { index, etag: etag.clone() });
                        return Ok(Synced::Removed);
                    }
                    Synced::Removed
                }
            };
            if let Some(stored) = self.store(index, condition).await? {
                *held = Some(stored);
                return Ok(synced);
            }
            tracing::info!(article_id = id, "another worker wrote the search index meanwhile");
        }
        anyhow::bail!("the search index changed under {ATTEMPTS} attempts to write it")
    }

    /// The ids of the `k` articles whose vectors are nearest `embedding` (cosine), `id`
    /// excluded, in the index as stored now: what related articles start from. None when no
    /// index is stored yet, when `embedding` has no direction (a text with nothing to embed),
    /// or when the index's vectors are of another dimension (the next change rebuilds it with
    /// this model's).
    pub async fn nearest(
        &self,
        table: &dyn Table,
        model: &str,
        (id, embedding): (u64, &[f32]),
        k: usize,
    ) -> anyhow::Result<Vec<u64>> {
        let mut held = self.held.lock().await;
        let Current { index, condition } = self.current(held.take(), table, model).await?;
        let query =
            Query { mode: Mode::Semantic(embedding.to_vec()), limit: k + 1, ..Query::default() };
        let hits = match index.search(&query) {
            Ok(results) => results.hits,
            Err(SearchError::DimensionMismatch { .. } | SearchError::InvalidVector(_)) => {
                Vec::new()
            }
            Err(other) => return Err(other.into()),
        };
        if let PutCondition::Matches(etag) = condition {
            *held = Some(Held { index, etag });
        }
        let own = id.to_string();
        Ok(hits
            .into_iter()
            .filter(|hit| hit.id != own)
            .filter_map(|hit| hit.id.parse().ok())
            .take(k)
            .collect())
    }

    /// Rebuilds the whole index from the table and stores it; answers how many articles it
    /// holds.
    pub async fn rebuild(&self, table: &dyn Table, model: &str) -> anyhow::Result<usize> {
        let mut held = self.held.lock().await;
        for _ in 0..ATTEMPTS {
            let condition = match self.blobs.get(INDEX_KEY, None).await? {
                Fetched::Found { etag, .. } => PutCondition::Matches(etag),
                Fetched::Missing | Fetched::Unchanged => PutCondition::Absent,
            };
            let index = built(table, model).await?;
            if let Some(stored) = self.store(index, condition).await? {
                let count = stored.index.len();
                *held = Some(stored);
                return Ok(count);
            }
        }
        anyhow::bail!("the search index changed during {ATTEMPTS} rebuilds")
    }

    /// The index as stored now: the held copy when the object is unchanged, else the object
    /// read, else (missing or unreadable) one rebuilt from the table.
    async fn current(
        &self,
        held: Option<Held>,
        table: &dyn Table,
        model: &str,
    ) -> anyhow::Result<Current> {
        let etag = held.as_ref().map(|held| held.etag.clone());
        match self.blobs.get(INDEX_KEY, etag.as_deref()).await.context("reading the index")? {
            Fetched::Unchanged => {
                let held = held.context("an unchanged answer to an unconditional read")?;
                Ok(Current { index: held.index, condition: PutCondition::Matches(held.etag) })
            }
            Fetched::Found { bytes, etag } => {
                let condition = PutCondition::Matches(etag);
                match tokio::task::spawn_blocking(move || SearchIndex::from_bundle(&bytes)).await? {
                    Ok(index) => Ok(Current { index, condition }),
                    Err(error) => {
                        tracing::warn!(%error, "the stored search index is unreadable; rebuilding it");
                        Ok(Current { index: built(table, model).await?, condition })
                    }
                }
            }
            Fetched::Missing => {
                tracing::info!("no search index is stored yet; building it from the table");
                Ok(Current { index: built(table, model).await?, condition: PutCondition::Absent })
            }
        }
    }

    /// Writes `index` under `condition`; `None` when another writer came first.
    async fn store(
        &self,
        index: SearchIndex,
        condition: PutCondition,
    ) -> anyhow::Result<Option<Held>> {
        let (index, bundle) = tokio::task::spawn_blocking(move || {
            let bundle = index.to_bundle();
            (index, bundle)
        })
        .await?;
        let put = self.blobs.put(INDEX_KEY, bundle?, CONTENT_TYPE, condition).await?;
        Ok(match put {
            Put::Stored { etag } => Some(Held { index, etag }),
            Put::ConditionFailed => None,
        })
    }
}

/// An index of every published article as the table holds them.
async fn built(table: &dyn Table, model: &str) -> anyhow::Result<SearchIndex> {
    let articles = documents::every_published(table, model).await?;
    let count = articles.len();
    let index = tokio::task::spawn_blocking(move || {
        let mut index = SearchIndex::new()?;
        index.upsert(articles)?;
        Ok::<_, SearchError>(index)
    })
    .await??;
    tracing::info!(articles = count, "search index built from the table");
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::ports::{blobs::local::LocalBlobs, table::embedded::SqliteTable};

    use crate::{
        model::{ArticleBody, ArticleHead},
        store,
    };

    /// Publishes article `id` titled `title` straight into the table.
    async fn published(table: &SqliteTable, id: u64, title: &str) {
        let head = ArticleHead::published_for_tests(id, title);
        let body = ArticleBody { content: "body".into(), ..ArticleBody::default() };
        store::save(table, None, &head, Some(&body), Vec::new()).await.unwrap();
    }

    fn titles(index: &SearchIndex, text: &str) -> usize {
        index.search(&Query::new(text)).map_or(0, |results| results.total)
    }

    /// A bucket in a temporary folder (kept while the folder is) and an empty table.
    fn storage() -> (tempfile::TempDir, Arc<dyn Blobs>, SqliteTable) {
        let dir = tempfile::tempdir().unwrap();
        let blobs = LocalBlobs::open(dir.path(), "http://blobs.test", b"key").unwrap();
        (dir, Arc::new(blobs), SqliteTable::in_memory().unwrap())
    }

    async fn etag(blobs: &dyn Blobs) -> Option<String> {
        blobs.head(INDEX_KEY).await.unwrap().map(|info| info.etag)
    }

    #[tokio::test]
    async fn a_missing_index_is_stored_once_and_withdrawing_what_it_lacks_writes_nothing() {
        let (_dir, blobs, table) = storage();
        let keeper = IndexKeeper::new(blobs.clone());
        assert_eq!(etag(blobs.as_ref()).await, None);
        assert_eq!(keeper.sync(&table, "m", 7).await.unwrap(), Synced::Removed);
        let stored = etag(blobs.as_ref()).await.expect("the built index is stored");
        assert_eq!(keeper.sync(&table, "m", 7).await.unwrap(), Synced::Removed);
        assert_eq!(etag(blobs.as_ref()).await, Some(stored.clone()), "nothing written");
        // Another keeper (another worker) reads the stored object and writes nothing either.
        let other = IndexKeeper::new(blobs.clone());
        assert_eq!(other.sync(&table, "m", 8).await.unwrap(), Synced::Removed);
        assert_eq!(etag(blobs.as_ref()).await, Some(stored));
        assert_eq!(keeper.rebuild(&table, "m").await.unwrap(), 0);
    }

    #[tokio::test]
    async fn two_workers_with_stale_copies_keep_each_others_articles() {
        let (_dir, blobs, table) = storage();
        let (first, second) = (IndexKeeper::new(blobs.clone()), IndexKeeper::new(blobs.clone()));
        published(&table, 1, "Lighthouse").await;
        assert_eq!(first.sync(&table, "m", 1).await.unwrap(), Synced::Indexed);
        assert_eq!(second.sync(&table, "m", 1).await.unwrap(), Synced::Indexed);
        // Both hold a copy; the first writes a second article, then the second, still holding
        // the copy before it, writes a third: its write must not drop the first's.
        published(&table, 2, "Harbour").await;
        published(&table, 3, "Tide").await;
        first.sync(&table, "m", 2).await.unwrap();
        second.sync(&table, "m", 3).await.unwrap();
        let Fetched::Found { bytes, .. } = blobs.get(INDEX_KEY, None).await.unwrap() else {
            panic!("the index is stored");
        };
        let stored = SearchIndex::from_bundle(&bytes).unwrap();
        assert_eq!(stored.len(), 3);
        for title in ["lighthouse", "harbour", "tide"] {
            assert_eq!(titles(&stored, title), 1, "{title}");
        }
    }
}
