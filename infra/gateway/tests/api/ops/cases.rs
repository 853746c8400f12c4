use serde_json::{json, Value};

use crate::{ops::instances::Instance, support::Api};

fn measurement(body: &Value, statistic: &str) -> f64 {
    body["measurements"]
        .as_array()
        .and_then(|all| all.iter().find(|m| m["statistic"] == statistic))
        .and_then(|m| m["value"].as_f64())
        .unwrap_or_else(|| panic!("no {statistic} in {body}"))
}

fn tag_values(body: &Value, tag: &str) -> Vec<String> {
    body["availableTags"]
        .as_array()
        .and_then(|tags| tags.iter().find(|t| t["tag"] == tag))
        .map(|t| {
            t["values"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().into()).collect()
        })
        .unwrap_or_default()
}

pub async fn health_reports_the_table_storage_queue_and_disk_up(api: Api) {
    let health = api.actuator("/actuator/health").await;
    assert_eq!(health.status, 200, "{:?}", health.body);
    assert_eq!(health.body["status"], "UP");
    for component in ["db", "diskSpace", "storage", "queue"] {
        assert_eq!(
            health.body["components"][component]["status"], "UP",
            "{component}: {:?}",
            health.body
        );
    }
    let disk = &health.body["components"]["diskSpace"]["details"];
    match api.actuator_token() {
        Some(_) => assert!(disk["free"].as_u64().unwrap() >= disk["threshold"].as_u64().unwrap()),
        None => assert_no_details(&health.body),
    }
    for probe in ["liveness", "readiness"] {
        let reply = api.actuator(&format!("/actuator/health/{probe}")).await;
        assert_eq!((reply.status, reply.body.clone()), (200, json!({"status": "UP"})), "{probe}");
    }
}

pub async fn one_health_component_answers_alone_and_an_unknown_one_is_404(api: Api) {
    let whole = api.actuator("/actuator/health").await.body;
    for name in ["db", "diskSpace", "storage", "queue"] {
        let reply = api.actuator(&format!("/actuator/health/{name}")).await;
        assert_eq!(reply.status, 200, "{name}: {:?}", reply.body);
        assert_eq!(reply.body["status"], "UP", "{name}");
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&reply.body), keys(&whole["components"][name]), "{name}: same shape");
    }
    let unknown = api.actuator("/actuator/health/mail").await;
    assert_eq!((unknown.status, unknown.body["status"].clone()), (404, json!(404)));
    assert!(unknown.body["message"].as_str().unwrap().contains("mail"), "{:?}", unknown.body);
}

/// An anonymous health report: statuses, and no paths, table or bucket names, or sizes.
pub fn assert_no_details(health: &Value) {
    for (name, component) in health["components"].as_object().expect("components") {
        let keys: Vec<&String> = component.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["status"], "{name}: {component}");
    }
}

pub async fn health_is_down_with_503_when_the_table_is_unreachable(api: Api) {
    let paths = ["/actuator/health", "/actuator/health/readiness", "/actuator/health/liveness"];
    let mut answers = vec![];
    match api.on_stack() {
        // On the stack, DynamoDB stops answering every function (the calls get 503s).
        Some(stack) => {
            stack.recorder().set_outage("*", "dynamodb", true);
            for path in paths {
                let reply = api.actuator(path).await;
                answers.push((reply.status, reply.body));
            }
        }
        None => {
            let broken = Instance::with_unreachable_table(&api).await;
            for path in paths {
                let answer = broken.get(path, None).await;
                answers.push((answer.status, answer.json()));
            }
        }
    }
    let (status, health) = &answers[0];
    assert_eq!(*status, 503);
    assert_eq!(health["status"], "DOWN");
    assert_eq!(health["components"]["db"]["status"], "DOWN");
    assert_eq!(health["components"]["diskSpace"]["status"], "UP");
    assert_eq!(answers[1], (503, json!({"status": "OUT_OF_SERVICE"})));
    assert_eq!(answers[2], (200, json!({"status": "UP"})));
}

pub async fn info_names_the_build_and_its_commit(api: Api) {
    let info = api.actuator("/actuator/info").await;
    assert_eq!(info.status, 200);
    assert_eq!(info.body["app"]["name"], "blog");
    assert_eq!(info.body["app"]["version"], env!("CARGO_PKG_VERSION"));
    let commit = info.body["git"]["commit"]["fullId"].as_str().unwrap();
    assert!(commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{commit}");
    assert_eq!(info.body["git"]["commit"]["id"], &commit[..7]);
    let built = info.body["build"]["time"].as_str().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(built).is_ok(), "{built}");
}

pub async fn requests_are_measured_per_route_template_status_and_outcome(mut api: Api) {
    api.set_parameter("MetricsExportSeconds", "1").await;
    for id in [999_998, 999_999] {
        assert_eq!(
            api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await.status,
            404
        );
    }
    assert_eq!(api.call("GET", "/api/v1/categories/tree", None, None).await.status, 200);
    let long = "X".repeat(100);
    for method in ["BREW", "PROPFIND", long.as_str()] {
        let reply = api.call(method, "/api/v1/categories/tree", None, None).await;
        assert!(reply.status >= 400, "{method}: {}", reply.status);
    }
    api.wait_for_exports().await;
    let methods =
        tag_values(&api.actuator("/actuator/metrics/http.server.requests").await.body, "method");
    if api.on_stack().is_none() {
        // In one process the route answers 405 and counts it; API Gateway sends a method no
        // route names to `$default`, whose unmatched paths are not measured.
        assert!(methods.contains(&"OTHER".to_string()), "{methods:?}");
    }
    let standard = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "OTHER"];
    assert!(
        methods.iter().all(|m| standard.contains(&m.as_str())),
        "one series for the rest: {methods:?}"
    );
    let path = "/actuator/metrics/http.server.requests?tag=uri:/api/v1/articles/%7Bid%7D";
    let detail = api.actuator(path).await;
    assert_eq!(detail.status, 200, "{:?}", detail.body);
    assert_eq!(detail.body["name"], "http.server.requests");
    assert_eq!(detail.body["baseUnit"], "seconds");
    assert_eq!(measurement(&detail.body, "COUNT"), 2.0);
    assert!(measurement(&detail.body, "TOTAL_TIME") > 0.0);
    assert!(measurement(&detail.body, "MAX") > 0.0);
    assert_eq!(tag_values(&detail.body, "status"), ["404"]);
    assert_eq!(tag_values(&detail.body, "outcome"), ["CLIENT_ERROR"]);
    assert_eq!(tag_values(&detail.body, "method"), ["GET"]);
    assert!(tag_values(&detail.body, "uri").is_empty(), "the filtered tag is not offered again");
    let all = api.actuator("/actuator/metrics/http.server.requests").await;
    let uris = tag_values(&all.body, "uri");
    assert!(uris.contains(&"/api/v1/categories/tree".to_string()), "{uris:?}");
    let both =
        "/actuator/metrics/http.server.requests?tag=uri:/api/v1/categories/tree&tag=status:200";
    assert_eq!(measurement(&api.actuator(both).await.body, "COUNT"), 1.0);
}

pub async fn every_metric_name_of_the_spec_answers_and_others_are_404(api: Api) {
    let names = api.actuator("/actuator/metrics").await;
    assert_eq!(names.status, 200);
    let names: Vec<&str> =
        names.body["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let spec = [
        "jvm.memory.used",
        "jvm.threads.live",
        "http.server.requests",
        "jdbc.connections.active",
        "system.cpu.usage",
    ];
    for name in spec {
        assert!(names.contains(&name), "{name} listed");
        let reply = api.actuator(&format!("/actuator/metrics/{name}")).await;
        assert_eq!(reply.status, 200, "{name}: {:?}", reply.body);
        assert!(!reply.body["description"].as_str().unwrap().is_empty());
        assert!(!reply.body["measurements"].as_array().unwrap().is_empty(), "{name}");
    }
    let memory = api.actuator("/actuator/metrics/jvm.memory.used").await;
    assert!(measurement(&memory.body, "VALUE") > 1e6, "resident memory is megabytes");
    let threads = api.actuator("/actuator/metrics/jvm.threads.live").await;
    assert!(measurement(&threads.body, "VALUE") >= 1.0);
    let unknown = api.actuator("/actuator/metrics/jvm.gc.pause").await;
    assert_eq!((unknown.status, unknown.body["status"].clone()), (404, json!(404)));
    let bad = api.actuator("/actuator/metrics/http.server.requests?tag=uri").await;
    assert_eq!((bad.status, bad.body["error"].clone()), (400, json!("Bad Request")));
    let none = "/actuator/metrics/http.server.requests?tag=method:BREW";
    assert_eq!(api.actuator(none).await.status, 404);
}

pub async fn prometheus_text_carries_the_request_series_and_the_process_gauges(mut api: Api) {
    api.set_parameter("MetricsExportSeconds", "1").await;
    assert_eq!(api.call("GET", "/api/v1/categories/tree", None, None).await.status, 200);
    api.wait_for_exports().await;
    let scrape = api.text("/actuator/prometheus").await;
    assert_eq!(scrape.status, 200);
    assert_eq!(scrape.content_type, "text/plain; version=0.0.4; charset=utf-8");
    let text = String::from_utf8(scrape.body).unwrap();
    let line = text
        .lines()
        .find(|line| {
            line.starts_with("http_server_requests_seconds_count{")
                && line.contains("uri=\"/api/v1/categories/tree\"")
        })
        .unwrap_or_else(|| panic!("no request series in\n{text}"));
    assert!(
        line.contains("method=\"GET\"") && line.contains("status=\"200\"") && line.ends_with(" 1"),
        "{line}"
    );
    for family in [
        "# TYPE http_server_requests_seconds summary",
        "# TYPE jvm_memory_used_bytes gauge",
        "# TYPE blog_table_calls_seconds summary",
    ] {
        assert!(text.contains(family), "{family} in\n{text}");
    }
}

pub async fn a_logger_level_set_through_the_actuator_is_stored_and_effective(api: Api) {
    let set = api
        .call(
            "POST",
            "/actuator/loggers/blog_articles",
            api.actuator_token(),
            Some(json!({"configuredLevel": "DEBUG"})),
        )
        .await;
    assert_eq!(set.status, 204, "{:?}", set.body);
    let logger = api.actuator("/actuator/loggers/blog_articles").await;
    assert_eq!(logger.body, json!({"configuredLevel": "DEBUG", "effectiveLevel": "DEBUG"}));
    let child = api.actuator("/actuator/loggers/blog_articles::worker").await;
    assert_eq!(child.body, json!({"configuredLevel": null, "effectiveLevel": "DEBUG"}));
    let other = api.actuator("/actuator/loggers/blog_auth").await;
    assert_eq!(other.body, json!({"configuredLevel": null, "effectiveLevel": "INFO"}));
    let all = api.actuator("/actuator/loggers").await;
    assert_eq!(all.body["levels"], json!(["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"]));
    assert_eq!(all.body["loggers"]["blog_articles"]["configuredLevel"], "DEBUG");
    assert_eq!(all.body["loggers"]["ROOT"]["effectiveLevel"], "INFO");
    let reset = api
        .call(
            "POST",
            "/actuator/loggers/blog_articles",
            api.actuator_token(),
            Some(json!({"configuredLevel": null})),
        )
        .await;
    assert_eq!(reset.status, 204);
    let logger = api.actuator("/actuator/loggers/blog_articles").await;
    assert_eq!(logger.body, json!({"configuredLevel": null, "effectiveLevel": "INFO"}));
}

pub async fn bad_logger_names_and_levels_are_400(api: Api) {
    let cases = [
        ("/actuator/loggers/blog_api", Some(json!({"configuredLevel": "LOUD"}))),
        ("/actuator/loggers/blog_api", Some(json!({"configuredLevel": 3}))),
        ("/actuator/loggers/blog_api", Some(json!({"level": "DEBUG"}))),
        ("/actuator/loggers/bad%20name", Some(json!({"configuredLevel": "DEBUG"}))),
        ("/actuator/loggers/a..b", Some(json!({"configuredLevel": "DEBUG"}))),
        ("/actuator/loggers/junk1", Some(json!({"configuredLevel": "DEBUG"}))),
        ("/actuator/loggers/blog_api.nothing", Some(json!({"configuredLevel": "DEBUG"}))),
    ];
    for (path, body) in cases {
        let reply = api.call("POST", path, api.actuator_token(), body.clone()).await;
        assert_eq!(reply.status, 400, "{path} {body:?}: {:?}", reply.body);
        assert_eq!(reply.body["status"], 400);
        assert!(!reply.body["message"].as_str().unwrap().is_empty());
    }
    let bearer = api.actuator_token().map(|token| format!("Bearer {token}"));
    let mut headers = vec![("content-type", "application/json")];
    headers.extend(bearer.as_deref().map(|bearer| ("authorization", bearer)));
    let malformed = api.raw("POST", "/actuator/loggers/blog_api", &headers, Some("{".into())).await;
    assert_eq!(malformed.status, 400);
}

async fn set_level(api: &Api, name: &str, level: Value) -> crate::support::Reply {
    let path = format!("/actuator/loggers/{name}");
    let body = json!({ "configuredLevel": level });
    api.call("POST", &path, api.actuator_token(), Some(body)).await
}

pub async fn at_most_32_loggers_have_levels_at_once(api: Api) {
    let set = |name: &'static str, level: Value| set_level(&api, name, level);
    let names: Vec<&str> = blog_api::telemetry::targets::MODULES.iter().copied().take(33).collect();
    for name in &names[..32] {
        assert_eq!(set(name, json!("DEBUG")).await.status, 204, "{name}");
    }
    let refused = set(names[32], json!("DEBUG")).await;
    assert_eq!(refused.status, 400, "{:?}", refused.body);
    assert!(refused.body["message"].as_str().unwrap().contains("32"), "{:?}", refused.body);
    assert_eq!(set(names[0], json!("TRACE")).await.status, 204, "changing a level is no new one");
    assert_eq!(set(names[1], Value::Null).await.status, 204);
    assert_eq!(set(names[32], json!("DEBUG")).await.status, 204, "room again");
}
