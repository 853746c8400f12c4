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
//! Only `200` answers whose one header is their content type are kept, up to
//! [`BUDGET_BYTES`]; the routes that use the layer must answer from the table and the request
//! URI alone (not the caller, not the clock, not items that expire by TTL).

use std::sync::Mutex;

use axum::{
    body::{Body, Bytes, HttpBody},
    extract::{OriginalUri, Request, State},
    http::{header::CONTENT_TYPE, HeaderValue, Method, StatusCode},
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

/// One kept answer.
#[derive(Clone)]
struct Answer {
    content_type: HeaderValue,
    body: Bytes,
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
        return ([(CONTENT_TYPE, answer.content_type)], answer.body).into_response();
    }
    let response = next.run(request).await;
    let keepable = response.status() == StatusCode::OK
        && response.headers().len() == 1
        && response.body().size_hint().exact().is_some_and(|n| n as usize <= MAX_ANSWER_BYTES);
    let Some(content_type) = response.headers().get(CONTENT_TYPE).filter(|_| keepable).cloned()
    else {
        return response;
    };
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, MAX_ANSWER_BYTES).await {
        Ok(body) => {
            answers.keep(&uri, stamp, Answer { content_type, body: body.clone() });
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
    use super::*;

    fn answer(body: &str) -> Answer {
        Answer {
            content_type: HeaderValue::from_static("application/json"),
            body: Bytes::from(body.to_owned()),
        }
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
}
