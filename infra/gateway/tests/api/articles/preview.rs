//! Preview links: an administrator makes a link to an article (a draft, usually) and revokes
//! it; anyone with the link reads the article's detail until it expires, is revoked or
//! replaced, or the article is deleted; every answer of the read says `no-store` and
//! `noindex`, a read counts no view, and the table keeps no token.

use blog_api::ports::table::{n, Key, Update};
use chrono::{Duration, NaiveDateTime, Utc};
use serde_json::{json, Value};

use crate::{
    articles::{
        cases::{act, admin_detail, assert_error, assert_ok, create, published},
        views::sweep_views,
    },
    support::{Api, Reply},
};

const NO_STORE: &str = "no-store";
const NOINDEX: &str = "noindex";

async fn make(api: &Api, admin: &str, id: &str, body: Option<Value>) -> Reply {
    api.call("POST", &format!("/api/v1/admin/articles/{id}/preview"), Some(admin), body).await
}

async fn revoke(api: &Api, admin: &str, id: &str) -> Reply {
    api.call("DELETE", &format!("/api/v1/admin/articles/{id}/preview"), Some(admin), None).await
}

/// Makes a link to `id` working `hours` (the default without): its token.
async fn link(api: &Api, admin: &str, id: &str, hours: Option<i64>) -> String {
    let body = hours.map(|hours| json!({"expiresInHours": hours}));
    let reply = make(api, admin, id, body).await;
    let data = assert_ok(&reply);
    let token = data["token"].as_str().expect("a token").to_string();
    assert_eq!(data["path"], json!(format!("/api/v1/articles/preview/{token}")));
    assert_expires_in(&data["expiresAt"], hours.unwrap_or(24));
    token
}

/// `expires_at` is an API time `hours` from now (within a minute).
fn assert_expires_in(expires_at: &Value, hours: i64) {
    let text = expires_at.as_str().unwrap_or_else(|| panic!("expiresAt: {expires_at}"));
    let at = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("an API time");
    let wanted = Utc::now().naive_utc() + Duration::hours(hours);
    let off = (at - wanted).num_seconds().abs();
    assert!(off <= 60, "expiresAt {text}, wanted {hours} h from now ({off} s off)");
}

/// A read through the link `token`.
async fn read(api: &Api, token: &str) -> Reply {
    api.call("GET", &format!("/api/v1/articles/preview/{token}"), None, None).await
}

/// `reply` says that no cache may keep it and no search engine list it, and carries no tag.
fn assert_private(reply: &Reply, what: &str) {
    let header = |name: &str| reply.headers.get(name).cloned().unwrap_or_default();
    assert_eq!(header("cache-control"), NO_STORE, "{what}: {:?}", reply.headers);
    assert_eq!(header("x-robots-tag"), NOINDEX, "{what}: {:?}", reply.headers);
    assert!(!reply.headers.contains_key("etag"), "{what}: {:?}", reply.headers);
}

/// The 404 every dead link answers alike.
fn assert_dead(reply: &Reply, what: &str) {
    assert_error(reply, 404, "NOT_FOUND");
    assert_eq!(
        reply.body["message"],
        json!("no such preview link (unknown, expired or revoked)"),
        "{what}"
    );
    assert_private(reply, what);
}

/// The article's live link as the table keeps it (`ARTICLE#<id>` / `A#PREVIEW`).
async fn live_link(api: &Api, id: &str) -> Option<blog_api::ports::table::Item> {
    api.table.get(&Key::new(format!("ARTICLE#{id}"), "A#PREVIEW")).await.expect("a read")
}

pub async fn a_preview_link_reads_the_draft_until_it_is_revoked(api: Api) {
    let admin = api.admin_token().await;
    let body = json!({"title": "Work in progress", "content": "# Soon\n\nNot *yet*.",
        "summary": "Not yet"});
    let id = create(&api, &admin, body).await;
    let token = link(&api, &admin, &id, None).await;
    let public = format!("/api/v1/articles/{id}");
    assert_error(&api.call("GET", &public, None, None).await, 404, "ARTICLE_NOT_FOUND");

    let reply = read(&api, &token).await;
    let shown = assert_ok(&reply).clone();
    assert_private(&reply, "the preview of a draft");
    // The detail the public read answers, as the administration shows it.
    assert_eq!(shown, admin_detail(&api, &admin, &id).await);
    assert_eq!((shown["status"].clone(), shown["publishTime"].clone()), (json!(0), Value::Null));
    assert_eq!(shown["title"], json!("Work in progress"));
    assert!(shown["contentHtml"].as_str().unwrap().contains("<em>yet</em>"), "{shown}");
    // A signed-in reader reads it alike.
    let (_, user) = api.user("reviewer").await;
    let path = format!("/api/v1/articles/preview/{token}");
    assert_eq!(assert_ok(&api.call("GET", &path, Some(&user), None).await), &shown);

    // The table keeps the digest of the token, never the token.
    let live = live_link(&api, &id).await.expect("the article's live link");
    assert!(!format!("{live:?}").contains(&token), "{live:?}");

    assert_eq!(assert_ok(&revoke(&api, &admin, &id).await), &Value::Null);
    assert_dead(&read(&api, &token).await, "a revoked link");
    assert!(live_link(&api, &id).await.is_none(), "no live link is left");
    // Revoking again, or an article that never had a link: nothing to do.
    assert_eq!(assert_ok(&revoke(&api, &admin, &id).await), &Value::Null);
    let other = create(&api, &admin, json!({"title": "Never shared", "content": "x"})).await;
    assert_ok(&revoke(&api, &admin, &other).await);
}

pub async fn a_new_link_replaces_the_one_before_and_works_the_hours_asked(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Twice shared", "content": "x"})).await;
    let first = link(&api, &admin, &id, Some(1)).await;
    assert_ok(&read(&api, &first).await);
    let second = link(&api, &admin, &id, Some(168)).await;
    assert_ne!(first, second);
    assert_dead(&read(&api, &first).await, "a replaced link");
    assert_ok(&read(&api, &second).await);
    // Links of two articles live side by side.
    let other = create(&api, &admin, json!({"title": "Other", "content": "y"})).await;
    let third = link(&api, &admin, &other, Some(2)).await;
    assert_eq!(assert_ok(&read(&api, &second).await)["title"], json!("Twice shared"));
    assert_eq!(assert_ok(&read(&api, &third).await)["title"], json!("Other"));
    // Made at once, the links of one article leave one of them working.
    let (a, b) = futures::join!(make(&api, &admin, &id, None), make(&api, &admin, &id, None));
    let tokens: Vec<String> =
        [a, b].iter().map(|r| assert_ok(r)["token"].as_str().unwrap().to_string()).collect();
    let mut working = 0;
    for token in [&second, &tokens[0], &tokens[1]] {
        working += u32::from(read(&api, token).await.status == 200);
    }
    assert_eq!(working, 1, "one live link per article");
}

pub async fn an_expired_link_answers_as_an_unknown_or_malformed_one(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Short-lived", "content": "x"})).await;
    let token = link(&api, &admin, &id, Some(1)).await;
    assert_ok(&read(&api, &token).await);
    // The hour passes: the link's expiry moves into the past (the table's TTL attribute,
    // which the table removes lazily: the read checks it).
    let live = live_link(&api, &id).await.expect("the live link");
    let digest = match &live["digest"] {
        blog_api::ports::table::AttributeValue::S(digest) => digest.clone(),
        other => panic!("digest: {other:?}"),
    };
    let past = n(Utc::now().timestamp() - 1);
    let expire = Update::new().set("expiresAt", past);
    let key = Key::new(format!("PREVIEW#{digest}"), "PREVIEW");
    api.table.update(&key, expire, None).await.expect("the link expires");
    let expired = read(&api, &token).await;
    assert_dead(&expired, "an expired link");

    let unknown = read(&api, &"A".repeat(43)).await;
    assert_dead(&unknown, "an unknown token");
    for malformed in ["x", "7", &token[..42], &format!("{token}A"), "%C3%A9"] {
        assert_dead(&read(&api, malformed).await, malformed);
    }
    assert_eq!(expired.body, unknown.body, "an expired link tells nothing more");
    // A new link works again.
    let fresh = link(&api, &admin, &id, None).await;
    assert_ok(&read(&api, &fresh).await);
}

pub async fn publishing_keeps_a_link_working_and_deleting_the_article_ends_it(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Going live", "content": "x"})).await;
    let token = link(&api, &admin, &id, None).await;
    assert_ok(&act(&api, &admin, &id, "publish").await);
    let reply = read(&api, &token).await;
    let shown = assert_ok(&reply);
    assert_eq!(shown["status"], json!(1));
    assert!(shown["publishTime"].is_string(), "{shown}");
    assert_private(&reply, "the preview of a published article");
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(assert_ok(&read(&api, &token).await)["status"], json!(2));
    // A link can be made in any status.
    let again = link(&api, &admin, &id, None).await;
    assert_dead(&read(&api, &token).await, "the link replaced");

    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_dead(&read(&api, &again).await, "a link to a deleted article");
    for gone in [id.as_str(), "919191"] {
        assert_error(&make(&api, &admin, gone, None).await, 404, "ARTICLE_NOT_FOUND");
        assert_error(&revoke(&api, &admin, gone).await, 404, "ARTICLE_NOT_FOUND");
    }
}

pub async fn preview_requests_are_checked_in_the_articles_envelope(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Checked", "content": "x"})).await;
    for hours in [json!(0), json!(169), json!(-1), json!(1.5), json!("24"), json!(true)] {
        let reply = make(&api, &admin, &id, Some(json!({"expiresInHours": hours}))).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains("expiresInHours"), "{hours}: {message}");
    }
    let path = format!("/api/v1/admin/articles/{id}/preview");
    let bearer = format!("Bearer {admin}");
    let headers = [("authorization", bearer.as_str()), ("content-type", "application/json")];
    let malformed = api.raw("POST", &path, &headers, Some("{".into())).await;
    assert_error(&malformed, 400, "PARAM_ERROR");
    assert!(live_link(&api, &id).await.is_none(), "a refused request makes no link");
    // Unknown fields are ignored; `null` is the default.
    let reply = make(&api, &admin, &id, Some(json!({"expiresInHours": null, "x": 1}))).await;
    assert_expires_in(&assert_ok(&reply)["expiresAt"], 24);
    let bad_id = "/api/v1/admin/articles/x/preview";
    assert_error(&api.call("POST", bad_id, Some(&admin), None).await, 400, "PARAM_ERROR");
    assert_error(&api.call("DELETE", bad_id, Some(&admin), None).await, 400, "PARAM_ERROR");

    let (_, user) = api.user("previewer").await;
    for method in ["POST", "DELETE"] {
        let refused = api.call(method, &path, Some(&user), None).await;
        assert_error(&refused, 403, "ACCESS_DENIED");
        assert_error(&api.call(method, &path, None, None).await, 401, "UNAUTHORIZED");
    }
}

pub async fn a_preview_counts_no_view_and_no_cache_keeps_it(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Watched", "content": "x"})).await;
    let token = link(&api, &admin, &id, None).await;
    let path = format!("/api/v1/articles/preview/{token}");
    for agent in ["Firefox", "Chrome", "Safari"] {
        for _ in 0..2 {
            let reply = api.exchange("GET", &path, &[("user-agent", agent)]).await;
            assert_eq!(reply.status, 200, "{reply:?}");
            // Every answer, the repeated ones too: none is a kept answer.
            assert_eq!(reply.headers.get("cache-control").map(String::as_str), Some(NO_STORE));
            assert_eq!(reply.headers.get("x-robots-tag").map(String::as_str), Some(NOINDEX));
        }
    }
    let conditional = api.exchange("GET", &path, &[("if-none-match", "*")]).await;
    assert_eq!(conditional.status, 200, "never a 304: {conditional:?}");
    assert!(!conditional.headers.contains_key("etag"), "{conditional:?}");
    sweep_views(&api).await;
    assert_eq!(admin_detail(&api, &admin, &id).await["viewCount"], json!(0));
}

pub async fn preview_links_cost_what_the_data_model_says(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Counted", "content": "x"})).await;
    // The token check reads the account once; later requests find it cached.
    assert_ok(&api.call("GET", "/api/v1/admin/articles", Some(&admin), None).await);
    for replacing in [false, true] {
        let (reply, counts) = api.calls_of(make(&api, &admin, &id, None)).await;
        assert_ok(&reply);
        // The head and the live link together, then the transaction (which revokes the link
        // it replaces).
        let seen = (counts.total(), counts.get_many, counts.transact);
        assert_eq!(seen, (2, 1, 1), "replacing {replacing}: {counts:?}");
        assert_eq!(counts.transact_items, 3 + u64::from(replacing), "{counts:?}");
        assert_eq!(api.exact(counts.round_trips), api.exact(2), "{counts:?}");
    }
    let token = link(&api, &admin, &id, None).await;
    // The link, then the detail's Query.
    let (reply, counts) = api.calls_of_read(|| read(&api, &token)).await;
    assert_ok(&reply);
    assert_eq!((counts.total(), counts.get, counts.query), (2, 1, 1), "read: {counts:?}");
    assert_eq!(api.exact(counts.round_trips), api.exact(2), "read: {counts:?}");
    let (reply, counts) = api.calls_of_read(|| read(&api, "not-a-token")).await;
    assert_eq!(reply.status, 404);
    assert_eq!(counts.total(), 0, "a malformed token costs no call: {counts:?}");
    let (reply, counts) = api.calls_of(revoke(&api, &admin, &id)).await;
    assert_ok(&reply);
    assert_eq!((counts.total(), counts.get_many, counts.transact), (2, 1, 1), "{counts:?}");
}
