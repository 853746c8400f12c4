//! `GET /actuator/metrics` and `/actuator/metrics/{name}` in Spring Boot's shapes. The spec's
//! JVM-era names answer with the nearest measurement of this service (docs/decisions.md).

use std::collections::{BTreeMap, BTreeSet};

use axum::{
    extract::{Path, RawQuery, State},
    Json,
};
use serde_json::{json, Value};

use blog_core::{
    context::AppContext,
    http::Failure,
    telemetry::{
        metrics::{SeriesKey, Stats},
        store::MetricsView,
    },
};

use super::envelope::OpsError;
use crate::envelope::OpsErrors;
use blog_core::http::responses::kinds::*;

/// How a meter's readings combine across series (and across instances).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeterKind {
    /// Count, total time and maximum.
    Timer,
    /// A count.
    Counter,
    /// A reading; instances' readings add up.
    SumGauge,
    /// A reading; instances' readings are averaged.
    MeanGauge,
    /// A reading; the largest instance's counts.
    MaxGauge,
}

/// A meter the actuator knows.
pub struct Meter {
    /// Dotted name.
    pub name: &'static str,
    /// What it measures.
    pub description: &'static str,
    /// Unit of its values.
    pub base_unit: &'static str,
    /// How readings combine.
    pub kind: MeterKind,
}

/// Every meter, by name.
pub const METERS: &[Meter] = &[
    Meter { name: "blog.table.calls", description: "Calls to the table (DynamoDB or the embedded table), by operation and outcome", base_unit: "seconds", kind: MeterKind::Timer },
    Meter { name: "blog.worker.events", description: "ArticlePublishedEvents the worker handled, by outcome", base_unit: "events", kind: MeterKind::Counter },
    Meter { name: "http.server.requests", description: "HTTP requests served, by method, route template, status and outcome", base_unit: "seconds", kind: MeterKind::Timer },
    Meter { name: "jdbc.connections.active", description: "Table calls in flight (this service has no connection pool; the nearest measure of busy connections)", base_unit: "connections", kind: MeterKind::SumGauge },
    Meter { name: "jvm.memory.used", description: "Resident memory of the process (a Rust service has no JVM heap; the nearest measure of used memory)", base_unit: "bytes", kind: MeterKind::SumGauge },
    Meter { name: "jvm.threads.live", description: "Operating-system threads of the process (the Tokio runtime's workers and blocking threads)", base_unit: "threads", kind: MeterKind::SumGauge },
    Meter { name: "process.uptime", description: "Time since the process started", base_unit: "seconds", kind: MeterKind::MaxGauge },
    Meter { name: "system.cpu.usage", description: "Recent CPU usage of the machine the process runs on, 0 to 1", base_unit: "ratio", kind: MeterKind::MeanGauge },
];

/// The meter of a name.
pub fn meter(name: &str) -> Option<&'static Meter> {
    METERS.iter().find(|meter| meter.name == name)
}

/// `GET /actuator/metrics`: `{names}`.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metricNames",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{names: [...]}`", body = utoipa::openapi::Object),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn names(_: super::ActuatorAccess) -> Json<Value> {
    Json(json!({ "names": METERS.iter().map(|meter| meter.name).collect::<Vec<_>>() }))
}

/// `tag=key:value` parameters of a query string.
fn tag_filters(query: Option<&str>) -> Result<Vec<(String, String)>, OpsError> {
    let pairs = form_urlencoded::parse(query.unwrap_or_default().as_bytes());
    pairs
        .filter(|(key, _)| key == "tag")
        .map(|(_, value)| match value.split_once(':') {
            Some((key, value)) if !key.is_empty() && !value.is_empty() => {
                Ok((key.to_string(), value.to_string()))
            }
            _ => Err(Failure::Invalid(format!("tag must be `key:value`, not `{value}`")).into()),
        })
        .collect()
}

fn matches(key: &SeriesKey, name: &str, filters: &[(String, String)]) -> bool {
    key.name == name && filters.iter().all(|(k, v)| key.tag(k) == Some(v.as_str()))
}

fn available_tags<'a>(
    keys: impl Iterator<Item = &'a SeriesKey>,
    filters: &[(String, String)],
) -> Value {
    let mut tags: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for key in keys {
        for (k, v) in &key.tags {
            if !filters.iter().any(|(filter, _)| filter == k) {
                tags.entry(k).or_default().insert(v);
            }
        }
    }
    Value::Array(
        tags.into_iter().map(|(tag, values)| json!({ "tag": tag, "values": values })).collect(),
    )
}

fn measurement(statistic: &str, value: f64) -> Value {
    json!({ "statistic": statistic, "value": value })
}

/// One meter's measurements and available tags from `view`; `None` when filters match nothing.
pub fn describe(meter: &Meter, view: &MetricsView, filters: &[(String, String)]) -> Option<Value> {
    let (measurements, tags) = match meter.kind {
        MeterKind::Timer | MeterKind::Counter => {
            let series: Vec<&(SeriesKey, Stats)> =
                view.series.iter().filter(|(key, _)| matches(key, meter.name, filters)).collect();
            if series.is_empty() && !filters.is_empty() {
                return None;
            }
            let mut total = Stats {
                kind: blog_core::telemetry::metrics::Kind::Counter,
                count: 0,
                total_seconds: 0.0,
                max_seconds: 0.0,
            };
            series.iter().for_each(|(_, stats)| total.merge(stats));
            let mut measurements = vec![measurement("COUNT", total.count as f64)];
            if meter.kind == MeterKind::Timer {
                measurements.push(measurement("TOTAL_TIME", total.total_seconds));
                measurements.push(measurement("MAX", total.max_seconds));
            }
            (measurements, available_tags(series.iter().map(|(key, _)| key), filters))
        }
        MeterKind::SumGauge | MeterKind::MeanGauge | MeterKind::MaxGauge => {
            let readings: Vec<&(SeriesKey, f64)> =
                view.gauges.iter().filter(|(key, _)| matches(key, meter.name, filters)).collect();
            if readings.is_empty() && !filters.is_empty() {
                return None;
            }
            let values = readings.iter().map(|(_, value)| *value);
            let value = match meter.kind {
                MeterKind::MeanGauge if !readings.is_empty() => {
                    values.sum::<f64>() / readings.len() as f64
                }
                MeterKind::MaxGauge => values.fold(0.0, f64::max),
                _ => values.sum(),
            };
            (
                vec![measurement("VALUE", value)],
                available_tags(readings.iter().map(|(key, _)| key), filters),
            )
        }
    };
    Some(json!({
        "name": meter.name,
        "description": meter.description,
        "baseUnit": meter.base_unit,
        "measurements": measurements,
        "availableTags": tags,
    }))
}

/// `GET /actuator/metrics/{name}?tag=key:value`: one meter; 404 for an unknown name or when
/// no measurement has the tags.
#[utoipa::path(
    get,
    path = "/metrics/{name}",
    operation_id = "metric",
    tag = "ops",
    params(
        ("name" = String, Path, description = "A metric name of `GET /actuator/metrics`"),
        ("tag" = Option<Vec<String>>, Query, description = "Filters `key:value`, repeatable",
            explode = true, style = Form),
    ),
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "`{name, description, baseUnit, measurements: [{statistic, \
            value}], availableTags: [{tag, values}]}`", body = utoipa::openapi::Object),
        (status = 400, description = "A `tag` is not `key:value`", body = super::envelope::OpsErrorBody),
        (status = 404, description = "No such metric, or no measurement has the tags",
            body = super::envelope::OpsErrorBody),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn one(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
    name: Result<Path<String>, axum::extract::rejection::PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, OpsError> {
    let Path(name) = name.map_err(|rejection| Failure::Invalid(rejection.body_text()))?;
    let meter =
        meter(&name).ok_or_else(|| Failure::NotFound(format!("no metric named `{name}`")))?;
    let filters = tag_filters(query.as_deref())?;
    let view = ctx.telemetry.view(ctx.table.as_ref()).await?;
    describe(meter, &view, &filters).map(Json).ok_or_else(|| {
        Failure::NotFound(format!("no measurement of `{name}` has the tags asked for")).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::telemetry::metrics::Kind;

    fn view() -> MetricsView {
        let stats = |count, total, max| Stats {
            kind: Kind::Timer,
            count,
            total_seconds: total,
            max_seconds: max,
        };
        MetricsView {
            series: vec![
                (
                    SeriesKey::new("http.server.requests", &[("method", "GET"), ("status", "200")]),
                    stats(3, 0.3, 0.2),
                ),
                (
                    SeriesKey::new(
                        "http.server.requests",
                        &[("method", "POST"), ("status", "201")],
                    ),
                    stats(1, 0.5, 0.5),
                ),
            ],
            gauges: vec![
                (SeriesKey::new("system.cpu.usage", &[("function", "a")]), 0.2),
                (SeriesKey::new("system.cpu.usage", &[("function", "b")]), 0.4),
            ],
        }
    }

    #[test]
    fn a_timer_adds_counts_and_times_and_keeps_the_largest_maximum() {
        let described = describe(meter("http.server.requests").unwrap(), &view(), &[]).unwrap();
        assert_eq!(
            described["measurements"],
            json!([
                {"statistic": "COUNT", "value": 4.0},
                {"statistic": "TOTAL_TIME", "value": 0.8},
                {"statistic": "MAX", "value": 0.5},
            ])
        );
        assert_eq!(
            described["availableTags"][0],
            json!({"tag": "method", "values": ["GET", "POST"]})
        );
    }

    #[test]
    fn a_tag_filter_narrows_the_series_and_leaves_its_tag_out_of_the_available_ones() {
        let filters = vec![("method".to_string(), "GET".to_string())];
        let described =
            describe(meter("http.server.requests").unwrap(), &view(), &filters).unwrap();
        assert_eq!(described["measurements"][0]["value"], 3.0);
        assert_eq!(described["availableTags"], json!([{"tag": "status", "values": ["200"]}]));
        let none = vec![("method".to_string(), "DELETE".to_string())];
        assert!(describe(meter("http.server.requests").unwrap(), &view(), &none).is_none());
    }

    #[test]
    fn the_cpu_usage_of_several_instances_is_their_mean() {
        let described = describe(meter("system.cpu.usage").unwrap(), &view(), &[]).unwrap();
        let value = described["measurements"][0]["value"].as_f64().unwrap();
        assert!((value - 0.3).abs() < 1e-9);
    }

    #[test]
    fn a_tag_parameter_without_a_colon_is_refused() {
        assert!(tag_filters(Some("tag=method")).is_err());
        assert_eq!(
            tag_filters(Some("tag=uri:%2Fa%3Ab&x=1")).unwrap(),
            vec![("uri".into(), "/a:b".into())]
        );
    }
}
