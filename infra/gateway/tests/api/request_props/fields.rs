//! Every field of every JSON body, given a value of the wrong type, is named in the answer: the
//! fields and their types are read from the committed API description (docs/openapi.json).

use serde_json::{json, Map, Value};

use super::{routes::routes, Fixture};

/// The properties of the schema `schema` points at, with those of its `allOf`, `oneOf` and
/// `anyOf` parts merged (an optional body is `oneOf` null and its object).
pub fn properties(spec: &Value, schema: &Value) -> Map<String, Value> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        return properties(spec, &spec["components"]["schemas"][name]);
    }
    let mut merged = schema["properties"].as_object().cloned().unwrap_or_default();
    let parts = ["allOf", "oneOf", "anyOf"].map(|key| schema[key].as_array());
    for part in parts.into_iter().flatten().flatten() {
        merged.extend(properties(spec, part));
    }
    merged
}

/// Whether `property` takes a JSON object (then an object is no wrong type for it).
fn takes_objects(property: &Value) -> bool {
    let types = |schema: &Value| match &schema["type"] {
        Value::String(one) => vec![one.clone()],
        Value::Array(many) => many.iter().filter_map(|t| t.as_str().map(String::from)).collect(),
        _ => vec!["object".into()],
    };
    let alternatives: Vec<&Value> =
        ["oneOf", "anyOf"].iter().filter_map(|key| property[*key].as_array()).flatten().collect();
    match alternatives.is_empty() {
        true => types(property).iter().any(|t| t == "object"),
        false => {
            alternatives.iter().any(|alternative| types(alternative).iter().any(|t| t == "object"))
        }
    }
}

/// A body `route` takes, so that the one wrong field is the only thing wrong with it.
fn valid_body(route: &super::routes::Endpoint) -> Value {
    match route.template.as_str() {
        "/api/v1/auth/register" => {
            json!({"username": "typed_1", "password": "Passw0rd1", "email": "t1@example.com"})
        }
        "/api/v1/auth/login" => json!({"username": "typed_1", "password": "Passw0rd1"}),
        "/api/v1/comments" => json!({"content": "c", "targetType": "ARTICLE", "targetId": "1"}),
        "/api/v1/comments/reply" => {
            json!({"content": "c", "targetType": "ARTICLE", "targetId": "1", "parentId": "1"})
        }
        "/api/v1/comments/{id}" => json!({"content": "c"}),
        "/api/v1/comments/{id}/report" => json!({"reason": "SPAM"}),
        p if p.contains("categories") || p.contains("tags") => json!({"name": "n", "slug": "n-1"}),
        p if p.contains("articles") => json!({"title": "t", "content": "c"}),
        p if p.contains("files") => {
            json!({"fileName": "a.png", "fileSize": 10, "fileType": "image/png"})
        }
        _ => json!({}),
    }
}

/// Sends a valid body with one field of the wrong type (`{"unexpected": true}`) to every body
/// route for each of its fields: each answer is a 400 whose message names the field.
pub async fn wrong_types_are_named(fixture: &Fixture) {
    let path = crate::support::stack::workspace().join("docs/openapi.json");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut checked = 0;
    for route in &routes().body {
        let operation = &spec["paths"][&route.template][route.method.to_lowercase()];
        let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
        let fields = properties(&spec, schema);
        assert!(
            !fields.is_empty(),
            "{} {}: no body fields described",
            route.method,
            route.template
        );
        for field in fields.iter().filter(|(_, p)| !takes_objects(p)).map(|(f, _)| f) {
            let mut body = valid_body(route);
            body[field.as_str()] = json!({"unexpected": true});
            let (status, answer) = fixture.send_json(route, body).await;
            let message = answer["message"].as_str().unwrap_or_default();
            assert_eq!(status, 400, "{} {} {field}: {answer}", route.method, route.template);
            assert!(
                message.contains(field.as_str()),
                "{} {} names `{field}`: {message}",
                route.method,
                route.template
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "every field of every body ({checked})");
}
