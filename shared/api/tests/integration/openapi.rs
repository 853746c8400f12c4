//! docs/openapi.json is the committed, pretty-printed output of `blog_api::openapi::document()`;
//! these tests fail when the two drift apart, and check the rules every operation follows.
//!
//! Regenerate the file with `make openapi` (`BLOG_WRITE_OPENAPI=1 cargo test -p blog-api
//! --test integration -- openapi::the_committed_description`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

fn generated() -> String {
    let mut json = blog_api::openapi::document().to_pretty_json().expect("serialises");
    json.push('\n');
    json
}

fn document() -> Value {
    serde_json::from_str(&generated()).expect("valid JSON")
}

/// Every operation of the document: (method, path, operation).
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                found.push((method.to_string(), path.clone(), operation.clone()));
            }
        }
    }
    found
}

fn statuses(operation: &Value) -> BTreeSet<String> {
    operation["responses"].as_object().expect("responses").keys().cloned().collect()
}

#[test]
fn the_committed_description_is_the_generated_one() {
    let generated = generated();
    if std::env::var_os("BLOG_WRITE_OPENAPI").is_some() {
        std::fs::write(COMMITTED, &generated).expect("docs/openapi.json is writable");
        return;
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    if committed != generated {
        let line = committed.lines().zip(generated.lines()).position(|(a, b)| a != b);
        let line = line.unwrap_or(committed.lines().count().min(generated.lines().count()));
        panic!(
            "docs/openapi.json differs from the description the code generates (first at line \
             {}). Regenerate it with `make openapi` and commit it.",
            line + 1
        );
    }
}

#[test]
fn the_document_is_openapi_3_1_titled_blog_api_with_the_bearer_scheme() {
    let document = document();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["title"], "Blog API");
    assert_eq!(document["info"]["version"], env!("CARGO_PKG_VERSION"));
    let bearer = &document["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!((&bearer["type"], &bearer["scheme"]), (&"http".into(), &"bearer".into()));
    assert_eq!(bearer["bearerFormat"], "JWT");
}

#[test]
fn operation_ids_are_unique_and_every_operation_is_tagged() {
    let document = document();
    let mut seen = BTreeMap::new();
    for (method, path, operation) in operations(&document) {
        let id = operation["operationId"].as_str().expect("operationId").to_string();
        if let Some(other) = seen.insert(id.clone(), format!("{method} {path}")) {
            panic!("operationId `{id}` of {method} {path} is also {other}'s");
        }
        let tags = operation["tags"].as_array().expect("tags");
        assert!(!tags.is_empty(), "{method} {path} has no tag");
    }
}

#[test]
fn exactly_the_operations_that_document_401_require_a_token() {
    for (method, path, operation) in operations(&document()) {
        let secured = operation["security"].as_array().is_some_and(|schemes| !schemes.is_empty());
        let answers_401 = statuses(&operation).contains("401");
        let login = path == "/api/v1/auth/login";
        assert_eq!(secured, answers_401 && !login, "{method} {path}");
        if path.starts_with("/api/v1/") && secured {
            let schemes = operation["security"].as_array().expect("security");
            assert!(schemes.iter().any(|s| s.get("bearerAuth").is_some()), "{method} {path}");
        }
    }
}

/// The XML documents of the API: the feeds and the sitemap, by path prefix.
const XML_ANSWERS: [(&str, &str); 3] = [
    ("/api/v1/feeds/", "+xml; charset=utf-8"),
    ("/api/v1/sitemap.xml", "application/xml; charset=utf-8"),
    ("/api/v1/sitemaps/", "application/xml; charset=utf-8"),
];

/// `response` itself, or the shared response of `#/components/responses` it refers to.
fn resolved<'a>(document: &'a Value, response: &'a Value) -> &'a Value {
    match response["$ref"].as_str() {
        Some(reference) => {
            let name = reference.strip_prefix("#/components/responses/").expect("a response");
            let shared = &document["components"]["responses"][name];
            assert!(shared.is_object(), "{reference} is not declared");
            shared
        }
        None => response,
    }
}

#[test]
fn every_api_answer_with_a_body_is_json_in_an_envelope_with_code_message_and_data() {
    let document = document();
    for (method, path, operation) in operations(&document) {
        if !path.starts_with("/api/v1/") {
            continue;
        }
        for (status, response) in operation["responses"].as_object().expect("responses") {
            let response = resolved(&document, response);
            if status == "304" {
                // Not Modified (a cached public read): no body at all.
                assert!(response.get("content").is_none(), "{method} {path} 304 has a body");
                continue;
            }
            let xml = XML_ANSWERS.iter().find(|(prefix, _)| path.starts_with(prefix));
            if let (Some((_, kind)), true) = (xml, status.starts_with('2')) {
                // A feed or sitemap document: one XML content type, a string; errors below.
                let content = response["content"].as_object().expect("content");
                assert_eq!(content.len(), 1, "{method} {path} {status}");
                let (name, media) = content.iter().next().expect("a content type");
                assert!(name.ends_with(kind), "{method} {path} {status}: {name}");
                assert_eq!(media["schema"]["type"], "string", "{method} {path} {status}");
                continue;
            }
            let schema = &response["content"]["application/json"]["schema"];
            let reference = schema["$ref"].as_str().unwrap_or_default();
            assert!(
                reference.starts_with("#/components/schemas/") && reference.contains("Envelope"),
                "{method} {path} {status}: {schema}"
            );
            let name = reference.trim_start_matches("#/components/schemas/");
            let envelope = &document["components"]["schemas"][name];
            let required = envelope["required"].as_array().expect("required fields");
            for field in ["code", "message", "data"] {
                assert!(required.contains(&field.into()), "{name} lacks {field}");
            }
            let is_error = !status.starts_with('2');
            assert_eq!(name.contains("ErrorEnvelope"), is_error, "{method} {path} {status}");
        }
    }
}

#[test]
fn every_path_parameter_is_declared_and_ids_are_positive_53_bit_integers() {
    for (method, path, operation) in operations(&document()) {
        let declared: BTreeMap<String, Value> = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "path")
            .map(|p| (p["name"].as_str().unwrap_or_default().to_string(), p["schema"].clone()))
            .collect();
        let in_path: BTreeSet<String> = path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
            .map(str::to_string)
            .collect();
        assert_eq!(declared.keys().cloned().collect::<BTreeSet<_>>(), in_path, "{method} {path}");
        if let Some(id) = declared.get("id") {
            assert_eq!((&id["type"], &id["minimum"]), (&"integer".into(), &1.into()));
            assert_eq!(id["maximum"], 9_007_199_254_740_991_u64, "{method} {path}");
        }
    }
}

/// Every `pattern` keyword of the document, with where it is.
fn patterns(value: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                match (key.as_str(), member) {
                    ("pattern", Value::String(pattern)) => {
                        found.push((at.to_string(), pattern.clone()))
                    }
                    _ => patterns(member, &format!("{at}/{key}"), found),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                patterns(item, &format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_pattern_is_an_ecma_262_regular_expression_without_inline_flags() {
    let mut found = Vec::new();
    patterns(&document(), "", &mut found);
    assert!(!found.is_empty());
    for (at, pattern) in found {
        // ECMA-262 (what OpenAPI 3.1 and its validators and fuzzers read) knows `(?:`, `(?=`,
        // `(?!`, `(?<` groups, but no inline flags such as `(?i)`.
        let inline_flag = pattern.match_indices("(?").any(|(index, _)| {
            !matches!(pattern.as_bytes().get(index + 2), Some(b':' | b'=' | b'!' | b'<'))
        });
        assert!(!inline_flag, "{at}: `{pattern}` uses an inline flag, unknown to ECMA-262");
        // The regex crate has no look-around; every other construct used here it shares.
        let look_around = ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| pattern.contains(l));
        assert!(
            look_around || regex::Regex::new(&pattern).is_ok(),
            "{at}: `{pattern}` is no regular expression"
        );
    }
}
