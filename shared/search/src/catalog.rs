//! What the engine keeps beside tantivy for each article: its id, publication time, filter ids
//! and vector, under the catalog key its tantivy document carries in a fast field. Filters,
//! ordering and every vector search read the catalog; tantivy answers text matching.

use std::collections::HashMap;

use crate::error::{Result, SearchError};
use crate::vectors::{unit, QuantizedVector};

/// One article as the catalog keeps it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub id: String,
    pub published_at: i64,
    pub pinned: bool,
    pub category_id: Option<String>,
    pub tag_ids: Vec<String>,
    pub vector: Option<QuantizedVector>,
}

/// The exact-id filters of a query.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Filters<'a> {
    pub category_id: Option<&'a str>,
    pub tag_id: Option<&'a str>,
}

impl Entry {
    /// Whether the entry has the filters' category and tag (each when asked).
    pub(crate) fn passes(&self, filters: Filters<'_>) -> bool {
        filters.category_id.is_none_or(|wanted| self.category_id.as_deref() == Some(wanted))
            && filters.tag_id.is_none_or(|wanted| self.tag_ids.iter().any(|tag| tag == wanted))
    }
}

/// The entries by catalog key, the keys by article id.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    entries: HashMap<u64, Entry>,
    keys: HashMap<String, u64>,
    next_key: u64,
    vector_dims: Option<usize>,
    with_vectors: usize,
}

impl Catalog {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn next_key(&self) -> u64 {
        self.next_key
    }

    pub(crate) fn get(&self, key: u64) -> Option<&Entry> {
        self.entries.get(&key)
    }

    pub(crate) fn key_of(&self, id: &str) -> Option<u64> {
        self.keys.get(id).copied()
    }

    pub(crate) fn entry_of(&self, id: &str) -> Option<&Entry> {
        self.key_of(id).and_then(|key| self.entries.get(&key))
    }

    /// The entries in key order (the order a bundle writes them in).
    pub(crate) fn entries_by_key(&self) -> Vec<(u64, &Entry)> {
        let mut entries: Vec<(u64, &Entry)> = self.entries.iter().map(|(k, e)| (*k, e)).collect();
        entries.sort_unstable_by_key(|(key, _)| *key);
        entries
    }

    /// The dimension of the vectors in the catalog, `None` while it holds none.
    pub(crate) fn vector_dims(&self) -> Option<usize> {
        self.vector_dims
    }

    /// Checks that after replacing the entries of `ids` with vectors of `new_dims`, every
    /// vector of the catalog would have one dimension.
    pub(crate) fn check_dims<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
        new_dims: impl IntoIterator<Item = usize>,
    ) -> Result<()> {
        let replaced_with_vectors = ids
            .into_iter()
            .filter(|id| self.entry_of(id).is_some_and(|entry| entry.vector.is_some()))
            .count();
        let mut expected = self.vector_dims.filter(|_| self.with_vectors > replaced_with_vectors);
        for found in new_dims {
            match expected {
                Some(expected) if expected != found => {
                    return Err(SearchError::DimensionMismatch { expected, found });
                }
                _ => expected = Some(found),
            }
        }
        Ok(())
    }

    /// Puts `entry` under `key` (a key at or past [`Catalog::next_key`]), replacing the entry
    /// of the same id, if any. Dimensions are checked by the caller ([`Catalog::check_dims`]).
    pub(crate) fn insert(&mut self, key: u64, entry: Entry) {
        self.remove(&entry.id);
        if let Some(vector) = &entry.vector {
            self.vector_dims = Some(vector.dims());
            self.with_vectors += 1;
        }
        self.keys.insert(entry.id.clone(), key);
        self.entries.insert(key, entry);
        self.next_key = self.next_key.max(key + 1);
    }

    /// Removes the entry of `id`, returning its key.
    pub(crate) fn remove(&mut self, id: &str) -> Option<u64> {
        let key = self.keys.remove(id)?;
        if let Some(Entry { vector: Some(_), .. }) = self.entries.remove(&key) {
            self.with_vectors -= 1;
            if self.with_vectors == 0 {
                self.vector_dims = None;
            }
        }
        Some(key)
    }

    /// Restores the key counter of a loaded bundle (never below the keys in use).
    pub(crate) fn set_next_key(&mut self, next_key: u64) {
        self.next_key = self.next_key.max(next_key);
    }

    /// Cosine similarity of `query` to every entry with a vector that passes `filters`, in no
    /// particular order. Empty while the catalog holds no vector.
    pub(crate) fn semantic(&self, query: &[f32], filters: Filters<'_>) -> Result<Vec<(u64, f32)>> {
        let Some(expected) = self.vector_dims else {
            crate::vectors::check(query)?;
            return Ok(Vec::new());
        };
        if query.len() != expected {
            return Err(SearchError::DimensionMismatch { expected, found: query.len() });
        }
        let query = unit(query)?;
        Ok(self
            .entries
            .iter()
            .filter(|(_, entry)| entry.passes(filters))
            .filter_map(|(key, entry)| Some((*key, entry.vector.as_ref()?.cosine(&query))))
            .collect())
    }

    /// The `k` articles nearest to the vector of `id` (cosine, best first, newest first on a
    /// tie), without `id` itself; empty when it has no vector.
    pub(crate) fn nearest(&self, id: &str, k: usize) -> Vec<(String, f32)> {
        let Some(own_key) = self.key_of(id) else { return Vec::new() };
        let Some(own) = self.entries.get(&own_key).and_then(|e| e.vector.as_ref()) else {
            return Vec::new();
        };
        let Ok(query) = unit(&own.to_f32()) else { return Vec::new() };
        let mut scored: Vec<(f32, &Entry)> = self
            .entries
            .iter()
            .filter(|(key, _)| **key != own_key)
            .filter_map(|(_, entry)| Some((entry.vector.as_ref()?.cosine(&query), entry)))
            .collect();
        let by_rank = |a: &(f32, &Entry), b: &(f32, &Entry)| {
            b.0.total_cmp(&a.0)
                .then(b.1.published_at.cmp(&a.1.published_at))
                .then_with(|| a.1.id.cmp(&b.1.id))
        };
        if k < scored.len() {
            scored.select_nth_unstable_by(k, by_rank);
            scored.truncate(k);
        }
        scored.sort_unstable_by(by_rank);
        scored.into_iter().map(|(score, entry)| (entry.id.clone(), score)).collect()
    }
}
