//! Administration and lifecycle cases, written once against [`Api`].

use futures::future::join_all;
use serde_json::{json, Value};

use crate::support::{Api, Reply};

pub fn assert_ok(reply: &Reply) -> &Value {
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(200), "{:?}", reply.body);
    &reply.body["data"]
}

pub fn assert_error(reply: &Reply, status: u16, error_code: &str) {
    assert_eq!(reply.status, status, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(status), "{:?}", reply.body);
    assert_eq!(reply.body["errorCode"], json!(error_code), "{:?}", reply.body);
    assert_eq!(reply.body["data"], Value::Null);
    assert!(reply.body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

/// Creates an article and returns its id.
pub async fn create(api: &Api, admin: &str, body: Value) -> String {
    let reply = api.call("POST", "/api/v1/admin/articles", Some(admin), Some(body)).await;
    assert_ok(&reply).as_str().expect("id as a string").to_string()
}

/// Runs a state change (publish, archive, unarchive).
pub async fn act(api: &Api, admin: &str, id: &str, action: &str) -> Reply {
    api.call("PUT", &format!("/api/v1/admin/articles/{id}/{action}"), Some(admin), None).await
}

/// Creates and publishes an article.
pub async fn published(api: &Api, admin: &str, body: Value) -> String {
    let id = create(api, admin, body).await;
    assert_ok(&act(api, admin, &id, "publish").await);
    id
}

/// Creates a category or tag and returns its id.
pub async fn taxonomy(api: &Api, admin: &str, kind: &str, name: &str) -> String {
    let body = json!({"name": name, "slug": name.to_lowercase()});
    let reply = api.call("POST", &format!("/api/v1/admin/{kind}"), Some(admin), Some(body)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    reply.body["data"]["id"].as_str().unwrap().to_string()
}

/// The administration's detail of an article.
pub async fn admin_detail(api: &Api, admin: &str, id: &str) -> Value {
    let reply = api.call("GET", &format!("/api/v1/admin/articles/{id}"), Some(admin), None).await;
    assert_ok(&reply).clone()
}

/// The titles of a page's records, in order.
pub fn page_titles(page: &Value) -> Vec<String> {
    let records = page["records"].as_array().expect("records");
    records.iter().map(|r| r["title"].as_str().unwrap_or_default().to_string()).collect()
}

/// Waits until `path`, a read of the search index, answers a page with exactly `titles` (the
/// index is the worker's, and a reader loads a newer one within seconds), and returns that
/// page. Waits for the answer, not for a time: a minute is only the bound on a failure.
pub async fn searched(api: &Api, path: &str, titles: &[&str]) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let reply = api.call("GET", path, None, None).await;
        let page = assert_ok(&reply).clone();
        if page_titles(&page) == titles {
            return page;
        }
        assert!(std::time::Instant::now() < deadline, "{path}: never {titles:?}, still {page}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// [`searched`] in any order: for matches of equal score, which rank newest first, when the
/// test cannot know whether they were published within one second.
pub async fn searched_in_any_order(api: &Api, path: &str, titles: &[&str]) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut wanted: Vec<String> = titles.iter().map(|t| t.to_string()).collect();
    wanted.sort();
    loop {
        let reply = api.call("GET", path, None, None).await;
        let page = assert_ok(&reply).clone();
        let mut found = page_titles(&page);
        found.sort();
        if found == wanted {
            return page;
        }
        assert!(std::time::Instant::now() < deadline, "{path}: never {titles:?}, still {page}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

pub async fn count(api: &Api, kind: &str, slug: &str) -> i64 {
    let reply = api.call("GET", &format!("/api/v1/{kind}/slug/{slug}"), None, None).await;
    reply.body["data"]["articleCount"].as_i64().unwrap()
}

pub async fn an_administrator_creates_a_draft_with_rendered_content(api: Api) {
    let admin = api.admin_token().await;
    let markdown = "# Intro\n\nHello **world** <script>alert(1)</script>\n\n## Details {#more}\n\n```rust\nfn main() {}\n```\n\n- [x] done\n";
    let reply = api
        .call(
            "POST",
            "/api/v1/admin/articles",
            Some(&admin),
            Some(json!({"title": "First post", "content": markdown})),
        )
        .await;
    let id = assert_ok(&reply).as_str().unwrap().to_string();
    assert!(reply.body["message"].as_str().unwrap().contains("created"));
    assert!(id.parse::<u64>().unwrap() >= 1);
    let detail = admin_detail(&api, &admin, &id).await;
    assert_eq!(detail["status"], json!(0));
    assert_eq!(detail["version"], json!(1));
    assert_eq!(detail["content"], json!(markdown), "stored Markdown stays as written");
    let html = detail["contentHtml"].as_str().unwrap();
    assert!(html.contains("<strong>world</strong>") && !html.contains("<script"), "{html}");
    assert!(html.contains(r#"id="user-content-intro""#), "{html}");
    assert!(html.contains(r#"id="user-content-more""#), "{html}");
    assert!(html.contains(r#"class="language-rust""#), "{html}");
    let toc: Value = serde_json::from_str(detail["tocJson"].as_str().unwrap()).unwrap();
    assert_eq!(
        toc,
        json!([
            {"level": 1, "title": "Intro", "id": "user-content-intro"},
            {"level": 2, "title": "Details", "id": "user-content-more"}
        ])
    );
    let summary = detail["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Intro Hello world") && summary.chars().count() <= 200,
        "{summary}"
    );
    assert_eq!(detail["publishTime"], Value::Null);
    let given =
        create(&api, &admin, json!({"title": "T", "content": "body", "summary": "Mine"})).await;
    assert_eq!(admin_detail(&api, &admin, &given).await["summary"], json!("Mine"));
}

pub async fn create_and_update_name_the_field_that_breaks_a_rule(api: Api) {
    let admin = api.admin_token().await;
    let cases = [
        (json!({"content": "x"}), "title"),
        (json!({"title": "", "content": "x"}), "title"),
        (json!({"title": "t".repeat(201), "content": "x"}), "title"),
        (json!({"title": "t"}), "content"),
        (json!({"title": "t", "content": "x", "summary": "s".repeat(501)}), "summary"),
        (json!({"title": "t", "content": "x", "isTop": 5}), "isTop"),
        (json!({"title": "t", "content": "x", "isFeatured": "yes"}), "isFeatured"),
        (json!({"title": "t", "content": "x", "categoryId": 424242}), "categoryId"),
        (json!({"title": "t", "content": "x", "tagIds": [424242]}), "tagIds"),
        (json!({"title": 5, "content": "x"}), "title"),
    ];
    let id = create(&api, &admin, json!({"title": "ok", "content": "x"})).await;
    for (body, field) in cases {
        for (method, path) in [
            ("POST", "/api/v1/admin/articles".to_string()),
            ("PUT", format!("/api/v1/admin/articles/{id}")),
        ] {
            let reply = api.call(method, &path, Some(&admin), Some(body.clone())).await;
            assert_error(&reply, 400, "PARAM_ERROR");
            let message = reply.body["message"].as_str().unwrap();
            assert!(message.contains(field), "{method} {body}: {message}");
        }
    }
    let malformed = api
        .raw(
            "POST",
            "/api/v1/admin/articles",
            &[("authorization", &format!("Bearer {admin}"))],
            Some("{".into()),
        )
        .await;
    assert_error(&malformed, 400, "PARAM_ERROR");
    let bad_id = api.call("PUT", "/api/v1/admin/articles/abc/publish", Some(&admin), None).await;
    assert_error(&bad_id, 400, "PARAM_ERROR");
}

pub async fn the_status_transitions_follow_the_spec_table(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Lifecycle", "content": "x"})).await;
    assert_error(&act(&api, &admin, &id, "archive").await, 409, "ARTICLE_STATUS_INVALID");
    assert_error(&act(&api, &admin, &id, "unarchive").await, 409, "ARTICLE_STATUS_INVALID");
    let published = act(&api, &admin, &id, "publish").await;
    assert_eq!(published.body, json!({"code": 200, "message": "success", "data": null}));
    assert_error(&act(&api, &admin, &id, "publish").await, 409, "ARTICLE_ALREADY_PUBLISHED");
    assert_error(&act(&api, &admin, &id, "unarchive").await, 409, "ARTICLE_STATUS_INVALID");
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(admin_detail(&api, &admin, &id).await["status"], json!(2));
    assert_error(&act(&api, &admin, &id, "archive").await, 409, "ARTICLE_ALREADY_ARCHIVED");
    assert_error(&act(&api, &admin, &id, "publish").await, 409, "ARTICLE_STATUS_INVALID");
    assert_ok(&act(&api, &admin, &id, "unarchive").await);
    assert_eq!(admin_detail(&api, &admin, &id).await["status"], json!(1));
    let deleted =
        api.call("DELETE", &format!("/api/v1/admin/articles/{id}"), Some(&admin), None).await;
    assert_eq!(assert_ok(&deleted), &json!(true));
}

pub async fn publish_sets_the_publish_time_and_emits_the_event(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Event", "content": "x"})).await;
    assert_ok(&act(&api, &admin, &id, "publish").await);
    let detail = admin_detail(&api, &admin, &id).await;
    let publish_time = detail["publishTime"].as_str().unwrap().to_string();
    assert_eq!(publish_time.len(), 19);
    let event = api.next_event().await.expect("ArticlePublishedEvent sent");
    assert_eq!(event["type"], json!("ArticlePublishedEvent"));
    assert_eq!(event["articleId"], json!(id));
    assert_eq!(event["version"], json!(1));
    assert_eq!(event["publishTime"], json!(publish_time));
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_ok(&act(&api, &admin, &id, "unarchive").await);
    let again = admin_detail(&api, &admin, &id).await;
    assert_eq!(again["publishTime"], json!(publish_time), "unarchive keeps the first publish time");
}

pub async fn updates_raise_the_version_and_stale_versions_conflict(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Versioned", "content": "one"})).await;
    let path = format!("/api/v1/admin/articles/{id}");
    let first = api
        .call(
            "PUT",
            &path,
            Some(&admin),
            Some(json!({"title": "V2", "content": "## two", "version": 1})),
        )
        .await;
    assert_eq!(assert_ok(&first), &json!(true));
    let detail = admin_detail(&api, &admin, &id).await;
    assert_eq!(
        (detail["version"].clone(), detail["title"].clone(), detail["status"].clone()),
        (json!(2), json!("V2"), json!(1))
    );
    assert!(detail["contentHtml"].as_str().unwrap().contains("<h2"), "the pipeline re-ran");
    let stale = api
        .call(
            "PUT",
            &path,
            Some(&admin),
            Some(json!({"title": "V3", "content": "x", "version": 1})),
        )
        .await;
    assert_error(&stale, 409, "VERSION_CONFLICT");
    let without =
        api.call("PUT", &path, Some(&admin), Some(json!({"title": "V3", "content": "x"}))).await;
    assert_ok(&without);
    assert_eq!(admin_detail(&api, &admin, &id).await["version"], json!(3));
}

pub async fn of_concurrent_updates_of_one_version_exactly_one_wins(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Race", "content": "x"})).await;
    let path = format!("/api/v1/admin/articles/{id}");
    let attempts = (0..10).map(|i| {
        api.call(
            "PUT",
            &path,
            Some(&admin),
            Some(json!({"title": format!("Racer {i}"), "content": "x", "version": 1})),
        )
    });
    let replies = join_all(attempts).await;
    let winners: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
    assert_eq!(winners.len(), 1, "{:?}", replies.iter().map(|r| &r.body).collect::<Vec<_>>());
    for loser in replies.iter().filter(|r| r.status != 200) {
        assert_error(loser, 409, "VERSION_CONFLICT");
    }
    assert_eq!(admin_detail(&api, &admin, &id).await["version"], json!(2));
}

pub async fn deleted_and_unknown_articles_are_not_found(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Doomed", "content": "x"})).await;
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_error(&api.call("DELETE", &path, Some(&admin), None).await, 404, "ARTICLE_NOT_FOUND");
    assert_error(&api.call("GET", &path, Some(&admin), None).await, 404, "ARTICLE_NOT_FOUND");
    assert_error(
        &api.call("PUT", &path, Some(&admin), Some(json!({"title": "x", "content": "x"}))).await,
        404,
        "ARTICLE_NOT_FOUND",
    );
    for action in ["publish", "archive", "unarchive"] {
        assert_error(&act(&api, &admin, &id, action).await, 404, "ARTICLE_NOT_FOUND");
        assert_error(&act(&api, &admin, "999999", action).await, 404, "ARTICLE_NOT_FOUND");
    }
    assert_error(
        &api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await,
        404,
        "ARTICLE_NOT_FOUND",
    );
}

pub async fn only_administrators_manage_articles(api: Api) {
    let (_, user) = api.user("reader").await;
    let body = json!({"title": "x", "content": "x"});
    assert_error(
        &api.call("POST", "/api/v1/admin/articles", Some(&user), Some(body.clone())).await,
        403,
        "ACCESS_DENIED",
    );
    assert_error(
        &api.call("POST", "/api/v1/admin/articles", None, Some(body)).await,
        401,
        "UNAUTHORIZED",
    );
    assert_error(
        &api.call("GET", "/api/v1/admin/articles", Some(&user), None).await,
        403,
        "ACCESS_DENIED",
    );
    assert_error(
        &api.call("PUT", "/api/v1/admin/articles/1/publish", Some("garbage"), None).await,
        401,
        "UNAUTHORIZED",
    );
}
