//! The in-process metrics registry: timers and counters keyed by name and tags, kept since the
//! process started (what the actuator serves locally) and as deltas since the last export (what
//! a Lambda function adds to the table's cluster-wide totals).

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicI64, Ordering},
        Mutex,
    },
    time::Duration,
};

/// Tags of one series, sorted by key.
pub type Tags = Vec<(String, String)>;

/// The name and tags of one series.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeriesKey {
    /// Metric name, e.g. `http.server.requests`.
    pub name: String,
    /// Tags, sorted by key.
    pub tags: Tags,
}

impl SeriesKey {
    /// A key with its tags sorted.
    pub fn new(name: &str, tags: &[(&str, &str)]) -> Self {
        let mut tags: Tags = tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        tags.sort();
        Self { name: name.to_string(), tags }
    }

    /// The value of one tag.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// What a series measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Durations: count, total time and maximum.
    Timer,
    /// Occurrences: count only.
    Counter,
}

/// The figures of one series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Timer or counter.
    pub kind: Kind,
    /// Number of events.
    pub count: u64,
    /// Sum of the durations, in seconds (timers).
    pub total_seconds: f64,
    /// Longest duration, in seconds (timers).
    pub max_seconds: f64,
}

impl Stats {
    fn empty(kind: Kind) -> Self {
        Self { kind, count: 0, total_seconds: 0.0, max_seconds: 0.0 }
    }

    fn record(&mut self, count: u64, seconds: f64) {
        self.count += count;
        self.total_seconds += seconds;
        self.max_seconds = self.max_seconds.max(seconds);
    }

    /// Adds another series' figures to these.
    pub fn merge(&mut self, other: &Stats) {
        self.count += other.count;
        self.total_seconds += other.total_seconds;
        self.max_seconds = self.max_seconds.max(other.max_seconds);
    }
}

#[derive(Default)]
struct Series {
    since_start: BTreeMap<SeriesKey, Stats>,
    since_export: BTreeMap<SeriesKey, Stats>,
}

/// Timers, counters and the in-flight table call gauge of one process.
#[derive(Default)]
pub struct Registry {
    series: Mutex<Series>,
    table_calls_in_flight: AtomicI64,
}

impl Registry {
    /// Records one timed event.
    pub fn time(&self, name: &str, tags: &[(&str, &str)], elapsed: Duration) {
        self.add(SeriesKey::new(name, tags), Kind::Timer, 1, elapsed.as_secs_f64());
    }

    /// Counts `count` events.
    pub fn count(&self, name: &str, tags: &[(&str, &str)], count: u64) {
        if count > 0 {
            self.add(SeriesKey::new(name, tags), Kind::Counter, count, 0.0);
        }
    }

    fn add(&self, key: SeriesKey, kind: Kind, count: u64, seconds: f64) {
        let mut series = self.series.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Series { since_start, since_export } = &mut *series;
        // The key is copied only for a series' first figure (a request's tags are 8 strings).
        for figures in [since_start, since_export] {
            match figures.get_mut(&key) {
                Some(stats) => stats.record(count, seconds),
                None => {
                    figures.entry(key.clone()).or_insert(Stats::empty(kind)).record(count, seconds)
                }
            }
        }
    }

    /// Every series with its figures since the process started.
    pub fn snapshot(&self) -> Vec<(SeriesKey, Stats)> {
        let series = self.series.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        series.since_start.iter().map(|(key, stats)| (key.clone(), *stats)).collect()
    }

    /// Takes the figures recorded since the last export; [`Registry::restore`] puts them back
    /// when the export fails.
    pub fn take_unexported(&self) -> Vec<(SeriesKey, Stats)> {
        let mut series = self.series.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut series.since_export).into_iter().collect()
    }

    /// Returns figures that could not be exported, to be exported with the next ones.
    pub fn restore(&self, unexported: Vec<(SeriesKey, Stats)>) {
        let mut series = self.series.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (key, stats) in unexported {
            series.since_export.entry(key).or_insert(Stats::empty(stats.kind)).merge(&stats);
        }
    }

    /// Marks a table call as started; the call ends when the guard drops.
    pub fn table_call(&self) -> InFlight<'_> {
        self.table_calls_in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(&self.table_calls_in_flight)
    }

    /// Table calls running now.
    pub fn table_calls_in_flight(&self) -> i64 {
        self.table_calls_in_flight.load(Ordering::Relaxed)
    }
}

/// A running table call (see [`Registry::table_call`]).
pub struct InFlight<'a>(&'a AtomicI64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timer_keeps_count_total_and_max_per_tag_set() {
        let registry = Registry::default();
        registry.time("t", &[("b", "2"), ("a", "1")], Duration::from_millis(100));
        registry.time("t", &[("a", "1"), ("b", "2")], Duration::from_millis(300));
        registry.time("t", &[("a", "other")], Duration::from_millis(50));
        let snapshot = registry.snapshot();
        assert_eq!(snapshot.len(), 2);
        let (key, stats) = &snapshot[0];
        assert_eq!(key.tags, vec![("a".into(), "1".into()), ("b".into(), "2".into())]);
        assert_eq!(stats.count, 2);
        assert!((stats.total_seconds - 0.4).abs() < 1e-9 && (stats.max_seconds - 0.3).abs() < 1e-9);
    }

    #[test]
    fn unexported_figures_are_taken_once_and_can_be_put_back() {
        let registry = Registry::default();
        registry.count("c", &[], 3);
        let taken = registry.take_unexported();
        assert_eq!(taken[0].1.count, 3);
        assert!(registry.take_unexported().is_empty());
        registry.restore(taken);
        registry.count("c", &[], 1);
        assert_eq!(registry.take_unexported()[0].1.count, 4);
        assert_eq!(registry.snapshot()[0].1.count, 4);
    }

    #[test]
    fn in_flight_calls_are_counted_until_their_guard_drops() {
        let registry = Registry::default();
        let first = registry.table_call();
        let second = registry.table_call();
        assert_eq!(registry.table_calls_in_flight(), 2);
        drop(first);
        drop(second);
        assert_eq!(registry.table_calls_in_flight(), 0);
    }
}
