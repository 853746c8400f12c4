//! Views of articles (docs/data-model.md, "Views"): a successful public detail read (200)
//! counts one view, at most one per reader ([`reader::Reader`]: the signed-in user, else the
//! client address and user agent) and article in [`WINDOW_SECS`], into the pending views
//! `VIEWS#<shard>`/`<articleId16>`; the sweep ([`sweep`]: the scheduled outbox sweep in AWS, the
//! local worker's periodic one) moves them to the heads' `viewCount`.
//!
//! A view is one addition of the tally port ([`blog_core::ports::tally`]): one transaction of the
//! check that the head is visible (PUBLISHED or ARCHIVED, not deleted), the Put of the reader's
//! marker `VIEWED#<digest>` (TTL [`WINDOW_SECS`], on condition that none lasts) and the ADD to
//! the pending views; a cancelled transaction writes nothing. The count is taken in a layer
//! outside the conditional requests and the kept answers, so it sees the answer the reader
//! gets: a 304 or a 404 counts nothing.
//!
//! In Lambda ([`blog_core::ports::tally::Direct`]) the transaction runs beside the detail's Query
//! and the answer waits for both (one round trip; nothing runs after a Lambda answer), except
//! for a conditional request (`If-None-Match`), whose answer decides: its view is counted after
//! a `200` (one more round trip for that case only), never after a `304`. Locally
//! ([`blog_core::ports::tally::Buffered`]) the view is kept in memory after a `200` and committed
//! by the next flush.

mod reader;
mod sweep;

use std::sync::Arc;

use axum::{
    extract::Request,
    http::{header::IF_NONE_MATCH, Method, StatusCode},
    middleware::Next,
    response::Response,
    Router,
};
use futures::join;

use blog_core::{
    context::AppContext,
    ports::{
        table::{n, Condition, Key, TableError},
        tally::{Once, Outcome, Tally},
    },
};

use super::{keys, BASE};

pub use reader::{marker, Reader};
pub use sweep::sweep;

/// Partitions the pending views are spread over (so no one partition takes every view).
pub const SHARDS: u64 = 16;
/// A reader's views of an article count once in this many seconds: the life of its marker.
pub const WINDOW_SECS: i64 = 30 * 60;
/// The attribute of a pending-views item.
const VIEWS: &str = "views";

/// Partition of the pending views of an article.
fn shard(article_id: u64) -> String {
    format!("VIEWS#{:02}", article_id % SHARDS)
}

/// The pending-views item of an article.
pub fn pending_key(article_id: u64) -> Key {
    Key::new(shard(article_id), format!("{article_id:016}"))
}

/// What a view of the article `article_id` by `reader` adds, once per [`WINDOW_SECS`], on
/// condition that the article is visible: published or archived (status above 0), not deleted
/// (`isDeleted` absent, as in heads of the first layout, or 0).
pub fn view(article_id: u64, reader: &Reader) -> Once {
    let visible = Condition::All(vec![
        Condition::GreaterThan("status".into(), 0),
        Condition::NotEquals("isDeleted".into(), n(1)),
    ]);
    Once {
        marker: marker(article_id, reader),
        lasts_secs: WINDOW_SECS,
        guard: Some((keys::head(article_id), visible)),
        key: pending_key(article_id),
        attribute: VIEWS,
        delta: 1,
    }
}

/// The article a request reads the public detail of, if it does (`GET /api/v1/articles/<id>`).
fn viewed(request: &Request) -> Option<u64> {
    if request.method() != Method::GET {
        return None;
    }
    let rest = request.uri().path().strip_prefix(BASE)?.strip_prefix('/')?;
    let valid = !rest.is_empty() && rest.len() <= 16 && rest.bytes().all(|b| b.is_ascii_digit());
    valid.then(|| rest.parse().ok()).flatten().filter(|id| *id > 0)
}

/// Counts the views of the public details answered by `router`: put it outside the conditional
/// requests and the kept answers, so it sees each reader's answer.
pub fn counted<S: Clone + Send + Sync + 'static>(router: Router<S>, ctx: &AppContext) -> Router<S> {
    let tally = ctx.tally.clone();
    router.layer(axum::middleware::from_fn(move |request: Request, next: Next| {
        let tally = tally.clone();
        async move { count(tally, request, next).await }
    }))
}

async fn count(tally: Arc<dyn Tally>, request: Request, next: Next) -> Response {
    let Some(id) = viewed(&request) else {
        return next.run(request).await;
    };
    let once = view(id, &Reader::of(&request));
    // Without `If-None-Match` the answer is a 200 exactly when the article is visible, which
    // the view's transaction checks itself: it can run beside the read.
    let decided_by_the_answer = request.headers().contains_key(IF_NONE_MATCH);
    if tally.waits_for_the_store() && !decided_by_the_answer {
        let (response, counted) = join!(next.run(request), tally.add_once(once));
        logged(id, counted);
        return response;
    }
    let response = next.run(request).await;
    if response.status() == StatusCode::OK {
        logged(id, tally.add_once(once).await);
    }
    response
}

fn logged(article_id: u64, counted: Result<Outcome, TableError>) {
    match counted {
        Ok(outcome) => tracing::debug!(article_id, ?outcome, "view"),
        Err(error) => tracing::error!(article_id, %error, "a view was not counted"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> Request {
        Request::builder().uri(path).body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn only_a_public_detail_read_is_a_view() {
        assert_eq!(viewed(&get("/api/v1/articles/42")), Some(42));
        assert_eq!(viewed(&get("/api/v1/articles/42?x=1")), Some(42));
        for path in ["/api/v1/articles", "/api/v1/articles/42/related", "/api/v1/articles/x"] {
            assert_eq!(viewed(&get(path)), None, "{path}");
        }
        assert_eq!(viewed(&get("/api/v1/articles/0")), None);
        let mut put = get("/api/v1/articles/42");
        *put.method_mut() = Method::PUT;
        assert_eq!(viewed(&put), None);
    }

    #[test]
    fn a_view_adds_one_to_the_pending_views_once_per_reader_and_article_in_30_minutes() {
        let reader = Reader::client("192.0.2.1", Some("Firefox"));
        let once = view(7, &reader);
        assert_eq!((once.key, once.attribute, once.delta), (pending_key(7), VIEWS, 1));
        assert_eq!((once.marker, once.lasts_secs), (marker(7, &reader), 1800));
        assert_eq!(once.guard.expect("a guard").0, keys::head(7));
    }

    #[test]
    fn pending_views_are_spread_over_sixteen_shards() {
        assert_eq!(pending_key(7), Key::new("VIEWS#07", "0000000000000007"));
        assert_eq!(pending_key(23).pk, "VIEWS#07");
    }
}
