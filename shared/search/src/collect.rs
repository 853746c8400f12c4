//! A tantivy collector that keeps every match: its address, catalog key and score. The exact
//! total, the filters, both orders and the fusion all need the full set of matches, and at the
//! blog's size keeping them is cheaper than scoring them.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

/// One text match.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Match {
    pub address: DocAddress,
    pub key: u64,
    pub score: Score,
}

/// Collects every [`Match`], reading the catalog key from the `key` fast field.
pub(crate) struct AllMatches;

pub(crate) struct SegmentMatches {
    segment: SegmentOrdinal,
    keys: Column<u64>,
    matches: Vec<Match>,
}

impl Collector for AllMatches {
    type Fruit = Vec<Match>;
    type Child = SegmentMatches;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentMatches> {
        let keys = reader.fast_fields().u64("key")?;
        Ok(SegmentMatches { segment, keys, matches: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, segments: Vec<Vec<Match>>) -> tantivy::Result<Vec<Match>> {
        Ok(segments.into_iter().flatten().collect())
    }
}

impl SegmentCollector for SegmentMatches {
    type Fruit = Vec<Match>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(key) = self.keys.first(doc) {
            self.matches.push(Match { address: DocAddress::new(self.segment, doc), key, score });
        }
    }

    fn harvest(self) -> Vec<Match> {
        self.matches
    }
}
