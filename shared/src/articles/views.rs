//! Views of articles (docs/data-model.md, "Views"): every successful public detail read counts
//! one, through the tally port, into the pending views `VIEWS#<shard>`/`<articleId16>`; the
//! sweep (the scheduled outbox sweep in AWS, the local worker's periodic one) moves them to the
//! heads' `viewCount`.
//!
//! The count is taken in a layer outside the kept answers, so a kept answer counts too, and
//! made together with the read: in Lambda ([`crate::ports::tally::Direct`]) the UpdateItem ADD
//! runs beside the detail Query and the answer waits for both (one round trip; nothing runs
//! after a Lambda answer); locally ([`crate::ports::tally::Buffered`]) it is an addition in
//! memory. A read that does not answer 200 takes its view back.

use std::sync::Arc;

use axum::{extract::Request, http::Method, middleware::Next, response::Response, Router};
use futures::{future::try_join_all, join, stream, StreamExt};

use crate::{
    context::AppContext,
    ports::{
        table::{Condition, Index, Item, Key, Query, Table, TableError, Update, Write},
        tally::Tally,
    },
    records::{number, query_all},
};

use super::{keys, BASE};

/// Partitions the pending views are spread over (so no one partition takes every view).
pub const SHARDS: u64 = 16;
/// The attribute of a pending-views item.
const VIEWS: &str = "views";
/// Pending views moved at once by the sweep.
const CONCURRENCY: usize = 8;

/// Partition of the pending views of an article.
fn shard(article_id: u64) -> String {
    format!("VIEWS#{:02}", article_id % SHARDS)
}

/// The pending-views item of an article.
pub fn pending_key(article_id: u64) -> Key {
    Key::new(shard(article_id), format!("{article_id:016}"))
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

/// Counts the views of the public details answered by `router`: put it outside the kept
/// answers.
pub fn counted(router: Router<AppContext>, ctx: &AppContext) -> Router<AppContext> {
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
    let (response, counted) = join!(next.run(request), tally.add(pending_key(id), VIEWS, 1));
    match counted {
        Err(error) => tracing::error!(article_id = id, %error, "a view was not counted"),
        Ok(()) if !response.status().is_success() => {
            if let Err(error) = tally.add(pending_key(id), VIEWS, -1).await {
                tracing::warn!(article_id = id, %error, "the view of a failed read stays pending");
            }
        }
        Ok(()) => {}
    }
    response
}

/// Moves every pending view to its article's head: one Query per shard (together), then per
/// article one transaction of the head's `viewCount` ADD n (on condition it is PUBLISHED or
/// ARCHIVED) and the pending item's `views` ADD -n (on condition it still holds at least n:
/// views counted meanwhile stay pending). Views of an article that is gone or a draft are
/// dropped. Returns the views moved.
pub async fn sweep(table: &dyn Table) -> Result<u64, TableError> {
    let shards = (0..SHARDS).map(|s| query_all(table, Query::partition(Index::Primary, shard(s))));
    let pending: Vec<Item> = try_join_all(shards).await?.into_iter().flatten().collect();
    let moves = stream::iter(pending).map(|item| move_views(table, item));
    let moved: Vec<Result<u64, TableError>> = moves.buffer_unordered(CONCURRENCY).collect().await;
    let mut total = 0;
    for result in moved {
        total += result?;
    }
    if total > 0 {
        tracing::info!(views = total, "pending views moved to the articles");
    }
    Ok(total)
}

async fn move_views(table: &dyn Table, item: Item) -> Result<u64, TableError> {
    let (Some(key), Some(views)) = (Key::of(&item), number(&item, VIEWS)) else {
        return Ok(0);
    };
    let Ok(id) = key.sk.parse::<u64>() else {
        return Ok(0);
    };
    if views == 0 {
        let condition = Some(Condition::equals(VIEWS, crate::ports::table::n(0)));
        return match table.delete(&key, condition).await {
            Ok(_) | Err(TableError::ConditionFailed) => Ok(0),
            Err(other) => Err(other),
        };
    }
    let still = if views > 0 {
        Condition::GreaterThan(VIEWS.into(), views - 1)
    } else {
        Condition::LessThan(VIEWS.into(), views + 1)
    };
    // Published or archived (a deleted one keeps its status: its views are kept with it, never
    // shown; `isDeleted` is not asked for, since heads of the first layout may lack it).
    let visible = Condition::GreaterThan("status".into(), 0);
    let writes = vec![
        Write::Update {
            key: keys::head(id),
            update: Update::new().add("viewCount", views),
            condition: Some(visible),
        },
        Write::Update {
            key: key.clone(),
            update: Update::new().add(VIEWS, -views),
            condition: Some(still),
        },
    ];
    match table.transact(writes).await {
        Ok(()) => Ok(views.max(0) as u64),
        Err(TableError::TransactionCancelled { failed }) if failed.contains(&0) => {
            // No such article, or a draft: its pending views go.
            let condition = Some(Condition::equals(VIEWS, crate::ports::table::n(views)));
            match table.delete(&key, condition).await {
                Ok(_) | Err(TableError::ConditionFailed) => Ok(0),
                Err(other) => Err(other),
            }
        }
        // Views were taken back meanwhile: the next sweep moves what is left.
        Err(TableError::TransactionCancelled { .. }) => Ok(0),
        Err(other) => Err(other),
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
    fn pending_views_are_spread_over_sixteen_shards() {
        assert_eq!(pending_key(7), Key::new("VIEWS#07", "0000000000000007"));
        assert_eq!(pending_key(23).pk, "VIEWS#07");
    }
}
