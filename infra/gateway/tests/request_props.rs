//! Property tests of request parsing through the gateway's router, in-process on the embedded
//! adapters: arbitrary bytes, arbitrary JSON and JSON shaped like each endpoint's body (its
//! field names with values of any type and size), arbitrary query strings and path segments.
//! Whatever comes in, the answer is never a 5xx and never a panic, and it is a JSON body in the
//! envelope of the endpoint's area (or the gateway's JSON 404 for a path nothing serves).

#[path = "support/mod.rs"]
mod support;

use axum::{body::Body, http::Request, Router};
use http_body_util::BodyExt;
use proptest::{
    prelude::*,
    sample::select,
    test_runner::{Config, TestCaseError, TestRunner},
};
use serde_json::{json, Map, Value};
use tower::ServiceExt;

use support::Api;
use Caller::*;
use Family::*;

/// The four envelope families of the API.
#[derive(Clone, Copy, Debug)]
enum Family {
    Account,
    Articles,
    Taxonomy,
    Files,
}

/// Whose token a request carries.
#[derive(Clone, Copy, Debug)]
enum Caller {
    Anonymous,
    User,
    Admin,
}

/// One route under test; `{id}` in `path` is replaced by a fixture id of the route's area.
#[derive(Debug)]
struct Endpoint {
    method: &'static str,
    path: &'static str,
    family: Family,
    caller: Caller,
    /// Body field names or query parameter names the route reads.
    names: &'static [&'static str],
}

const fn endpoint(
    method: &'static str,
    path: &'static str,
    family: Family,
    caller: Caller,
    names: &'static [&'static str],
) -> Endpoint {
    Endpoint { method, path, family, caller, names }
}

const ARTICLE_FIELDS: &[&str] = &[
    "title",
    "content",
    "summary",
    "coverImage",
    "categoryId",
    "tagIds",
    "isTop",
    "isFeatured",
    "isCommentDisabled",
    "version",
];
const TAXONOMY_FIELDS: &[&str] =
    &["name", "slug", "description", "parentId", "sortOrder", "color", "icon"];
const ACCOUNT_FIELDS: &[&str] =
    &["username", "password", "email", "nickname", "avatar", "status", "roles"];
const FILE_FIELDS: &[&str] = &["fileName", "fileSize", "fileType", "md5"];

/// Routes that read a JSON body.
const BODY_ROUTES: &[Endpoint] = &[
    endpoint("POST", "/api/v1/auth/register", Account, Anonymous, ACCOUNT_FIELDS),
    endpoint("POST", "/api/v1/auth/login", Account, Anonymous, ACCOUNT_FIELDS),
    endpoint("PUT", "/api/v1/users/me", Account, User, ACCOUNT_FIELDS),
    endpoint("PUT", "/api/v1/users/{id}", Account, Admin, ACCOUNT_FIELDS),
    endpoint("POST", "/api/v1/admin/categories", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("PUT", "/api/v1/admin/categories/{id}", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("POST", "/api/v1/admin/tags", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("PUT", "/api/v1/admin/tags/{id}", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("POST", "/api/v1/admin/articles", Articles, Admin, ARTICLE_FIELDS),
    endpoint("PUT", "/api/v1/admin/articles/{id}", Articles, Admin, ARTICLE_FIELDS),
    endpoint("POST", "/api/v1/files/presigned", Files, User, FILE_FIELDS),
];

const LIST_PARAMS: &[&str] = &["page", "current", "size", "categoryId", "tagId", "keyword"];

/// Routes that read query parameters.
const QUERY_ROUTES: &[Endpoint] = &[
    endpoint("GET", "/api/v1/articles", Articles, Anonymous, LIST_PARAMS),
    endpoint("GET", "/api/v1/admin/articles", Articles, Admin, &["status", "page", "size"]),
    endpoint("GET", "/api/v1/articles/{id}/related", Articles, Anonymous, &["limit"]),
    endpoint("GET", "/api/v1/tags", Taxonomy, Anonymous, &["orderBy", "limit"]),
    endpoint("GET", "/api/v1/tags/hot", Taxonomy, Anonymous, &["limit"]),
    endpoint("GET", "/api/v1/categories/tree", Taxonomy, Anonymous, &["depth"]),
    endpoint("GET", "/api/v1/files/{id}/access-url", Files, User, &["expireMinutes"]),
    endpoint("GET", "/api/v1/users/me", Account, User, &["id"]),
];

/// Routes with one path segment (`{id}` is the fuzzed segment here).
const PATH_ROUTES: &[Endpoint] = &[
    endpoint("GET", "/api/v1/articles/{id}", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/articles/{id}/related", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/admin/articles/{id}", Articles, Admin, &[]),
    endpoint("PUT", "/api/v1/admin/articles/{id}/archive", Articles, Admin, &[]),
    endpoint("GET", "/api/v1/categories/slug/{id}", Taxonomy, Anonymous, &[]),
    endpoint("GET", "/api/v1/tags/slug/{id}", Taxonomy, Anonymous, &[]),
    endpoint("DELETE", "/api/v1/admin/tags/{id}", Taxonomy, Admin, &[]),
    endpoint("GET", "/api/v1/users/{id}", Account, Admin, &[]),
    endpoint("GET", "/api/v1/files/{id}", Files, User, &[]),
    endpoint("PATCH", "/api/v1/files/{id}/confirm", Files, User, &[]),
];

/// The API with data to point at: accounts, a published article with a category and a tag, a
/// pending file.
struct Fixture {
    api: Api,
    router: Router,
    admin: String,
    user: String,
    victim: String,
    article: String,
    category: String,
    tag: String,
    file: String,
}

impl Fixture {
    async fn new() -> Fixture {
        let api = Api::embedded().await;
        let admin = api.admin_token().await;
        let (_, user) = api.user("fuzzer").await;
        let victim = api.register("victim").await.body["data"]["id"].to_string();
        let mut ids = vec![];
        for (kind, name) in [("categories", "fuzzed"), ("tags", "fuzzed")] {
            let body = json!({"name": name, "slug": name});
            let reply =
                api.call("POST", &format!("/api/v1/admin/{kind}"), Some(&admin), Some(body)).await;
            ids.push(reply.body["data"]["id"].as_str().unwrap().to_string());
        }
        let body =
            json!({"title": "Target", "content": "x", "categoryId": ids[0], "tagIds": [ids[1]]});
        let reply = api.call("POST", "/api/v1/admin/articles", Some(&admin), Some(body)).await;
        let article = reply.body["data"].as_str().unwrap().to_string();
        let publish = format!("/api/v1/admin/articles/{article}/publish");
        assert_eq!(api.call("PUT", &publish, Some(&admin), None).await.status, 200);
        let body = json!({"fileName": "a.png", "fileSize": 10, "fileType": "image/png"});
        let reply = api.call("POST", "/api/v1/files/presigned", Some(&user), Some(body)).await;
        let file = reply.body["data"]["fileId"].as_str().unwrap().to_string();
        let router = local_gateway::app(api.ctx.clone());
        let (category, tag) = (ids[0].clone(), ids[1].clone());
        Fixture { api, router, admin, user, victim, article, category, tag, file }
    }

    /// The route's path with the fixture id of its area.
    fn path(&self, route: &Endpoint) -> String {
        let id = match route.path {
            p if p.starts_with("/api/v1/users") => &self.victim,
            p if p.contains("categories") => &self.category,
            p if p.contains("tags") => &self.tag,
            p if p.contains("files") => &self.file,
            _ => &self.article,
        };
        route.path.replace("{id}", id)
    }

    async fn send(
        &self,
        route: &Endpoint,
        uri: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<(), TestCaseError> {
        let mut request = Request::builder().method(route.method).uri(uri);
        let token = match route.caller {
            Anonymous => None,
            User => Some(&self.user),
            Admin => Some(&self.admin),
        };
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let request =
            request.body(Body::from(body)).map_err(|e| TestCaseError::reject(e.to_string()))?;
        let response = self.router.clone().oneshot(request).await.expect("the router answers");
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        let body: Value = serde_json::from_slice(&bytes)
            .map_err(|_| TestCaseError::fail(format!("{status}, not JSON: {text}")))?;
        envelope(route.family, status, &body).map_err(|why| {
            TestCaseError::fail(format!("{} {uri} -> {status} {body}: {why}", route.method))
        })
    }
}

/// Checks an answer against its area's envelope: `Err` names what is wrong.
fn envelope(family: Family, status: u16, body: &Value) -> Result<(), String> {
    if status >= 500 {
        return Err("a server error".into());
    }
    let message = body["message"].as_str().ok_or("no message")?;
    if status == 404 && body == &json!({"code": 404, "message": "no such endpoint", "data": null}) {
        return Ok(());
    }
    let code = &body["code"];
    let ok = status == 200;
    let well_formed = match family {
        Account => *code == if ok { json!(0) } else { json!(status) },
        Articles => {
            *code == json!(status)
                && (ok || body["errorCode"].as_str().is_some_and(|c| !c.is_empty()))
        }
        Taxonomy => *code == json!(status.to_string()),
        Files => {
            body["timestamp"].is_i64()
                && if ok { *code == json!(0) } else { code.as_u64().is_some_and(|c| c >= 10001) }
        }
    };
    if !well_formed {
        return Err(format!("not the {family:?} envelope"));
    }
    if !ok && (message.is_empty() || !body["data"].is_null()) {
        return Err("an error without a message or with data".into());
    }
    Ok(())
}

/// JSON values of every type, including the awkward ones (huge and negative numbers, numeric
/// strings, control characters, deep nesting).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        select(vec![
            0i64,
            1,
            -1,
            2,
            100,
            101,
            9_007_199_254_740_991,
            9_007_199_254_740_992,
            i64::MIN
        ])
        .prop_map(Value::from),
        select(vec![
            "",
            " ",
            "1",
            "-1",
            "0",
            "1e3",
            "image/png",
            "a.png",
            "#FFF",
            "https://x.test",
            "x@y.z"
        ])
        .prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        (1usize..3000).prop_map(|n| Value::from("é".repeat(n))),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A JSON object with some of `fields`, each holding any value.
fn shaped(fields: &'static [&'static str]) -> impl Strategy<Value = Value> {
    prop::collection::vec((select(fields), json_value()), 0..8).prop_map(|pairs| {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())
    })
}

/// Request bodies: shaped objects, any JSON, cut-off JSON, any bytes.
fn body(fields: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => shaped(fields).prop_map(|v| v.to_string().into_bytes()),
        2 => json_value().prop_map(|v| v.to_string().into_bytes()),
        1 => (shaped(fields), any::<prop::sample::Index>()).prop_map(|(v, cut)| {
            let text = v.to_string().into_bytes();
            text[..cut.index(text.len() + 1)].to_vec()
        }),
        2 => prop::collection::vec(any::<u8>(), 0..300),
    ]
}

fn content_type() -> impl Strategy<Value = Option<&'static str>> {
    select(vec![
        None,
        Some("application/json"),
        Some("text/plain"),
        Some("application/json; charset=utf-16"),
        Some("multipart/form-data; boundary=x"),
    ])
}

/// Percent-encodes every byte but the unreserved ones.
fn encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Values for query parameters and path segments (raw bytes, percent-encoded later).
fn raw_value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        select(vec![
            "",
            "0",
            "1",
            "-1",
            "+1",
            "1.5",
            "1e3",
            "abc",
            "100",
            "101",
            "9007199254740991",
            "9007199254740992",
            "18446744073709551616",
            " 1",
            "0x10",
            "name",
            "article_count",
            "create_time",
            "..",
            ".",
            "\u{0}",
            "中文",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        "\\PC{0,30}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..40),
    ]
}

/// Query strings: known and unknown parameters, repeated ones, and raw junk that is still a
/// valid URI.
fn query(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    let name = prop_oneof![select(names).prop_map(|n| n.as_bytes().to_vec()), raw_value()];
    let pairs = prop::collection::vec((name, raw_value()), 0..5).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    });
    prop_oneof![4 => pairs, 1 => "[A-Za-z0-9&=%+;/?:@!$'()*,~._-]{0,40}"]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

#[test]
fn any_json_body_gets_an_enveloped_answer_and_never_a_server_error() {
    let rt = runtime();
    let fixture = rt.block_on(Fixture::new());
    let cases = (0..BODY_ROUTES.len())
        .prop_flat_map(|i| (Just(i), body(BODY_ROUTES[i].names), content_type()));
    let result = runner(600).run(&cases, |(i, body, content_type)| {
        let route = &BODY_ROUTES[i];
        rt.block_on(fixture.send(route, &fixture.path(route), content_type, body))
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let still = rt.block_on(fixture.api.call("GET", "/api/v1/categories", None, None));
    assert_eq!(still.status, 200, "the API still serves after the run");
}

#[test]
fn any_query_string_gets_an_enveloped_answer_and_never_a_server_error() {
    let rt = runtime();
    let fixture = rt.block_on(Fixture::new());
    let cases = (0..QUERY_ROUTES.len()).prop_flat_map(|i| (Just(i), query(QUERY_ROUTES[i].names)));
    let result = runner(500).run(&cases, |(i, query)| {
        let route = &QUERY_ROUTES[i];
        let uri = format!("{}?{query}", fixture.path(route));
        rt.block_on(fixture.send(route, &uri, None, Vec::new()))
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

#[test]
fn any_path_segment_gets_an_enveloped_answer_and_never_a_server_error() {
    let rt = runtime();
    let fixture = rt.block_on(Fixture::new());
    let cases = (0..PATH_ROUTES.len(), raw_value(), any::<bool>());
    let result = runner(500).run(&cases, |(i, segment, encoded)| {
        let route = &PATH_ROUTES[i];
        // Raw segments only when they are valid in a URI as they stand.
        let segment = match String::from_utf8(segment) {
            Ok(text)
                if !encoded
                    && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)) =>
            {
                text
            }
            Ok(text) => encode(text.as_bytes()),
            Err(bytes) => encode(bytes.as_bytes()),
        };
        let uri = route.path.replace("{id}", &segment);
        rt.block_on(fixture.send(route, &uri, None, Vec::new()))
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
