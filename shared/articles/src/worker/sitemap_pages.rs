//! The sitemap's pages: what the sitemap says of published articles, kept by the worker in a
//! base-table partition of its own (`SITEMAP`), so that a sitemap request reads a bounded number
//! of small items and no index.
//!
//! - `SITEMAP`/`P#<page16>`: the published articles whose ids are in
//!   `[page·1000+1, (page+1)·1000]`, each as `[id, updateTime]`, sorted by id (at most 1,000
//!   entries of about 30 bytes: under 40 KB, far within DynamoDB's 400 KB), and a `revision`
//!   that every write bumps (optimistic concurrency).
//! - `SITEMAP`/`I#<shard16>`: which ids of pages `[shard·1000, (shard+1)·1000)` are published,
//!   one attribute `p<page>` per page that holds any (a bitmap of its 1,000 ids, base64: 168
//!   bytes, so a shard stays under 170 KB), written in the same transaction as the page. The
//!   sitemap index and the one-file sitemap read the shards (one per million ids) instead of
//!   the pages.
//!
//! The worker syncs an article's entry on each of its events ([`sync`]: publish, update of a
//! published article, unarchive, archive, delete); [`rebuild_step`], run by the sweep, builds
//! the pages of a table that has articles from before them (idempotent, resumable).

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use base64::{engine::general_purpose::STANDARD, Engine};
use futures::{future::try_join_all, try_join};
use serde::{Deserialize, Serialize};

use blog_core::{
    ports::table::{n, s, AttributeValue, Condition, Index, Item, Key, Query, SortKey, Table},
    ports::table::{TableError, Update, Write},
    records::{self, number, query_all},
};

use crate::{keys, model::ArticleHead, published::PublishedStamp, read};

/// Article ids per page item.
pub const IDS_PER_PAGE: u64 = 1_000;
/// Pages per shard item of the bitmaps.
pub const PAGES_PER_SHARD: u64 = 1_000;
/// Pages the rebuild writes per sweep (100,000 ids: about 1,100 calls).
pub const REBUILD_PAGES_PER_STEP: u64 = 100;
/// The partition of the sitemap's items.
pub const PARTITION: &str = "SITEMAP";
/// Attempts of a write that lost a race.
const ATTEMPTS: usize = 8;

/// Key of page `page`.
pub fn page_key(page: u64) -> Key {
    Key::new(PARTITION, format!("P#{page:016}"))
}

/// Key of the bitmap shard `shard`.
pub fn shard_key(shard: u64) -> Key {
    Key::new(PARTITION, format!("I#{shard:016}"))
}

/// Key of the rebuild's progress.
pub fn rebuild_key() -> Key {
    Key::new(PARTITION, "REBUILD")
}

/// The page that holds article `id`.
pub fn page_of(id: u64) -> u64 {
    id.saturating_sub(1) / IDS_PER_PAGE
}

/// The pages that hold the ids of `ids`.
pub fn pages_of(ids: &RangeInclusive<u64>) -> RangeInclusive<u64> {
    page_of(*ids.start())..=page_of(*ids.end())
}

/// A page item.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRecord {
    /// `[id, updateTime]` of its published articles, by id.
    #[serde(default)]
    pub entries: Vec<(u64, String)>,
    /// Bumped by every write (0: never written).
    #[serde(default)]
    pub revision: i64,
}

impl PageRecord {
    /// Its entries with article `id`'s set to `update_time` (`None`: not published).
    fn with(&self, id: u64, update_time: Option<&str>) -> Vec<(u64, String)> {
        let mut entries: Vec<(u64, String)> =
            self.entries.iter().filter(|(other, _)| *other != id).cloned().collect();
        if let Some(time) = update_time {
            let at = entries.partition_point(|(other, _)| *other < id);
            entries.insert(at, (id, time.to_string()));
        }
        entries
    }
}

/// The bitmap of page `page`'s entries: bit `i` for id `page·1000 + i + 1`.
pub fn bitmap(page: u64, entries: &[(u64, String)]) -> Vec<u8> {
    let mut bits = vec![0u8; IDS_PER_PAGE.div_ceil(8) as usize];
    for (id, _) in entries {
        let offset = id.saturating_sub(1).saturating_sub(page * IDS_PER_PAGE);
        if offset < IDS_PER_PAGE {
            bits[(offset / 8) as usize] |= 1 << (offset % 8);
        }
    }
    bits
}

/// The ids a bitmap of page `page` holds.
fn ids_of(page: u64, bits: &[u8]) -> impl Iterator<Item = u64> + '_ {
    (0..IDS_PER_PAGE.min(bits.len() as u64 * 8))
        .filter(|offset| bits[(offset / 8) as usize] & (1 << (offset % 8)) != 0)
        .map(move |offset| page * IDS_PER_PAGE + offset + 1)
}

async fn page(table: &dyn Table, page: u64) -> Result<PageRecord, TableError> {
    Ok(table.get(&page_key(page)).await?.map(records::from_item).transpose()?.unwrap_or_default())
}

/// Writes `entries` over `page` as read at `before`, with its bitmap, in one transaction;
/// false when another write came first.
async fn write_page(
    table: &dyn Table,
    number: u64,
    before: &PageRecord,
    entries: Vec<(u64, String)>,
) -> Result<bool, TableError> {
    let bits = bitmap(number, &entries);
    let after = PageRecord { entries, revision: before.revision + 1 };
    let condition = match before.revision {
        0 => Condition::NotExists,
        revision => Condition::equals("revision", n(revision)),
    };
    let attribute = format!("p{number}");
    let update = match after.entries.is_empty() {
        true => Update::new().remove(attribute),
        false => Update::new().set(attribute, s(STANDARD.encode(bits))),
    };
    let writes = vec![
        Write::Put {
            item: records::to_item(&after, &page_key(number))?,
            condition: Some(condition),
        },
        Write::Update { key: shard_key(number / PAGES_PER_SHARD), update, condition: None },
    ];
    match table.transact(writes).await {
        Ok(()) => Ok(true),
        Err(TableError::TransactionCancelled { .. }) => Ok(false),
        Err(other) => Err(other),
    }
}

/// What of a head the sitemap shows: its last change while it is listed.
fn shown(head: &Option<ArticleHead>) -> Option<String> {
    head.as_ref().filter(|h| h.is_listed()).map(|h| h.update_time.clone())
}

/// Brings article `id`'s entry in line with its head (the worker, on each of its events). A
/// write is checked against the head read again afterwards: when the head changed meanwhile
/// (an event handled late, a change racing this one) the entry is synced again, so the last
/// write always follows the latest head and no stale delivery leaves a stale entry.
pub async fn sync(table: &dyn Table, id: u64) -> Result<(), TableError> {
    let number = page_of(id);
    for _ in 0..ATTEMPTS {
        let (head, current) = try_join!(read::load_head(table, id), page(table, number))?;
        let wanted = shown(&head);
        let entries = current.with(id, wanted.as_deref());
        if entries == current.entries {
            return Ok(());
        }
        if !write_page(table, number, &current, entries).await? {
            continue;
        }
        if shown(&read::load_head(table, id).await?) == wanted {
            return Ok(());
        }
    }
    Err(TableError::Backend(anyhow::anyhow!("sitemap page {number} kept changing")))
}

/// Rebuilds page `number` from the heads of its ids (ten BatchGetItems), guarded by the page's
/// revision read first, so a sync that lands meanwhile makes it read again.
pub async fn rebuild_page(table: &dyn Table, number: u64) -> Result<(), TableError> {
    let first = number * IDS_PER_PAGE + 1;
    let keys: Vec<Key> = (first..first + IDS_PER_PAGE).map(keys::head).collect();
    for _ in 0..ATTEMPTS {
        let current = page(table, number).await?;
        let reads = keys.chunks(100).map(|chunk| table.get_many(chunk));
        let mut entries = Vec::new();
        for item in try_join_all(reads).await?.into_iter().flatten() {
            let head: ArticleHead = records::from_item(item)?;
            if head.is_listed() {
                entries.push((head.id, head.update_time));
            }
        }
        entries.sort();
        if entries == current.entries || write_page(table, number, &current, entries).await? {
            return Ok(());
        }
    }
    Err(TableError::Backend(anyhow::anyhow!("sitemap page {number} kept changing")))
}

/// One step of the rebuild of the pages from the articles (the sweep runs it each time):
/// nothing once done; else the next [`REBUILD_PAGES_PER_STEP`] pages up to the highest id
/// drawn when it started, its progress kept in `SITEMAP`/`REBUILD`. Articles created after it
/// started are the worker's. Returns how many pages it rebuilt.
pub async fn rebuild_step(table: &dyn Table) -> Result<u64, TableError> {
    let progress = table.get(&rebuild_key()).await?;
    let progress = progress.as_ref();
    let format = progress.and_then(|p| number(p, "idsPerPage"));
    if progress.and_then(|p| number(p, "done")) == Some(1) && format == Some(IDS_PER_PAGE as i64) {
        return Ok(0);
    }
    let highest = match progress.and_then(|p| number(p, "highest")) {
        Some(highest) if format == Some(IDS_PER_PAGE as i64) => highest.max(0) as u64,
        _ => blog_core::ids::current_id(table, blog_core::ids::IdKind::Article).await?,
    };
    let next = progress.and_then(|p| number(p, "next")).unwrap_or(0).max(0) as u64;
    let next = if format == Some(IDS_PER_PAGE as i64) { next } else { 0 };
    let end = if highest == 0 { 0 } else { page_of(highest) + 1 };
    let until = end.min(next + REBUILD_PAGES_PER_STEP);
    for number in next..until {
        rebuild_page(table, number).await?;
    }
    let mut item = records::key_item(&rebuild_key());
    item.insert("idsPerPage".into(), n(IDS_PER_PAGE as i64));
    item.insert("highest".into(), n(highest as i64));
    item.insert("next".into(), n(until as i64));
    item.insert("done".into(), n(i64::from(until >= end)));
    table.put(item, None).await?;
    Ok(until.saturating_sub(next))
}

/// Which published ids the sitemap holds, page by page: what its shards say (one Query of the
/// `I#` items, one item per million ids).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pages: BTreeMap<u64, Vec<u8>>,
}

impl Occupancy {
    /// Published articles.
    pub fn count(&self) -> u64 {
        self.pages.values().flatten().map(|byte| byte.count_ones() as u64).sum()
    }

    /// The pages that hold any.
    pub fn pages(&self) -> Vec<u64> {
        self.pages.keys().copied().collect()
    }

    /// Every published id, ascending.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.pages.iter().flat_map(|(page, bits)| ids_of(*page, bits))
    }
}

/// Reads the shards (one Query of the base table's `SITEMAP` partition, `I#` keys; a 1 MB page
/// holds six shards, six million ids).
pub async fn occupancy(table: &dyn Table) -> Result<Occupancy, TableError> {
    let query = Query::partition(Index::Primary, PARTITION).sort(SortKey::BeginsWith("I#".into()));
    let mut pages = BTreeMap::new();
    for item in query_all(table, query).await? {
        for (attribute, value) in item.iter() {
            let Some(page) = attribute.strip_prefix('p').and_then(|p| p.parse::<u64>().ok()) else {
                continue;
            };
            if let AttributeValue::S(encoded) = value {
                let bits = STANDARD.decode(encoded).map_err(|e| {
                    TableError::Invalid(format!("sitemap bitmap of page {page}: {e}"))
                })?;
                pages.insert(page, bits);
            }
        }
    }
    Ok(Occupancy { pages })
}

fn stamps_of(
    items: Vec<Item>,
    ids: &RangeInclusive<u64>,
) -> Result<Vec<PublishedStamp>, TableError> {
    let mut stamps = Vec::new();
    for item in items {
        let page: PageRecord = records::from_item(item)?;
        stamps.extend(
            page.entries
                .into_iter()
                .filter(|(id, _)| ids.contains(id))
                .map(|(id, update_time)| PublishedStamp { id, update_time }),
        );
    }
    stamps.sort_by_key(|stamp| stamp.id);
    Ok(stamps)
}

/// The published articles of the pages `pages` whose ids are in `ids`, by id: BatchGetItems
/// of 100 pages, made together.
pub async fn stamps(
    table: &dyn Table,
    pages: &[u64],
    ids: RangeInclusive<u64>,
) -> Result<Vec<PublishedStamp>, TableError> {
    let keys: Vec<Key> = pages.iter().map(|page| page_key(*page)).collect();
    let reads = keys.chunks(100).map(|chunk| table.get_many(chunk));
    stamps_of(try_join_all(reads).await?.into_iter().flatten().collect(), &ids)
}

#[cfg(test)]
#[path = "sitemap_pages_tests.rs"]
mod tests;
