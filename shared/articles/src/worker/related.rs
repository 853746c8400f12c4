//! Related articles. The worker keeps, per published article, a vector item (`A#VEC`: its
//! embedding and its nearest neighbours by cosine distance, in gsi2 partition `VECTORS`), and one
//! `RECENT` item with the latest published articles overall and per category. A read is then
//! two calls: one batch for the article, its vector item and `RECENT`; one batch for the
//! candidates' heads, which drops those no longer published.
//!
//! The nearest articles come from the search index's vectors (the worker holds the index:
//! [`crate::search::IndexKeeper::nearest`]), so a publication reads the vector items of its
//! [`NEIGHBOURS`] nearest only (one BatchGetItem), however many articles there are, and enters
//! their lists where it is nearer than their farthest. (An article whose list it would enter
//! without being among its own nearest is not visited: on a blog's clustered topics the two
//! mostly coincide, and the article's own list is exact.)

use std::collections::{BTreeMap, HashSet};

use base64::{engine::general_purpose::STANDARD, Engine};
use futures::{stream, try_join, StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};

use blog_core::{
    ports::{
        embedder::cosine_distance,
        table::{n, s, Condition, Key, Table, TableError},
    },
    records,
};

use crate::{
    keys,
    model::{ArticleHead, Status},
};

/// Neighbours kept per article (the largest `limit` is 20).
pub const NEIGHBOURS: usize = 20;
/// Latest articles kept overall and per category.
pub const RECENT: usize = 25;
/// Optimistic-concurrency attempts of a list update.
const ATTEMPTS: usize = 8;

/// One neighbour and its cosine distance (0 identical … 2 opposite).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    /// Article id.
    pub id: u64,
    /// Cosine distance.
    pub distance: f32,
}

/// An article's embedding and nearest neighbours (`ARTICLE#<id>`/`A#VEC`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorRecord {
    /// Article id.
    pub article_id: u64,
    /// Article version the embedding was computed from.
    pub version: i64,
    /// Embedding model.
    pub model: String,
    /// Little-endian f32s, base64.
    pub vector: String,
    /// Nearest neighbours, ascending distance.
    #[serde(default)]
    pub neighbours: Vec<Neighbour>,
    /// Bumped by every write (optimistic concurrency).
    #[serde(default)]
    pub revision: i64,
}

impl VectorRecord {
    /// The decoded embedding.
    pub fn embedding(&self) -> Vec<f32> {
        let bytes = STANDARD.decode(&self.vector).unwrap_or_default();
        bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    /// Encodes an embedding.
    pub fn encode(vector: &[f32]) -> String {
        STANDARD.encode(vector.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>())
    }
}

/// A recently published article.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recent {
    /// Article id.
    pub id: u64,
    /// Its publish time.
    pub publish_time: String,
}

/// The latest published articles overall and per category (`RECENT`/`ALL`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecentRecord {
    /// Newest first.
    #[serde(default)]
    pub all: Vec<Recent>,
    /// Per category id (as a string key), newest first.
    #[serde(default)]
    pub by_category: BTreeMap<String, Vec<Recent>>,
    /// Bumped by every write.
    #[serde(default)]
    pub revision: i64,
}

/// Key of an article's vector item.
pub fn vector_key(id: u64) -> Key {
    Key::new(keys::partition(id), "A#VEC")
}

/// Key of the recent-articles item.
pub fn recent_key() -> Key {
    Key::new("RECENT", "ALL")
}

fn guarded(revision: i64) -> Condition {
    if revision == 0 {
        Condition::NotExists
    } else {
        Condition::equals("revision", n(revision))
    }
}

async fn put_vector(
    table: &dyn Table,
    record: &VectorRecord,
    previous: i64,
) -> Result<bool, TableError> {
    let mut item = records::to_item(record, &vector_key(record.article_id))?;
    item.insert("gsi2pk".into(), s("VECTORS"));
    item.insert("gsi2sk".into(), s(format!("{:016}", record.article_id)));
    match table.put(item, Some(guarded(previous))).await {
        Ok(()) => Ok(true),
        Err(TableError::ConditionFailed) => Ok(false),
        Err(other) => Err(other),
    }
}

/// Reads an article's vector item.
pub async fn vector(table: &dyn Table, id: u64) -> Result<Option<VectorRecord>, TableError> {
    table.get(&vector_key(id)).await?.map(records::from_item).transpose()
}

fn insert_neighbour(list: &mut Vec<Neighbour>, neighbour: Neighbour) -> bool {
    let before = list.clone();
    list.retain(|n| n.id != neighbour.id);
    list.push(neighbour);
    list.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.id.cmp(&b.id)));
    list.truncate(NEIGHBOURS);
    *list != before
}

/// Stores an article's embedding with its nearest neighbours, and inserts it into the
/// neighbour lists of those of `nearest` (the search index's nearest articles, at most
/// [`NEIGHBOURS`]) it is now among the nearest of. `revision` is that of the article's vector
/// item as last read (0: none); it is read again only if it moved since.
pub async fn relate(
    table: &dyn Table,
    article: (u64, i64),
    model: &str,
    embedding: &[f32],
    revision: i64,
    nearest: &[u64],
) -> Result<(), TableError> {
    let (id, version) = article;
    let keys: Vec<Key> = nearest
        .iter()
        .filter(|other| **other != id)
        .take(NEIGHBOURS)
        .map(|o| vector_key(*o))
        .collect();
    let others: Vec<VectorRecord> = match keys.is_empty() {
        true => Vec::new(),
        false => table
            .get_many(&keys)
            .await?
            .into_iter()
            .map(records::from_item::<VectorRecord>)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|r| r.model == model)
            .collect(),
    };
    let distances: Vec<(u64, f32)> =
        others.iter().map(|o| (o.article_id, cosine_distance(embedding, &o.embedding()))).collect();
    let mut own = Vec::new();
    for (other, distance) in &distances {
        insert_neighbour(&mut own, Neighbour { id: *other, distance: *distance });
    }
    let record = VectorRecord {
        article_id: id,
        version,
        model: model.to_string(),
        vector: VectorRecord::encode(embedding),
        neighbours: own,
        revision,
    };
    // Its own item and the lists it enters are written together, a few at a time. The batch's
    // copy decides first: only an article whose list changes costs calls (a put, and a fresh
    // read only when another writer got there first).
    let theirs = stream::iter(others.into_iter().zip(distances))
        .map(|(record, (_, distance))| enter_list(table, record, Neighbour { id, distance }))
        .buffer_unordered(CONCURRENT_WRITES)
        .try_collect::<()>();
    try_join!(store_own(table, record), theirs)?;
    Ok(())
}

/// How many neighbour lists one follow-up writes at a time.
const CONCURRENT_WRITES: usize = 16;

/// Stores an article's own vector item; `record.revision` is that of the item as last read.
async fn store_own(table: &dyn Table, mut record: VectorRecord) -> Result<(), TableError> {
    let mut previous = record.revision;
    for _ in 0..ATTEMPTS {
        record.revision = previous + 1;
        if put_vector(table, &record, previous).await? {
            break;
        }
        previous = vector(table, record.article_id).await?.map_or(0, |r| r.revision);
    }
    Ok(())
}

/// Inserts `neighbour` into the list of the article whose vector item `record` is, when it is
/// among that article's nearest; a lost race re-reads the item and tries again.
async fn enter_list(
    table: &dyn Table,
    mut record: VectorRecord,
    neighbour: Neighbour,
) -> Result<(), TableError> {
    for _ in 0..ATTEMPTS {
        if !insert_neighbour(&mut record.neighbours, neighbour.clone()) {
            break;
        }
        let previous = record.revision;
        record.revision += 1;
        if put_vector(table, &record, previous).await? {
            break;
        }
        let Some(fresh) = vector(table, record.article_id).await? else { break };
        record = fresh;
    }
    Ok(())
}

fn insert_recent(list: &mut Vec<Recent>, entry: Recent) {
    list.retain(|r| r.id != entry.id);
    list.push(entry);
    list.sort_by(|a, b| b.publish_time.cmp(&a.publish_time).then(b.id.cmp(&a.id)));
    list.truncate(RECENT);
}

/// Records a published article among the latest, overall and in its category.
pub async fn note_recent(table: &dyn Table, head: &ArticleHead) -> Result<(), TableError> {
    let entry = Recent { id: head.id, publish_time: head.publish_time.clone().unwrap_or_default() };
    for _ in 0..ATTEMPTS {
        let mut record: RecentRecord = table
            .get(&recent_key())
            .await?
            .map(records::from_item)
            .transpose()?
            .unwrap_or_default();
        let previous = record.revision;
        insert_recent(&mut record.all, entry.clone());
        if let Some(category) = head.category_id {
            insert_recent(
                record.by_category.entry(category.to_string()).or_default(),
                entry.clone(),
            );
        }
        record.revision += 1;
        let item = records::to_item(&record, &recent_key())?;
        match table.put(item, Some(guarded(previous))).await {
            Ok(()) => return Ok(()),
            Err(TableError::ConditionFailed) => continue,
            Err(other) => return Err(other),
        }
    }
    Err(TableError::Backend(anyhow::anyhow!("recent list kept changing")))
}

/// The related articles of a visible article: nearest by embedding, then the same category's
/// latest, then the latest overall; only published ones, never itself, no duplicates.
/// `None` when the article is unknown, deleted or a draft.
pub async fn related(
    table: &dyn Table,
    id: u64,
    limit: usize,
) -> Result<Option<Vec<ArticleHead>>, TableError> {
    let first = table.get_many(&[keys::head(id), vector_key(id), recent_key()]).await?;
    let mut head: Option<ArticleHead> = None;
    let mut vector: Option<VectorRecord> = None;
    let mut recent = RecentRecord::default();
    for item in first {
        match Key::of(&item) {
            Some(k) if k == keys::head(id) => head = Some(records::from_item(item)?),
            Some(k) if k == vector_key(id) => vector = Some(records::from_item(item)?),
            Some(_) => recent = records::from_item(item)?,
            None => {}
        }
    }
    let Some(head) = head.filter(|h| !h.is_deleted && h.status != Status::Draft) else {
        return Ok(None);
    };
    let category_tier = head
        .category_id
        .and_then(|c| recent.by_category.get(&c.to_string()))
        .map(|list| list.iter().map(|r| r.id).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut seen = HashSet::from([id]);
    let candidates: Vec<u64> = vector
        .map(|v| v.neighbours.iter().map(|n| n.id).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(category_tier)
        .chain(recent.all.iter().map(|r| r.id))
        .filter(|candidate| seen.insert(*candidate))
        .take(100)
        .collect();
    if candidates.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let keys: Vec<Key> = candidates.iter().map(|c| keys::head(*c)).collect();
    let mut heads: BTreeMap<u64, ArticleHead> = BTreeMap::new();
    for item in table.get_many(&keys).await? {
        let candidate: ArticleHead = records::from_item(item)?;
        if candidate.is_listed() {
            heads.insert(candidate.id, candidate);
        }
    }
    Ok(Some(candidates.iter().filter_map(|c| heads.remove(c)).take(limit).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeddings_survive_encoding() {
        let vector = vec![0.5, -1.25, 3.0e-7];
        let record = VectorRecord {
            article_id: 1,
            version: 1,
            model: "m".into(),
            vector: VectorRecord::encode(&vector),
            neighbours: vec![],
            revision: 1,
        };
        assert_eq!(record.embedding(), vector);
    }

    #[test]
    fn neighbour_lists_stay_sorted_distinct_and_bounded() {
        let mut list = Vec::new();
        for i in 0..30u64 {
            insert_neighbour(&mut list, Neighbour { id: i, distance: (30 - i) as f32 / 30.0 });
        }
        assert_eq!(list.len(), NEIGHBOURS);
        assert_eq!(list[0].id, 29);
        assert!(insert_neighbour(&mut list, Neighbour { id: 29, distance: 0.9 }));
        assert_eq!(list.iter().filter(|n| n.id == 29).count(), 1);
        assert!(!insert_neighbour(&mut list, Neighbour { id: 99, distance: 1.9 }));
    }

    #[test]
    fn recent_lists_keep_the_newest_first() {
        let mut list = Vec::new();
        for (id, time) in
            [(1, "2026-01-01T00:00:02"), (2, "2026-01-01T00:00:01"), (3, "2026-01-01T00:00:03")]
        {
            insert_recent(&mut list, Recent { id, publish_time: time.into() });
        }
        assert_eq!(list.iter().map(|r| r.id).collect::<Vec<_>>(), [3, 1, 2]);
    }
}
