//! Cluster-wide metrics in the table, for functions that run as many short-lived instances:
//! each instance adds its counts and durations to one item per series (`METRICS` /
//! `S#<name>#<tags>`, atomic ADDs) and keeps its maxima and gauges in an instance item
//! (`METRICS` / `I#<function>#<instance>`) that expires 15 minutes after its last export.
//! Reading everything back is one Query of the `METRICS` partition.

use std::collections::HashMap;

use crate::ports::table::{
    n, now_epoch_seconds, s, AttributeValue, Index, Item, Key, Query, Table, TableError, Update,
    PK, SK, TTL,
};

use super::metrics::{Kind, Registry, SeriesKey, Stats};

const PARTITION: &str = "METRICS";
const SERIES: &str = "S#";
const INSTANCE: &str = "I#";
/// How long an instance's maxima and gauges count after its last export.
const INSTANCE_TTL_SECONDS: i64 = 15 * 60;

/// Metrics of the whole service: series (timers, counters) and gauges, each tagged with the
/// function that recorded it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsView {
    /// Timers and counters.
    pub series: Vec<(SeriesKey, Stats)>,
    /// Gauge readings.
    pub gauges: Vec<(SeriesKey, f64)>,
}

fn series_sort_key(key: &SeriesKey) -> String {
    let tags = serde_json::to_string(&key.tags).unwrap_or_default();
    format!("{SERIES}{}#{tags}", key.name)
}

fn micros(seconds: f64) -> i64 {
    (seconds * 1e6).round() as i64
}

/// Adds what `registry` recorded since its last export to the table's totals, then writes this
/// instance's maxima and `gauges`. Figures that could not be written are kept for the next try.
pub async fn export(
    table: &dyn Table,
    registry: &Registry,
    function: &str,
    instance: &str,
    gauges: &[(SeriesKey, f64)],
) -> Result<(), TableError> {
    let mut pending = registry.take_unexported().into_iter();
    while let Some((key, stats)) = pending.next() {
        if let Err(error) = add_series(table, function, &key, &stats).await {
            registry.restore(std::iter::once((key, stats)).chain(pending).collect());
            return Err(error);
        }
    }
    let maxima: HashMap<String, AttributeValue> = registry
        .snapshot()
        .iter()
        .filter(|(_, stats)| stats.kind == Kind::Timer)
        .map(|(key, stats)| {
            (series_sort_key(&with_function(key, function)), n(micros(stats.max_seconds)))
        })
        .collect();
    let gauges: HashMap<String, AttributeValue> = gauges
        .iter()
        .map(|(key, value)| (key.name.clone(), AttributeValue::N(format!("{value}"))))
        .collect();
    let mut item = Item::from(HashMap::<String, AttributeValue>::new());
    item.insert(PK.into(), s(PARTITION));
    item.insert(SK.into(), s(format!("{INSTANCE}{function}#{instance}")));
    item.insert("function".into(), s(function));
    item.insert("maxima".into(), AttributeValue::M(maxima));
    item.insert("gauges".into(), AttributeValue::M(gauges));
    item.insert(TTL.into(), n(now_epoch_seconds() + INSTANCE_TTL_SECONDS));
    table.put(item, None).await
}

fn with_function(key: &SeriesKey, function: &str) -> SeriesKey {
    let mut tags = key.tags.clone();
    tags.retain(|(k, _)| k != "function");
    tags.push(("function".into(), function.into()));
    tags.sort();
    SeriesKey { name: key.name.clone(), tags }
}

async fn add_series(
    table: &dyn Table,
    function: &str,
    key: &SeriesKey,
    stats: &Stats,
) -> Result<(), TableError> {
    let key = with_function(key, function);
    let tags: HashMap<String, AttributeValue> =
        key.tags.iter().map(|(k, v)| (k.clone(), s(v))).collect();
    let kind = match stats.kind {
        Kind::Timer => "timer",
        Kind::Counter => "counter",
    };
    let update = Update::new()
        .set("name", s(&key.name))
        .set("tags", AttributeValue::M(tags))
        .set("kind", s(kind))
        .add("count", stats.count as i64)
        .add("totalMicros", micros(stats.total_seconds));
    table.update(&Key::new(PARTITION, series_sort_key(&key)), update, None).await.map(|_| ())
}

/// Reads every series and every live instance's gauges and maxima back.
pub async fn read(table: &dyn Table) -> Result<MetricsView, TableError> {
    let mut items = Vec::new();
    let mut next = None;
    loop {
        let query = Query::partition(Index::Primary, PARTITION).start_after(next);
        let page = table.query(query).await?;
        items.extend(page.items);
        match page.next {
            Some(key) => next = Some(key),
            None => break,
        }
    }
    let mut maxima: HashMap<String, f64> = HashMap::new();
    let mut view = MetricsView::default();
    for item in
        items.iter().filter(|item| text(item, SK).is_some_and(|sk| sk.starts_with(INSTANCE)))
    {
        let function = text(item, "function").unwrap_or_default();
        for (series, max) in numbers(item, "maxima") {
            let entry = maxima.entry(series).or_insert(0.0);
            *entry = entry.max(max / 1e6);
        }
        for (name, value) in numbers(item, "gauges") {
            let key = SeriesKey { name, tags: vec![("function".into(), function.clone())] };
            view.gauges.push((key, value));
        }
    }
    for item in items.iter() {
        let Some(sort_key) = text(item, SK).filter(|sk| sk.starts_with(SERIES)) else { continue };
        let Some(name) = text(item, "name") else { continue };
        let mut tags: Vec<(String, String)> = match item.get("tags") {
            Some(AttributeValue::M(map)) => map
                .iter()
                .filter_map(|(k, v)| match v {
                    AttributeValue::S(v) => Some((k.clone(), v.clone())),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        tags.sort();
        let kind = if text(item, "kind").as_deref() == Some("counter") {
            Kind::Counter
        } else {
            Kind::Timer
        };
        let stats = Stats {
            kind,
            count: number(item, "count").unwrap_or(0.0) as u64,
            total_seconds: number(item, "totalMicros").unwrap_or(0.0) / 1e6,
            max_seconds: maxima.get(&sort_key).copied().unwrap_or(0.0),
        };
        view.series.push((SeriesKey { name, tags }, stats));
    }
    Ok(view)
}

fn text(item: &Item, attribute: &str) -> Option<String> {
    match item.get(attribute) {
        Some(AttributeValue::S(value)) => Some(value.clone()),
        _ => None,
    }
}

fn number(item: &Item, attribute: &str) -> Option<f64> {
    match item.get(attribute) {
        Some(AttributeValue::N(value)) => value.parse().ok(),
        _ => None,
    }
}

fn numbers(item: &Item, attribute: &str) -> Vec<(String, f64)> {
    match item.get(attribute) {
        Some(AttributeValue::M(map)) => map
            .iter()
            .filter_map(|(k, v)| match v {
                AttributeValue::N(v) => Some((k.clone(), v.parse().ok()?)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
