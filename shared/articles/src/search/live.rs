//! The serving side: the index object loaded on an instance's first search and checked for a
//! newer one at most every [`LiveIndex::new`]'s `refresh` (a conditional read, which moves no
//! bytes while the object is unchanged), so a change the worker stores is searched within that
//! time. Searches read the loaded index without waiting for each other; one check runs at a
//! time, and searches that find the index stale wait for it.

use std::{
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use blog_core::ports::blobs::{Blobs, Fetched};
use blog_search::SearchIndex;

use super::stored::INDEX_KEY;

/// The loaded index of one process.
pub struct LiveIndex {
    blobs: Arc<dyn Blobs>,
    refresh: Duration,
    loaded: RwLock<Option<Loaded>>,
    checking: tokio::sync::Mutex<()>,
}

#[derive(Clone)]
struct Loaded {
    /// `None` while no index is stored (no article was published yet).
    index: Option<Arc<SearchIndex>>,
    etag: Option<String>,
    checked: Instant,
}

impl LiveIndex {
    /// The index stored in `blobs`, checked for changes at most every `refresh`.
    pub fn new(blobs: Arc<dyn Blobs>, refresh: Duration) -> Self {
        Self { blobs, refresh, loaded: RwLock::new(None), checking: tokio::sync::Mutex::new(()) }
    }

    fn fresh(&self) -> Option<Loaded> {
        let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner()).clone()?;
        (loaded.checked.elapsed() < self.refresh).then_some(loaded)
    }

    /// The index as stored at most `refresh` ago; `None` when none is stored yet. A stored
    /// object that cannot be loaded (damaged, another format) keeps the copy loaded before,
    /// if any, until the worker rewrites it.
    pub async fn current(&self) -> anyhow::Result<Option<Arc<SearchIndex>>> {
        if let Some(loaded) = self.fresh() {
            return Ok(loaded.index);
        }
        let _checking = self.checking.lock().await;
        if let Some(loaded) = self.fresh() {
            return Ok(loaded.index);
        }
        let before = self.loaded.read().unwrap_or_else(|e| e.into_inner()).clone();
        let etag = before.as_ref().and_then(|loaded| loaded.etag.clone());
        let checked = Instant::now();
        let now = match self.blobs.get(INDEX_KEY, etag.as_deref()).await? {
            Fetched::Unchanged => Loaded { checked, ..before.unwrap_or(Loaded::nothing(checked)) },
            Fetched::Missing => Loaded { index: None, etag: None, checked },
            Fetched::Found { bytes, etag } => {
                let loading = tokio::task::spawn_blocking(move || SearchIndex::from_bundle(&bytes));
                match loading.await? {
                    Ok(index) => Loaded { index: Some(Arc::new(index)), etag: Some(etag), checked },
                    Err(error) => {
                        tracing::error!(%error, "the stored search index cannot be loaded");
                        let before = before.unwrap_or(Loaded::nothing(checked));
                        Loaded { checked, etag: Some(etag), ..before }
                    }
                }
            }
        };
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = Some(now.clone());
        Ok(now.index)
    }
}

impl Loaded {
    /// No index, as checked at `checked`.
    fn nothing(checked: Instant) -> Self {
        Loaded { index: None, etag: None, checked }
    }
}
