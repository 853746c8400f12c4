//! Views (comments-and-stats.md): a successful public detail read counts one view, at most one
//! per reader (the signed-in user, else address and user agent) and article in 30 minutes; a
//! 304 or a 404 counts nothing and writes nothing. (That a reader counts again once its 30
//! minutes have passed is shown where time can be set: the tally's and the marker memory's unit
//! tests.)

use blog_api::articles::views::{self, Reader};
use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_ok, create, published},
    support::{Api, Fetched},
};

/// Commits the views counted so far and moves them to the articles, as the periodic flush and
/// the sweep do within a minute (on the stack, the sweep function does).
pub async fn sweep_views(api: &Api) {
    api.ctx.tally.flush().await.expect("views committed");
    if api.on_stack().is_some() {
        api.sweep_outbox().await.expect("the sweep function ran");
    } else {
        views::sweep(api.table.as_ref()).await.expect("views swept");
    }
}

/// A GET of the detail of `id` by the client `agent`, signed in with `token` if given.
async fn read(api: &Api, id: &str, agent: &str, token: Option<&str>, tag: Option<&str>) -> Fetched {
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![("user-agent", agent)];
    headers.extend(bearer.as_deref().map(|bearer| ("authorization", bearer)));
    headers.extend(tag.map(|tag| ("if-none-match", tag)));
    api.exchange("GET", &format!("/api/v1/articles/{id}"), &headers).await
}

fn body(reply: &Fetched) -> Value {
    serde_json::from_slice(&reply.body).expect("a JSON answer")
}

/// The article's `viewCount` once the views are swept, as the administration reads it (a
/// public read would be a view itself).
async fn view_count(api: &Api, admin: &str, id: &str) -> Value {
    sweep_views(api).await;
    let reply = api.call("GET", &format!("/api/v1/admin/articles/{id}"), Some(admin), None).await;
    assert_ok(&reply)["viewCount"].clone()
}

pub async fn a_reader_counts_one_view_however_often_they_read_and_revalidate(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Reloaded", "content": "x"})).await;
    assert_eq!(read(&api, &id, "looper", None, None).await.status, 200);
    // Its view moved to the article now, the article stays as it is (a scheduled sweep has
    // nothing more to move), and so does its tag.
    assert_eq!(view_count(&api, &admin, &id).await, json!(1));
    let tag = read(&api, &id, "looper", None, None).await.headers["etag"].clone();
    let (mut full, mut not_modified) = (2, 0);
    for n in 2..300 {
        // Every third read revalidates the copy it has.
        let conditional = (n % 3 == 0).then_some(tag.as_str());
        match read(&api, &id, "looper", None, conditional).await.status {
            200 => full += 1,
            304 => not_modified += 1,
            other => panic!("read {n}: {other}"),
        }
    }
    assert_eq!((full, not_modified), (201, 99));
    assert_eq!(view_count(&api, &admin, &id).await, json!(1), "300 reads, one reader");
}

pub async fn readers_count_apart_and_a_signed_in_reader_counts_once_from_anywhere(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Shared", "content": "x"})).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let reads: [(&str, Option<&str>); 8] = [
        ("Firefox", None),
        ("Chrome", None),
        ("Firefox", None),
        // Alice from two browsers, Bob from the first one's: the user counts, not the client.
        ("Firefox", Some(&alice)),
        ("Safari", Some(&alice)),
        ("Firefox", Some(&bob)),
        ("Chrome", None),
        ("Safari", Some(&bob)),
    ];
    for (agent, token) in reads {
        assert_eq!(read(&api, &id, agent, token, None).await.status, 200);
    }
    assert_eq!(view_count(&api, &admin, &id).await, json!(4), "Firefox, Chrome, Alice, Bob");
}

pub async fn a_read_that_is_not_found_counts_nothing_and_writes_nothing(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Unseen", "content": "x"})).await;
    let gone = published(&api, &admin, json!({"title": "Gone", "content": "x"})).await;
    assert_ok(
        &api.call("DELETE", &format!("/api/v1/admin/articles/{gone}"), Some(&admin), None).await,
    );
    let (alice_id, alice) = api.user("alice").await;
    for id in [draft.as_str(), gone.as_str(), "987654321"] {
        for token in [None, Some(alice.as_str())] {
            let (reply, calls) = api.calls_of(read(&api, id, "prober", token, None)).await;
            assert_eq!(reply.status, 404, "{id}");
            assert_eq!((calls.put, calls.update, calls.delete), (0, 0, 0), "{id}: {calls:?}");
            // In Lambda the view's transaction runs beside the read and is cancelled: it
            // writes nothing. Elsewhere the view waits for a 200 that never comes.
            let attempts = if api.on_stack().is_some() { 1 } else { 0 };
            assert!(calls.transact <= attempts, "{id}: {calls:?}");
        }
    }
    api.ctx.tally.flush().await.expect("nothing to commit");
    for id in [draft.as_str(), gone.as_str(), "987654321"] {
        let id: u64 = id.parse().unwrap();
        let pending = api.table.get(&views::pending_key(id)).await.unwrap();
        assert!(pending.is_none(), "{id}: no pending views item: {pending:?}");
        let marker = views::marker(id, &Reader::user(&alice_id.to_string()));
        assert!(api.table.get(&marker).await.unwrap().is_none(), "{id}: no marker");
    }
    // Published now, the draft shows none of the refused views.
    assert_ok(&act(&api, &admin, &draft, "publish").await);
    assert_eq!(view_count(&api, &admin, &draft).await, json!(0));
}

pub async fn a_revalidated_read_counts_nothing_and_a_changed_article_counts_its_reader(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Cached", "content": "x"})).await;
    assert_eq!(read(&api, &id, "first", None, None).await.status, 200);
    assert_eq!(view_count(&api, &admin, &id).await, json!(1));
    let tag = read(&api, &id, "first", None, None).await.headers["etag"].clone();
    // Another client revalidates a copy it got elsewhere (a shared cache): 304, no view, no
    // write at all.
    for _ in 0..3 {
        let (reply, calls) =
            api.calls_of(read(&api, &id, "revalidator", None, Some(tag.as_str()))).await;
        assert_eq!(reply.status, 304);
        assert_eq!((calls.put, calls.update, calls.transact), (0, 0, 0), "{calls:?}");
    }
    assert_eq!(view_count(&api, &admin, &id).await, json!(1));
    // A third reader's view changes the article, so its tag: the revalidating client now gets
    // the article, and that read counts (once it is answered).
    assert_eq!(read(&api, &id, "third", None, None).await.status, 200);
    assert_eq!(view_count(&api, &admin, &id).await, json!(2));
    let changed = read(&api, &id, "revalidator", None, Some(tag.as_str())).await;
    assert_eq!(changed.status, 200);
    assert_eq!(body(&changed)["data"]["viewCount"], json!(2));
    assert_eq!(view_count(&api, &admin, &id).await, json!(3));
}

pub async fn simultaneous_reads_count_one_view_per_reader_and_lose_none(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Crowded", "content": "x"})).await;
    let same = (0..24).map(|_| read(&api, &id, "one-reader", None, None));
    for reply in futures::future::join_all(same).await {
        assert_eq!(reply.status, 200);
    }
    let agents: Vec<String> = (0..16).map(|n| format!("reader-{n}")).collect();
    // A sweep and more readers at the same time: the views counted meanwhile stay pending.
    let more = agents.iter().map(|agent| read(&api, &id, agent, None, None));
    let (_, replies) = futures::join!(sweep_views(&api), futures::future::join_all(more));
    assert!(replies.iter().all(|reply| reply.status == 200));
    assert_eq!(view_count(&api, &admin, &id).await, json!(17));
    // An administration write afterwards keeps them.
    let body = json!({"title": "Crowded still", "content": "x"});
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(body)).await);
    assert_eq!(view_count(&api, &admin, &id).await, json!(17));
    // An archived article is still read, and counted.
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(read(&api, &id, "late-reader", None, None).await.status, 200);
    assert_eq!(view_count(&api, &admin, &id).await, json!(18));
}
