//! [`DecodedItems`]: the items one connection of the embedded table has decoded, reused while
//! their stored text is unchanged.
//!
//! Decoding an item's DynamoDB JSON was the largest part of a read (an article body of 8 KB
//! takes about 20 µs; copying the decoded item takes a fifth of that). An entry is only reused
//! when the row's text is byte for byte the text it was decoded from, so the cache needs no
//! invalidation and stays right when another process writes to the same file.

use std::hash::BuildHasher;

use lru::LruCache;

use super::{decode, Item, TableError};

/// Stored text a connection keeps decoded, in bytes (the decoded items take about as much
/// again): an 8 KB article body and its 1 KB head fit about 900 times.
const BUDGET_BYTES: usize = 8 << 20;

/// Items bigger than this are decoded every time rather than push out many smaller ones.
const MAX_ENTRY_BYTES: usize = 256 << 10;

/// One decoded item and what it was decoded from.
struct Entry {
    pk: Box<str>,
    sk: Box<str>,
    text: Box<str>,
    item: Item,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.pk.len() + self.sk.len() + self.text.len()
    }
}

/// Decoded items by key, least recently used first out.
pub(super) struct DecodedItems {
    entries: LruCache<u64, Entry>,
    bytes: usize,
    hasher: std::hash::RandomState,
}

impl DecodedItems {
    pub(super) fn new() -> Self {
        Self { entries: LruCache::unbounded(), bytes: 0, hasher: Default::default() }
    }

    /// The item stored under (`pk`, `sk`) as `text`: the cached one if it was decoded from the
    /// same text, otherwise freshly decoded (and kept).
    pub(super) fn decode(&mut self, pk: &str, sk: &str, text: &str) -> Result<Item, TableError> {
        let slot = self.hasher.hash_one((pk, sk));
        if let Some(entry) = self.entries.get(&slot) {
            if *entry.text == *text && *entry.pk == *pk && *entry.sk == *sk {
                return Ok(entry.item.clone());
            }
        }
        let item = decode(text)?;
        let entry = Entry { pk: pk.into(), sk: sk.into(), text: text.into(), item: item.clone() };
        if entry.bytes() <= MAX_ENTRY_BYTES {
            self.bytes += entry.bytes();
            if let Some(replaced) = self.entries.put(slot, entry) {
                self.bytes -= replaced.bytes();
            }
            while self.bytes > BUDGET_BYTES {
                match self.entries.pop_lru() {
                    Some((_, evicted)) => self.bytes -= evicted.bytes(),
                    None => break,
                }
            }
        }
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::table::{n, s};

    fn text(title: &str) -> String {
        format!(r#"{{"pk":{{"S":"A#1"}},"sk":{{"S":"HEAD"}},"title":{{"S":"{title}"}}}}"#)
    }

    #[test]
    fn a_changed_text_is_decoded_again_and_an_unchanged_one_is_reused() {
        let mut items = DecodedItems::new();
        let first = items.decode("A#1", "HEAD", &text("one")).unwrap();
        assert_eq!(first.get("title"), Some(&s("one")));
        assert_eq!(items.decode("A#1", "HEAD", &text("one")).unwrap(), first);
        let second = items.decode("A#1", "HEAD", &text("two")).unwrap();
        assert_eq!(second.get("title"), Some(&s("two")));
        assert_eq!(items.entries.len(), 1);
        assert_eq!(items.bytes, "A#1".len() + "HEAD".len() + text("two").len());
    }

    #[test]
    fn the_same_text_under_another_key_is_its_own_entry() {
        let mut items = DecodedItems::new();
        items.decode("A#1", "HEAD", &text("one")).unwrap();
        items.decode("A#2", "HEAD", &text("one")).unwrap();
        assert_eq!(items.entries.len(), 2);
    }

    #[test]
    fn the_cache_stays_within_its_budget_by_dropping_the_least_recently_used() {
        let mut items = DecodedItems::new();
        let body = "x".repeat(100 << 10);
        let big = format!(r#"{{"body":{{"S":"{body}"}},"n":{{"N":"1"}}}}"#);
        for i in 0..200 {
            items.decode(&format!("A#{i}"), "BODY", &big).unwrap();
            assert!(items.bytes <= BUDGET_BYTES);
        }
        let kept = items.entries.len();
        assert!(kept < 200 && kept >= BUDGET_BYTES / (big.len() + 16), "kept {kept}");
        let cached = |items: &DecodedItems, pk: &str| {
            items.entries.contains(&items.hasher.hash_one((pk, "BODY")))
        };
        assert!(cached(&items, "A#199") && !cached(&items, "A#0"));
        let newest = items.decode("A#199", "BODY", &big).unwrap();
        assert_eq!(newest.get("n"), Some(&n(1)));
    }

    #[test]
    fn an_item_too_big_to_keep_is_decoded_but_not_kept() {
        let mut items = DecodedItems::new();
        let body = "x".repeat(MAX_ENTRY_BYTES);
        let item = items.decode("A#1", "BODY", &format!(r#"{{"b":{{"S":"{body}"}}}}"#)).unwrap();
        assert_eq!(item.get("b"), Some(&s(body)));
        assert_eq!((items.entries.len(), items.bytes), (0, 0));
    }

    #[test]
    fn corrupt_text_is_an_error_and_is_not_kept() {
        let mut items = DecodedItems::new();
        assert!(items.decode("A#1", "HEAD", "{not json").is_err());
        assert_eq!((items.entries.len(), items.bytes), (0, 0));
    }
}
