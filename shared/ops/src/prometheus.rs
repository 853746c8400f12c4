//! `GET /actuator/prometheus`: every meter in the Prometheus text exposition format 0.0.4, named
//! as Micrometer names them (`http_server_requests_seconds_count`, `jvm_memory_used_bytes`, ...).

use std::fmt::Write;

use axum::{
    extract::State,
    http::header,
    response::{IntoResponse, Response},
};

use super::metrics::{MeterKind, METERS};
use blog_core::{context::AppContext, telemetry::store::MetricsView};

use super::envelope::OpsError;
use crate::envelope::OpsErrors;
use blog_core::http::responses::kinds::*;

/// Content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn labels(tags: &[(String, String)]) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> = tags
        .iter()
        .map(|(k, v)| format!("{}=\"{}\"", k.replace(['.', '-'], "_"), escape(v)))
        .collect();
    format!("{{{}}}", pairs.join(","))
}

fn base_name(name: &str, unit: &str) -> String {
    let name = name.replace('.', "_");
    match unit {
        "seconds" | "bytes" | "threads" | "events" if !name.ends_with(unit) => {
            format!("{name}_{unit}")
        }
        _ => name,
    }
}

/// Renders every meter of `view`.
pub fn render(view: &MetricsView) -> String {
    let mut out = String::new();
    for meter in METERS {
        let base = base_name(meter.name, meter.base_unit);
        let help = meter.description;
        match meter.kind {
            MeterKind::Timer => {
                let series: Vec<_> =
                    view.series.iter().filter(|(key, _)| key.name == meter.name).collect();
                let _ = writeln!(out, "# HELP {base} {help}\n# TYPE {base} summary");
                for (key, stats) in &series {
                    let labels = labels(&key.tags);
                    let _ = writeln!(out, "{base}_count{labels} {}", stats.count);
                    let _ = writeln!(out, "{base}_sum{labels} {}", stats.total_seconds);
                }
                let _ = writeln!(out, "# HELP {base}_max {help}\n# TYPE {base}_max gauge");
                for (key, stats) in &series {
                    let _ = writeln!(out, "{base}_max{} {}", labels(&key.tags), stats.max_seconds);
                }
            }
            MeterKind::Counter => {
                let _ = writeln!(out, "# HELP {base}_total {help}\n# TYPE {base}_total counter");
                for (key, stats) in view.series.iter().filter(|(key, _)| key.name == meter.name) {
                    let _ = writeln!(out, "{base}_total{} {}", labels(&key.tags), stats.count);
                }
            }
            MeterKind::SumGauge | MeterKind::MeanGauge | MeterKind::MaxGauge => {
                let _ = writeln!(out, "# HELP {base} {help}\n# TYPE {base} gauge");
                for (key, value) in view.gauges.iter().filter(|(key, _)| key.name == meter.name) {
                    let _ = writeln!(out, "{base}{} {value}", labels(&key.tags));
                }
            }
        }
    }
    out
}

/// The scrape endpoint.
#[utoipa::path(
    get,
    path = "/prometheus",
    operation_id = "prometheus",
    tag = "ops",
    security((), ("actuatorToken" = [])),
    responses(
        (status = 200, description = "Prometheus text exposition format 0.0.4", body = String,
            content_type = "text/plain; version=0.0.4; charset=utf-8"),
        OpsErrors<Unauthorized>,
    )
)]
pub async fn scrape(
    _: super::ActuatorAccess,
    State(ctx): State<AppContext>,
) -> Result<Response, OpsError> {
    let view = ctx.telemetry.view(ctx.table.as_ref()).await?;
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], render(&view)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::telemetry::metrics::{Kind, SeriesKey, Stats};

    #[test]
    fn timers_render_as_summaries_with_a_max_gauge_and_escaped_labels() {
        let view = MetricsView {
            series: vec![(
                SeriesKey::new("http.server.requests", &[("uri", "/a\"b"), ("status", "200")]),
                Stats { kind: Kind::Timer, count: 2, total_seconds: 0.25, max_seconds: 0.2 },
            )],
            gauges: vec![(SeriesKey::new("jvm.memory.used", &[]), 1024.0)],
        };
        let text = render(&view);
        assert!(text.contains("# TYPE http_server_requests_seconds summary\n"), "{text}");
        assert!(
            text.contains("http_server_requests_seconds_count{status=\"200\",uri=\"/a\\\"b\"} 2\n"),
            "{text}"
        );
        assert!(text
            .contains("http_server_requests_seconds_sum{status=\"200\",uri=\"/a\\\"b\"} 0.25\n"));
        assert!(
            text.contains("http_server_requests_seconds_max{status=\"200\",uri=\"/a\\\"b\"} 0.2\n")
        );
        assert!(text.contains("# TYPE jvm_memory_used_bytes gauge\njvm_memory_used_bytes 1024\n"));
        assert!(text.contains("# TYPE blog_worker_events_total counter\n"));
    }
}
