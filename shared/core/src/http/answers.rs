//! [`Answers`]: the public reads' answers, kept while the table is unchanged.
//!
//! A public read (an article, a list, the category tree) answers the same bytes to everyone
//! until something is written, and reads far outnumber writes. Where the table can tell that
//! nothing has been committed since (its [`change_stamp`](crate::ports::table::Table::change_stamp):
//! the embedded table, at once for its own commits and within 20 ms for another process's), the
//! [`reuse`] layer answers a `GET` it has answered before with the same bytes, without running
//! the handler. Every commit changes the stamp and drops every kept answer. Where the table
//! cannot tell (DynamoDB), every request runs its handler.
//!
//! Only `200` answers whose headers are their content type and those of [`KEPT_HEADERS`] (the
//! validators: an entity tag, a last-modified time) are kept, up to [`BUDGET_BYTES`]; the routes
//! that use the layer must answer from the table and the request URI alone (not the caller, not
//! the clock, not items that expire by TTL).

use std::sync::Mutex;

use axum::{
    body::{Body, Bytes, HttpBody},
    extract::{OriginalUri, Request, State},
    http::{
        header::{CONTENT_TYPE, ETAG, LAST_MODIFIED},
        HeaderMap, HeaderName, Method, StatusCode,
    },
    middleware::Next,
    response::{IntoResponse, Response},
};
use lru::LruCache;

/// What [`reuse`] needs of a router's state (the application context provides it).
pub trait ReuseState: Clone + Send + Sync + 'static {
    /// The answers kept in this process.
    fn answers(&self) -> &Answers;
    /// The table's change stamp ([`crate::ports::table::Table::change_stamp`]).
    fn change_stamp(&self) -> Option<u64>;
}

/// Bytes of kept answers (bodies and URIs) at most.
const BUDGET_BYTES: usize = 16 << 20;

/// Answers bigger than this are not kept.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Headers beside the content type that a kept answer keeps: validators that depend on the
/// body and the table only (the entity tag of [`super::caching`], an article's `Last-Modified`).
/// An answer with any other header is not kept.
pub const KEPT_HEADERS: [HeaderName; 2] = [ETAG, LAST_MODIFIED];

/// One kept answer.
#[derive(Clone)]
struct Answer {
    /// Its content type and the headers of [`KEPT_HEADERS`] it had.
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    /// The headers of `response` if it may be kept: a content type, and otherwise only headers
    /// of [`KEPT_HEADERS`].
    fn keepable(headers: &HeaderMap) -> Option<HeaderMap> {
        let allowed = |name: &HeaderName| *name == CONTENT_TYPE || KEPT_HEADERS.contains(name);
        (headers.contains_key(CONTENT_TYPE) && headers.keys().all(allowed)).then(|| headers.clone())
    }
}

/// Kept answers, all made while the table had one stamp; least recently used first out.
struct Kept {
    stamp: Option<u64>,
    answers: LruCache<Box<str>, Answer>,
    bytes: usize,
}

/// The answers of public reads, shared by every area of a process.
pub struct Answers {
    enabled: bool,
    kept: Mutex<Kept>,
}

impl Answers {
    /// An empty store; `enabled: false` keeps nothing.
    pub fn new(enabled: bool) -> Self {
        let kept = Kept { stamp: None, answers: LruCache::unbounded(), bytes: 0 };
        Self { enabled, kept: Mutex::new(kept) }
    }

    /// The answer kept for `uri` under `stamp`; drops every answer of an earlier stamp.
    fn get(&self, uri: &str, stamp: u64) -> Option<Answer> {
        let mut kept = self.kept.lock().ok()?;
        if kept.stamp != Some(stamp) {
            kept.answers.clear();
            kept.bytes = 0;
            kept.stamp = Some(stamp);
            return None;
        }
        kept.answers.get(uri).cloned()
    }

    /// Keeps `answer` for `uri` if the table still has the stamp it was made under.
    fn keep(&self, uri: &str, stamp: u64, answer: Answer) {
        let Ok(mut kept) = self.kept.lock() else { return };
        let bytes = uri.len() + answer.body.len();
        if kept.stamp != Some(stamp) || bytes > MAX_ANSWER_BYTES {
            return;
        }
        kept.bytes += bytes;
        if let Some(replaced) = kept.answers.put(uri.into(), answer) {
            kept.bytes -= uri.len() + replaced.body.len();
        }
        while kept.bytes > BUDGET_BYTES {
            match kept.answers.pop_lru() {
                Some((uri, evicted)) => kept.bytes -= uri.len() + evicted.body.len(),
                None => break,
            }
        }
    }

    /// Bytes kept now.
    #[cfg(test)]
    fn kept_bytes(&self) -> usize {
        self.kept.lock().map_or(0, |kept| kept.bytes)
    }
}

/// Layer of the public reads: answers a `GET` from the kept answers when the table is
/// unchanged, otherwise runs the handler and keeps its answer (see the module documentation).
pub async fn reuse<S: ReuseState>(State(ctx): State<S>, request: Request, next: Next) -> Response {
    let answers = ctx.answers();
    let stamp = match answers.enabled && request.method() == Method::GET {
        true => ctx.change_stamp(),
        false => None,
    };
    let Some(stamp) = stamp else { return next.run(request).await };
    // The full URI: inside a nested router the request's own lacks the area's base path.
    let uri = match request.extensions().get::<OriginalUri>() {
        Some(OriginalUri(original)) => original.to_string(),
        None => request.uri().to_string(),
    };
    if let Some(answer) = answers.get(&uri, stamp) {
        return (answer.headers, answer.body).into_response();
    }
    let response = next.run(request).await;
    let keepable = response.status() == StatusCode::OK
        && response.body().size_hint().exact().is_some_and(|n| n as usize <= MAX_ANSWER_BYTES);
    let Some(headers) = Answer::keepable(response.headers()).filter(|_| keepable) else {
        return response;
    };
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, MAX_ANSWER_BYTES).await {
        Ok(body) => {
            answers.keep(&uri, stamp, Answer { headers, body: body.clone() });
            Response::from_parts(parts, Body::from(body))
        }
        Err(error) => {
            // A handler's body is in memory and of the size it announced: this cannot happen.
            tracing::error!(%error, uri, "reading an answer to keep it failed");
            let body = serde_json::json!({
                "code": 500, "message": super::error::INTERNAL_MESSAGE, "data": null
            });
            (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response()
        }
    }
}

/// Puts `routes` (public reads only: see the module documentation) behind [`reuse`].
pub fn reused<S: ReuseState>(routes: axum::Router<S>, ctx: &S) -> axum::Router<S> {
    routes.route_layer(axum::middleware::from_fn_with_state(ctx.clone(), reuse::<S>))
}

#[cfg(test)]
mod tests {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    use axum::{http::HeaderValue, routing::get, Router};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;

    fn answer(body: &str) -> Answer {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Answer { headers, body: Bytes::from(body.to_owned()) }
    }

    #[test]
    fn an_answer_is_reused_under_its_stamp_and_dropped_when_the_stamp_changes() {
        let answers = Answers::new(true);
        assert!(answers.get("/a", 1).is_none());
        answers.keep("/a", 1, answer("one"));
        assert_eq!(answers.get("/a", 1).unwrap().body, "one");
        assert!(answers.get("/a", 2).is_none());
        assert_eq!(answers.kept_bytes(), 0);
        assert!(answers.get("/a", 1).is_none(), "an older stamp never comes back");
    }

    #[test]
    fn an_answer_made_under_an_older_stamp_is_not_kept() {
        let answers = Answers::new(true);
        answers.get("/a", 1);
        answers.get("/a", 2);
        answers.keep("/a", 1, answer("stale"));
        assert!(answers.get("/a", 2).is_none());
    }

    #[test]
    fn the_kept_answers_stay_within_the_budget_dropping_the_least_recently_used() {
        let answers = Answers::new(true);
        answers.get("/", 7);
        let body = "x".repeat(MAX_ANSWER_BYTES / 2);
        for i in 0..100 {
            answers.keep(&format!("/{i}"), 7, answer(&body));
            assert!(answers.kept_bytes() <= BUDGET_BYTES);
        }
        assert!(answers.get("/99", 7).is_some());
        assert!(answers.get("/0", 7).is_none());
    }

    #[test]
    fn an_answer_over_the_size_limit_is_not_kept() {
        let answers = Answers::new(true);
        answers.get("/", 7);
        answers.keep("/big", 7, answer(&"x".repeat(MAX_ANSWER_BYTES + 1)));
        assert!(answers.get("/big", 7).is_none());
        assert_eq!(answers.kept_bytes(), 0);
    }

    /// A state whose table never changes, counting the handlers' runs.
    #[derive(Clone)]
    struct Unchanged {
        answers: Arc<Answers>,
        runs: Arc<AtomicUsize>,
    }

    impl ReuseState for Unchanged {
        fn answers(&self) -> &Answers {
            &self.answers
        }
        fn change_stamp(&self) -> Option<u64> {
            Some(1)
        }
    }

    const WHEN: &str = "Fri, 02 Jan 2026 03:04:05 GMT";

    fn router(state: &Unchanged) -> Router {
        let runs = state.runs.clone();
        let validated = move || {
            runs.fetch_add(1, Ordering::SeqCst);
            async {
                let headers = [(ETAG, "\"t\""), (LAST_MODIFIED, WHEN)];
                (headers, axum::Json(serde_json::json!({"n": 1})))
            }
        };
        let runs = state.runs.clone();
        let other = move || {
            runs.fetch_add(1, Ordering::SeqCst);
            async { ([("x-other", "1")], axum::Json(serde_json::json!({"n": 2}))) }
        };
        let routes = Router::new().route("/validated", get(validated)).route("/other", get(other));
        reused(routes, state).with_state(state.clone())
    }

    async fn read(router: &Router, path: &str) -> (HeaderMap, Bytes) {
        let request = axum::http::Request::get(path).body(Body::empty()).unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let headers = response.headers().clone();
        (headers, response.into_body().collect().await.unwrap().to_bytes())
    }

    #[tokio::test]
    async fn a_kept_answer_keeps_its_validators() {
        let state = Unchanged { answers: Arc::new(Answers::new(true)), runs: Arc::default() };
        let router = router(&state);
        let (first, body) = read(&router, "/validated").await;
        let (again, kept) = read(&router, "/validated").await;
        assert_eq!(state.runs.load(Ordering::SeqCst), 1, "the second read is the kept answer");
        assert_eq!(kept, body);
        for name in [CONTENT_TYPE, ETAG, LAST_MODIFIED] {
            assert_eq!(again.get(&name), first.get(&name), "{name}");
        }
        assert_eq!(again[LAST_MODIFIED], HeaderValue::from_static(WHEN));
    }

    #[tokio::test]
    async fn an_answer_with_another_header_is_not_kept() {
        let state = Unchanged { answers: Arc::new(Answers::new(true)), runs: Arc::default() };
        let router = router(&state);
        read(&router, "/other").await;
        let (headers, _) = read(&router, "/other").await;
        assert_eq!(state.runs.load(Ordering::SeqCst), 2, "each read ran the handler");
        assert_eq!(headers["x-other"], "1");
    }
}
