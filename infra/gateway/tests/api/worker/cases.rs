//! Worker cases, written once against [`Api`].

use std::{sync::Arc, time::Duration};

use async_trait::async_trait;
use blog_api::{
    articles::{events, followup, worker},
    ports::{
        events::{EventQueue, Message},
        table::{Index, Key, Query},
    },
};
use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_error, assert_ok, create, published, taxonomy},
    support::Api,
};

const RUST: [&str; 3] = [
    "Ownership is how Rust manages memory without a garbage collector. Every value has a single owner, and when the owner goes out of scope the value is dropped. Moving a value transfers ownership to another variable.",
    "Borrowing lets Rust code use a value without taking ownership of it. References are checked by the borrow checker, which ensures that mutable references are exclusive and that no reference outlives the value it borrows.",
    "Lifetimes describe how long references stay valid in Rust. The compiler infers most lifetimes, but function signatures sometimes need explicit lifetime annotations so the borrow checker can verify ownership and borrowing.",
];
const COOKING: [&str; 2] = [
    "A good tomato sauce for pasta starts with olive oil, garlic and ripe tomatoes simmered slowly. Season the sauce with basil and salt, then toss the cooked pasta in the pan so it absorbs the flavour.",
    "Fresh pasta needs only flour and eggs. Knead the dough until smooth, let it rest, roll it thin and cut it into ribbons. Cook the pasta briefly in salted boiling water and serve it with a simple butter sauce.",
];

async fn related(api: &Api, id: &str, limit: usize) -> Vec<String> {
    let reply =
        api.call("GET", &format!("/api/v1/articles/{id}/related?limit={limit}"), None, None).await;
    assert_ok(&reply)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// Waits (bounded) until `check` holds for the related list of `id`.
async fn eventually(
    api: &Api,
    id: &str,
    limit: usize,
    check: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let list = related(api, id, limit).await;
        if check(&list) {
            return list;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "related list of {id} never settled: {list:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn same(left: &[String], right: &[&String]) -> bool {
    let mut left = left.to_vec();
    let mut right: Vec<String> = right.iter().map(|s| s.to_string()).collect();
    left.sort();
    right.sort();
    left == right
}

pub async fn related_articles_rank_by_topic_once_the_worker_ran(api: Api) {
    api.start_worker().await;
    let admin = api.admin_token().await;
    let mut rust = vec![];
    for (i, text) in RUST.iter().enumerate() {
        rust.push(
            published(&api, &admin, json!({"title": format!("Rust notes {i}"), "content": text}))
                .await,
        );
    }
    let mut cooking = vec![];
    for (i, text) in COOKING.iter().enumerate() {
        cooking.push(
            published(&api, &admin, json!({"title": format!("Kitchen {i}"), "content": text}))
                .await,
        );
    }
    for id in &rust {
        let others: Vec<&String> = rust.iter().filter(|o| *o != id).collect();
        let list = eventually(&api, id, 5, |l| l.len() == 4 && same(&l[..2], &others)).await;
        assert!(!list.contains(id));
    }
    for id in &cooking {
        let other = cooking.iter().find(|o| *o != id).unwrap();
        eventually(&api, id, 4, |l| l.len() == 4 && l[0] == *other).await;
    }
    let item =
        api.call("GET", &format!("/api/v1/articles/{}/related?limit=1", rust[0]), None, None).await;
    let item = &assert_ok(&item)[0];
    for field in ["id", "title", "summary", "coverImage", "publishTime"] {
        assert!(item[field].is_string(), "{field}: {item}");
    }
}

pub async fn related_lists_skip_unpublished_articles_and_never_hold_the_article_itself(api: Api) {
    api.start_worker().await;
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Systems").await;
    let a =
        published(&api, &admin, json!({"title": "A", "content": RUST[0], "categoryId": cat})).await;
    let b =
        published(&api, &admin, json!({"title": "B", "content": RUST[1], "categoryId": cat})).await;
    let c = published(&api, &admin, json!({"title": "C", "content": COOKING[0]})).await;
    eventually(&api, &a, 5, |l| l.len() == 2).await;
    assert_ok(&act(&api, &admin, &b, "archive").await);
    let list = related(&api, &a, 5).await;
    assert_eq!(list, std::slice::from_ref(&c), "archived articles drop out at once");
    assert_ok(
        &api.call("DELETE", &format!("/api/v1/admin/articles/{c}"), Some(&admin), None).await,
    );
    assert_eq!(related(&api, &a, 5).await, Vec::<String>::new());
    assert_ok(&act(&api, &admin, &b, "unarchive").await);
    eventually(&api, &a, 5, |l| l == [b.clone()]).await;
}

pub async fn related_validates_its_limit_and_hides_drafts(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Draft", "content": "x"})).await;
    let live = published(&api, &admin, json!({"title": "Live", "content": "x"})).await;
    for limit in ["0", "21", "x", "-1"] {
        let reply = api
            .call("GET", &format!("/api/v1/articles/{live}/related?limit={limit}"), None, None)
            .await;
        assert_error(&reply, 400, "PARAM_ERROR");
    }
    for id in [draft.as_str(), "999999"] {
        let reply = api.call("GET", &format!("/api/v1/articles/{id}/related"), None, None).await;
        assert_error(&reply, 404, "ARTICLE_NOT_FOUND");
    }
    assert_eq!(
        related(&api, &live, 5).await,
        Vec::<String>::new(),
        "no worker ran: nothing related yet"
    );
}

async fn item(api: &Api, key: Key) -> Option<Value> {
    api.table.get(&key).await.unwrap().map(|item| serde_json::to_value(item).unwrap())
}

pub async fn a_duplicated_event_changes_nothing_twice(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Once", "content": RUST[0]})).await;
    let event = api.next_event().await.expect("event");
    let body = event.to_string();
    assert_eq!(api.handle_event(&body).await.unwrap(), followup::Outcome::Done);
    let stats_key = Key::new(format!("ARTICLE#{id}"), "A#STATS");
    let vector_key = Key::new(format!("ARTICLE#{id}"), "A#VEC");
    let (stats, vector) =
        (item(&api, stats_key.clone()).await, item(&api, vector_key.clone()).await);
    assert!(stats.is_some() && vector.is_some());
    assert_eq!(api.handle_event(&body).await.unwrap(), followup::Outcome::Done);
    assert_eq!(item(&api, stats_key).await, stats, "statistics initialised once");
    let again = item(&api, vector_key).await.unwrap();
    assert_eq!(again["vector"], vector.unwrap()["vector"], "the same embedding is kept");
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(api.handle_event(&body).await.unwrap(), followup::Outcome::Skipped);
}

pub async fn a_follow_up_reads_no_more_as_more_articles_are_related(api: Api) {
    let admin = api.admin_token().await;
    let contents = RUST.iter().chain(&COOKING).chain(&RUST);
    // The search index exists (the first follow-up would otherwise build it from the table).
    let rebuild = format!("{{\"type\":\"{}\"}}", blog_api::articles::worker::REBUILD_SEARCH_INDEX);
    assert_eq!(api.handle_event(&rebuild).await.unwrap(), followup::Outcome::Done);
    let mut reads = vec![];
    for (n, content) in contents.enumerate() {
        let title = format!("Article {n}");
        published(&api, &admin, json!({"title": title, "content": content})).await;
        let body = api.next_event().await.expect("event").to_string();
        let (outcome, calls) = api.calls_of(api.handle_event(&body)).await;
        assert_eq!(outcome.unwrap(), followup::Outcome::Done);
        reads.push((calls.get, calls.get_many, calls.query, calls.round_trips));
    }
    // The nearest articles come from the search index the worker holds, so relating the 8th
    // article reads what relating the 2nd did, whatever the number of articles. Six GetItem
    // (its vector, the recent list; for its sitemap page, the head and the page, then the head
    // again after the page's write; for its search document, its vector again), one
    // BatchGetItem (the vector items of its nearest, none for the first article) and two Query
    // (the article; the article again for its search document, read after the index). The
    // independent calls overlap, in four to seven round trips (the meter counts a call as
    // waiting on every call that ended before it began).
    let expected = |(n, &(get, many, query, trips)): (usize, &(u64, u64, u64, u64))| {
        (get, many, query) == (6, u64::from(n > 0), 2)
            && api.exact(trips).is_none_or(|t| (4..=7).contains(&t))
    };
    assert!(reads.iter().enumerate().all(expected), "{reads:?}");
}

pub async fn a_poison_message_is_retried_then_dead_lettered(api: Api) {
    let batch = [Message { id: "m-1".into(), body: "{not json".into(), receive_count: 1 }];
    assert_eq!(api.handle_batch(&batch).await, ["m-1"], "reported as a batch item failure");
    api.start_worker().await;
    let poison = "{\"type\":\"ArticlePublishedEvent\"}";
    api.send_event(poison).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(45);
    loop {
        if let Some(letter) = api.dead_letter().await {
            assert_eq!((letter.body.as_str(), letter.deliveries), (poison, worker::MAX_DELIVERIES));
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never dead-lettered");
    }
}

struct Unreachable;

#[async_trait]
impl EventQueue for Unreachable {
    async fn send(&self, _body: String) -> anyhow::Result<()> {
        anyhow::bail!("queue unreachable")
    }

    async fn ping(&self) -> anyhow::Result<Option<u64>> {
        anyhow::bail!("queue unreachable")
    }
}

pub async fn an_event_that_could_not_be_sent_is_delivered_by_the_outbox_sweep(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Outboxed", "content": RUST[2]})).await;
    let outbox = || async {
        api.table.query(Query::partition(Index::Primary, "OUTBOX")).await.unwrap().items
    };
    if let Some(stack) = api.on_stack() {
        // The queue stops answering the publishing function and the sweep.
        let recorder = stack.recorder();
        recorder.set_outage("*", "sqs", true);
        assert_ok(&act(&api, &admin, &id, "publish").await);
        assert_eq!(outbox().await.len(), 1, "the event waits in the outbox");
        assert!(api.sweep_outbox().await.is_err(), "still unreachable");
        recorder.set_outage("*", "sqs", false);
    } else {
        let broken = api.ctx.clone().with_events(Arc::new(Unreachable));
        let app = local_gateway::app(broken.clone()).expect("every area has its ports");
        let request = axum::http::Request::builder()
            .method("PUT")
            .uri(format!("/api/v1/admin/articles/{id}/publish"))
            .header("authorization", format!("Bearer {admin}"))
            .body(axum::body::Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(app, request).await.unwrap();
        assert_eq!(response.status(), 200, "the publish succeeds although the queue is down");
        assert_eq!(outbox().await.len(), 1, "the event waits in the outbox");
        assert_eq!(
            events::sweep(
                &blog_api::area::AreaState::from_context(&broken).unwrap(),
                Duration::ZERO
            )
            .await
            .ok(),
            None,
            "still unreachable"
        );
    }
    assert_eq!(api.sweep_outbox().await.unwrap(), 1);
    let event = api.next_event().await.expect("delivered by the sweep");
    assert_eq!(event["articleId"], json!(id));
    assert!(outbox().await.is_empty());
    assert_eq!(api.sweep_outbox().await.unwrap(), 0);
}

/// Webhook POSTs seen by the stub: timestamp and signature headers, body.
type Posts = Arc<std::sync::Mutex<Vec<(Option<String>, Option<String>, Vec<u8>)>>>;

pub async fn the_webhook_gets_one_signed_post_per_event(mut api: Api) {
    use axum::{body::Bytes, http::HeaderMap, routing::post, Router};
    let received: Posts = Arc::default();
    let sink = received.clone();
    let hook = Router::new().route(
        "/hook",
        post(move |headers: HeaderMap, body: Bytes| {
            let sink = sink.clone();
            async move {
                let header =
                    |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_string());
                let seen = (header("x-blog-timestamp"), header("x-blog-signature"), body.to_vec());
                sink.lock().unwrap().push(seen);
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, hook).await });
    api.set_secret("WebhookSigningSecret", "hook-secret").await;
    api.set_parameter("WebhookUrl", &url).await;

    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Hooked", "content": RUST[1]})).await;
    let body = api.next_event().await.expect("event").to_string();
    api.handle_event(&body).await.unwrap();
    api.handle_event(&body).await.unwrap();
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 1, "one POST although the event came twice");
    let (timestamp, signature, payload) = &received[0];
    let timestamp = timestamp.as_deref().expect("a timestamp header");
    let sent: i64 = timestamp.parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - sent).abs() < 60, "sent now: {sent}");
    let expected = {
        use hmac::{KeyInit, Mac};
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"hook-secret").unwrap();
        mac.update(format!("{timestamp}.").as_bytes());
        mac.update(payload);
        let digest = mac.finalize().into_bytes();
        format!("sha256={}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
    };
    assert_eq!(signature.as_deref(), Some(expected.as_str()), "the timestamp is signed too");
    let payload: Value = serde_json::from_slice(payload).unwrap();
    assert_eq!(payload["article"]["id"], json!(id));
    assert_eq!(payload["event"]["type"], json!("ArticlePublishedEvent"));
}

pub async fn the_webhook_follows_no_redirect(mut api: Api) {
    use axum::{http::StatusCode, response::Redirect, routing::post, Router};
    let redirected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = redirected.clone();
    let hook =
        Router::new().route("/hook", post(|| async { Redirect::temporary("/elsewhere") })).route(
            "/elsewhere",
            post(move || {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async { StatusCode::OK }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, hook).await });
    api.set_secret("WebhookSigningSecret", "hook-secret").await;
    api.set_parameter("WebhookUrl", &url).await;

    let admin = api.admin_token().await;
    published(&api, &admin, json!({"title": "Moved", "content": RUST[2]})).await;
    let body = api.next_event().await.expect("event").to_string();
    let outcome = api.handle_event(&body).await;
    assert!(outcome.is_err(), "a redirect is a failed notification, retried later: {outcome:?}");
    assert_eq!(redirected.load(std::sync::atomic::Ordering::SeqCst), 0, "never followed");
}

pub async fn a_related_read_costs_two_calls(api: Api) {
    let admin = api.admin_token().await;
    let a = published(&api, &admin, json!({"title": "One", "content": RUST[0]})).await;
    published(&api, &admin, json!({"title": "Two", "content": RUST[1]})).await;
    // The events handed over here, so no worker is still at work while the read is metered.
    api.follow_up(2).await;
    assert_eq!(related(&api, &a, 5).await.len(), 1);
    let path = format!("/api/v1/articles/{a}/related");
    let (reply, calls) = api.calls_of(api.call("GET", &path, None, None)).await;
    assert_ok(&reply);
    assert_eq!((calls.get_many, calls.total()), (2, 2), "{calls:?}");
}
