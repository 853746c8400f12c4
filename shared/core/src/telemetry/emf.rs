//! CloudWatch Embedded Metric Format: one JSON log line per request (and per worker batch) that
//! CloudWatch turns into the `Blog` namespace's metrics, dimension `function`, without any
//! PutMetricData call.

use std::time::Duration;

use serde_json::{json, Map, Value};

/// Namespace of every metric.
pub const NAMESPACE: &str = "Blog";

fn line(function: &str, metrics: &[(&str, &str, f64)], properties: Map<String, Value>) -> String {
    let definitions: Vec<Value> =
        metrics.iter().map(|(name, unit, _)| json!({ "Name": name, "Unit": unit })).collect();
    let mut document = properties;
    document.insert(
        "_aws".into(),
        json!({
            "Timestamp": chrono::Utc::now().timestamp_millis(),
            "CloudWatchMetrics": [{
                "Namespace": NAMESPACE,
                "Dimensions": [["function"]],
                "Metrics": definitions,
            }],
        }),
    );
    document.insert("function".into(), json!(function));
    for (name, _, value) in metrics {
        document.insert((*name).into(), json!(value));
    }
    Value::Object(document).to_string()
}

/// The line of one HTTP request: `requests`, `errors` (5xx), `latency` and, on the first request
/// of an instance, `coldStart`; method, route and status ride along as searchable properties.
pub fn request_line(
    function: &str,
    method: &str,
    uri: &str,
    status: u16,
    elapsed: Duration,
    cold_start: bool,
) -> String {
    let mut metrics = vec![
        ("requests", "Count", 1.0),
        ("errors", "Count", if status >= 500 { 1.0 } else { 0.0 }),
        ("latency", "Milliseconds", elapsed.as_secs_f64() * 1000.0),
    ];
    if cold_start {
        metrics.push(("coldStart", "Count", 1.0));
    }
    let mut properties = Map::new();
    properties.insert("method".into(), json!(method));
    properties.insert("uri".into(), json!(uri));
    properties.insert("status".into(), json!(status));
    line(function, &metrics, properties)
}

/// The line of one worker invocation: events processed and failed.
pub fn worker_line(function: &str, processed: u64, failed: u64, cold_start: bool) -> String {
    let mut metrics = vec![
        ("eventsProcessed", "Count", processed as f64),
        ("eventsFailed", "Count", failed as f64),
    ];
    if cold_start {
        metrics.push(("coldStart", "Count", 1.0));
    }
    line(function, &metrics, Map::new())
}

/// The line of one outbox sweep: events sent again because their send after the publish
/// had failed (any above zero means the queue was unreachable at some publish).
pub fn sweep_line(function: &str, resent: u64, cold_start: bool) -> String {
    let mut metrics = vec![("eventsResent", "Count", resent as f64)];
    if cold_start {
        metrics.push(("coldStart", "Count", 1.0));
    }
    line(function, &metrics, Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the metrics a line's directive declares, in order.
    fn declared(document: &Value) -> Vec<&str> {
        let directive = &document["_aws"]["CloudWatchMetrics"][0];
        directive["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn a_request_line_declares_every_metric_it_carries() {
        let line = request_line(
            "articles",
            "GET",
            "/api/v1/articles/{id}",
            503,
            Duration::from_millis(12),
            true,
        );
        let document: Value = serde_json::from_str(&line).unwrap();
        let directive = &document["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], "Blog");
        assert_eq!(directive["Dimensions"], json!([["function"]]));
        let names = declared(&document);
        assert_eq!(names, ["requests", "errors", "latency", "coldStart"]);
        for name in names {
            assert!(document[name].is_number(), "{name} has a value");
        }
        assert_eq!(document["function"], "articles");
        assert_eq!(document["errors"], 1.0);
        assert_eq!(document["latency"], 12.0);
        assert_eq!(document["uri"], "/api/v1/articles/{id}");
    }

    #[test]
    fn a_warm_worker_line_has_no_cold_start() {
        let document: Value = serde_json::from_str(&worker_line("worker", 3, 1, false)).unwrap();
        assert_eq!(document["eventsProcessed"], 3.0);
        assert_eq!(document["eventsFailed"], 1.0);
        assert!(document.get("coldStart").is_none());
    }

    #[test]
    fn a_sweep_line_counts_the_events_sent_again() {
        let document: Value = serde_json::from_str(&sweep_line("outbox-sweep", 2, true)).unwrap();
        assert_eq!(declared(&document), ["eventsResent", "coldStart"]);
        assert_eq!(
            (document["function"].as_str(), document["eventsResent"].as_f64()),
            (Some("outbox-sweep"), Some(2.0))
        );
    }
}
