//! The API description against the gateway that serves it. Every documented operation is served
//! (never the gateway's "no such endpoint" 404, never 405) and answers only statuses it
//! documents; every route of the AWS routing table (template.yaml) and of the sample events
//! (events/) is documented, and a documented path serves no undocumented method; the gateway
//! serves the description at /v3/api-docs and Swagger UI at /swagger-ui/ from its own binary.

use std::collections::BTreeSet;

use crate::support::{Api, Reply};
use axum::{body::Body, http::Request, Router};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn document() -> Value {
    serde_json::to_value(blog_api::openapi::document()).expect("the description serialises")
}

/// Every documented operation: (METHOD, path, operation).
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(operation) = item.get(method.to_lowercase()) {
                found.push((method.to_string(), path.clone(), operation.clone()));
            }
        }
    }
    found
}

/// `path` with each parameter replaced by a value of its documented type.
fn concrete(path: &str, operation: &Value) -> String {
    let mut path = path.to_string();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        if parameter["in"] == "path" {
            let name = parameter["name"].as_str().expect("parameter name");
            let value = if parameter["schema"]["type"] == "integer" { "1" } else { "x" };
            path = path.replace(&format!("{{{name}}}"), value);
        }
    }
    assert!(!path.contains('{'), "undeclared path parameter in {path}");
    path
}

fn is_fallback(reply: &Reply) -> bool {
    reply.status == 404
        && reply.body == json!({"code": 404, "message": "no such endpoint", "data": null})
}

async fn call(api: &Api, method: &str, path: &str, token: Option<&str>) -> Reply {
    let bearer = token.map(|token| format!("Bearer {token}"));
    let headers: Vec<(&str, &str)> =
        bearer.iter().map(|value| ("authorization", value.as_str())).collect();
    api.raw(method, path, &headers, None).await
}

#[tokio::test]
async fn every_documented_operation_is_served_and_answers_a_documented_status() {
    let api = Api::embedded().await;
    let admin = api.admin_token().await;
    let document = document();
    let operations = operations(&document);
    assert!(!operations.is_empty());
    for (method, path, operation) in operations {
        let uri = concrete(&path, &operation);
        let documented: BTreeSet<u16> = operation["responses"]
            .as_object()
            .expect("responses")
            .keys()
            .map(|status| status.parse().expect("numeric status"))
            .collect();
        for token in [None, Some(admin.as_str())] {
            let reply = call(&api, &method, &uri, token).await;
            let who = if token.is_some() { "an administrator" } else { "anonymous" };
            assert!(!is_fallback(&reply), "{method} {path} is documented but not served");
            assert_ne!(reply.status, 405, "{method} {path} is documented but not served");
            assert!(
                documented.contains(&reply.status),
                "{method} {uri} as {who} answered {} {}, not among the documented {documented:?}",
                reply.status,
                reply.body
            );
        }
    }
}

/// (METHOD, path) of every route in the SAM template's HTTP API events.
fn template_routes() -> BTreeSet<(String, String)> {
    let template = std::fs::read_to_string(format!("{ROOT}/template.yaml")).expect("template");
    let mut routes = BTreeSet::new();
    let (mut method, mut path) = (None, None);
    for line in template.lines().map(str::trim) {
        if line == "Type: HttpApi" {
            (method, path) = (None, None);
        } else if let Some(value) = line.strip_prefix("Method: ") {
            method = Some(value.trim_matches(['"', '\'']).to_uppercase());
        } else if let Some(value) = line.strip_prefix("Path: ") {
            path = Some(value.trim_matches(['"', '\'']).to_string());
        }
        if let (Some(m), Some(p)) = (&method, &path) {
            routes.insert((m.clone(), p.clone()));
            (method, path) = (None, None);
        }
    }
    routes
}

/// (METHOD, path) of the `routeKey` of every sample event under events/.
fn event_routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    let mut directories = vec![std::path::PathBuf::from(format!("{ROOT}/events"))];
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(&directory).expect("events directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                directories.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).expect("event");
                let event: Value = serde_json::from_str(&text).expect("event JSON");
                if let Some((method, route)) =
                    event["routeKey"].as_str().and_then(|key| key.split_once(' '))
                {
                    routes.insert((method.to_uppercase(), route.to_string()));
                }
            }
        }
    }
    routes
}

#[test]
fn every_route_of_the_routing_table_and_the_sample_events_is_documented() {
    let document = document();
    let documented: BTreeSet<(String, String)> =
        operations(&document).into_iter().map(|(method, path, _)| (method, path)).collect();
    let template = template_routes();
    let events = event_routes();
    assert!(!template.is_empty() && !events.is_empty(), "no routes found");
    for (source, routes) in [("template.yaml", template), ("events/", events)] {
        for (method, path) in routes {
            assert!(
                documented.contains(&(method.clone(), path.clone())),
                "{method} {path} is routed in {source} but not in the API description"
            );
        }
    }
}

#[tokio::test]
async fn a_documented_path_serves_no_undocumented_method() {
    let api = Api::embedded().await;
    let admin = api.admin_token().await;
    let document = document();
    for (path, item) in document["paths"].as_object().expect("paths") {
        let (_, operation) =
            item.as_object().expect("path item").iter().next().expect("an operation");
        let uri = concrete(path, operation);
        for method in METHODS.into_iter().filter(|m| item.get(m.to_lowercase()).is_none()) {
            let reply = call(&api, method, &uri, Some(&admin)).await;
            assert!(
                reply.status == 405 || is_fallback(&reply),
                "{method} {uri} answered {} {} but is not documented",
                reply.status,
                reply.body
            );
        }
    }
}

async fn get(router: &Router, path: &str) -> (u16, String, Vec<u8>) {
    let request = Request::builder().uri(path).body(Body::empty()).expect("request");
    let response = router.clone().oneshot(request).await.expect("answer");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = response.into_body().collect().await.expect("body").to_bytes().to_vec();
    (status, content_type, body)
}

#[tokio::test]
async fn the_gateway_serves_the_description_and_swagger_ui_from_its_binary() {
    let api = Api::embedded().await;
    let router = local_gateway::app(api.ctx.clone()).expect("every area has its ports");

    let (status, content_type, body) = get(&router, "/v3/api-docs").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let served: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(served, document());

    let (status, content_type, page) = get(&router, "/swagger-ui/").await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(String::from_utf8_lossy(&page).contains("swagger-ui"));

    let (status, _, initializer) = get(&router, "/swagger-ui/swagger-initializer.js").await;
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&initializer).contains("/v3/api-docs"));

    let (status, _, bundle) = get(&router, "/swagger-ui/swagger-ui-bundle.js").await;
    assert_eq!(status, 200);
    assert!(bundle.len() > 100_000, "the bundled UI script has {} bytes", bundle.len());
}
