//! The two layers on a small router: one marked read, one marked route that answers 404, one
//! route that is not marked.

use axum::{
    http::{header::LAST_MODIFIED, Request},
    routing::get,
    Json,
};
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::*;

const WHEN: &str = "Fri, 02 Jan 2026 03:04:05 GMT";

fn app() -> Router {
    let read = || async { ([(LAST_MODIFIED, WHEN)], Json(serde_json::json!({"n": 1}))) };
    let marked = OpenApiRouter::new()
        .route("/read", get(read).post(|| async { "posted" }))
        .route("/missing", get(|| async { (StatusCode::NOT_FOUND, "no such thing") }));
    let (marked, _) = public_reads(marked).split_for_parts();
    let router = marked.route("/plain", get(|| async { Json(serde_json::json!({"n": 2})) }));
    conditional(router, Duration::from_secs(60))
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", |value| value.to_str().unwrap())
    }
}

async fn send(method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
    Answer { status, headers, body }
}

#[tokio::test]
async fn a_marked_read_answers_its_tag_and_public_freshness() {
    let first = send("GET", "/read", &[]).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.header("etag"), entity_tag(&first.body).to_str().unwrap());
    assert_eq!(first.header("cache-control"), "public, max-age=60");
    assert_eq!(first.header("vary"), "authorization");
    assert_eq!(first.header("last-modified"), WHEN);
    let second = send("GET", "/read", &[]).await;
    assert_eq!(second.header("etag"), first.header("etag"), "the same body, the same tag");
}

#[tokio::test]
async fn a_request_with_a_token_is_answered_for_no_cache_to_keep() {
    let answer = send("GET", "/read", &[("authorization", "Bearer x")]).await;
    assert_eq!(answer.header("cache-control"), "no-store");
    assert_eq!(answer.header("vary"), "authorization");
    assert!(!answer.header("etag").is_empty());
}

#[tokio::test]
async fn a_matching_if_none_match_answers_304_without_a_body_and_with_the_headers() {
    let tag = send("GET", "/read", &[]).await.header("etag").to_string();
    let weak = format!("W/{tag}");
    let list = format!("\"other\", {tag}");
    for condition in [tag.as_str(), weak.as_str(), list.as_str(), "*"] {
        let answer = send("GET", "/read", &[("if-none-match", condition)]).await;
        assert_eq!(answer.status, StatusCode::NOT_MODIFIED, "{condition}");
        assert!(answer.body.is_empty(), "{condition}");
        assert_eq!(answer.header("etag"), tag);
        assert_eq!(answer.header("cache-control"), "public, max-age=60");
        assert_eq!(answer.header("vary"), "authorization");
        assert_eq!(answer.header("last-modified"), WHEN);
        assert!(answer.headers.get("content-type").is_none(), "no body to describe");
    }
    let signed_in = [("if-none-match", tag.as_str()), ("authorization", "Bearer x")];
    let answer = send("GET", "/read", &signed_in).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    assert_eq!(answer.header("cache-control"), NO_STORE);
}

#[tokio::test]
async fn another_or_a_malformed_tag_gets_the_full_answer() {
    for condition in ["\"stale\"", "not a tag", "W/\"stale\", \"older\""] {
        let answer = send("GET", "/read", &[("if-none-match", condition)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{condition}");
        assert_eq!(answer.body, b"{\"n\":1}", "{condition}");
    }
}

#[tokio::test]
async fn a_head_gets_the_tag_of_the_get_and_can_be_revalidated() {
    let tag = send("GET", "/read", &[]).await.header("etag").to_string();
    let head = send("HEAD", "/read", &[]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), tag, "computed from the body the GET would send");
    assert_eq!(head.header("cache-control"), "public, max-age=60");
    let revalidated = send("HEAD", "/read", &[("if-none-match", &tag)]).await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn other_statuses_methods_and_unmarked_routes_pass_untouched() {
    let missing = send("GET", "/missing", &[("if-none-match", "*")]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let posted = send("POST", "/read", &[("if-none-match", "*")]).await;
    assert_eq!((posted.status, posted.body.as_slice()), (StatusCode::OK, b"posted".as_slice()));
    let plain = send("GET", "/plain", &[("if-none-match", "*")]).await;
    assert_eq!(plain.status, StatusCode::OK);
    for answer in [missing, posted, plain] {
        for name in ["etag", "cache-control", "vary"] {
            assert!(answer.headers.get(name).is_none(), "{name}: {:?}", answer.headers);
        }
    }
}

#[test]
fn the_public_freshness_names_the_max_age_in_seconds() {
    assert_eq!(public(Duration::from_secs(0)), "public, max-age=0");
    assert_eq!(public(Duration::from_secs(3600)), "public, max-age=3600");
}
