//! The Grafana dashboard of the local gateway (`infra/grafana/blog-gateway.json`) queries only
//! metrics that the gateway's `/actuator/prometheus` exports.

use std::collections::BTreeSet;

use axum::{body::Body, http::Request};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// Series names `/actuator/prometheus` declares: `<name>_count` and `<name>_sum` of a summary,
/// the name itself of a gauge or a counter.
fn exported(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let Some(declaration) = line.strip_prefix("# TYPE ") else { continue };
        let (name, kind) = declaration.split_once(' ').expect("# TYPE <name> <kind>");
        match kind {
            "summary" => {
                names.insert(format!("{name}_count"));
                names.insert(format!("{name}_sum"));
            }
            _ => {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// Metric names in the PromQL expressions of every panel: identifiers with an underscore outside
/// quoted label values that are not Grafana's `$__` variables.
fn queried(dashboard: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("a PromQL expression");
            // Quoted label values are not metric names.
            let unquoted: String = expr.split('"').step_by(2).collect::<Vec<_>>().join(" ");
            for word in unquoted.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if word.contains('_') && !word.starts_with("__") {
                    names.insert(word.to_string());
                }
            }
        }
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grafana_dashboard_queries_only_metrics_the_gateway_exports() {
    let api = crate::support::Api::embedded().await;
    api.call("GET", "/api/v1/articles", None, None).await;
    api.admin_token().await;
    let request = Request::get("/actuator/prometheus").body(Body::empty()).unwrap();
    let response = local_gateway::app(api.ctx.clone())
        .expect("every area has its ports")
        .oneshot(request)
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let exported = exported(std::str::from_utf8(&bytes).unwrap());
    assert!(exported.contains("http_server_requests_seconds_count"), "{exported:?}");

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../grafana/blog-gateway.json");
    let dashboard: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let queried = queried(&dashboard);
    assert!(queried.len() >= 8, "{queried:?}");
    let unknown: Vec<_> = queried.difference(&exported).collect();
    assert!(unknown.is_empty(), "queried but not exported: {unknown:?} (exported: {exported:?})");
}
