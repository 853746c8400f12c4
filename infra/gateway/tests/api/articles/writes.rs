//! What the administration writes read before they write, and in which order their checks
//! answer now that those reads are made together.

use serde_json::json;

use crate::{
    articles::cases::{assert_error, assert_ok, create, taxonomy},
    support::Api,
};

pub async fn create_and_update_read_the_category_and_tags_in_one_round_trip(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Timed").await;
    let tag = taxonomy(&api, &admin, "tags", "Trips").await;
    let body = json!({"title": "Trips", "content": "x", "categoryId": cat, "tagIds": [tag]});
    // The token check reads the account once; later requests find it cached.
    assert_ok(&api.call("GET", "/api/v1/admin/articles", Some(&admin), None).await);
    let post = api.call("POST", "/api/v1/admin/articles", Some(&admin), Some(body.clone()));
    let (reply, counts) = api.calls_of(post).await;
    let id = assert_ok(&reply).as_str().unwrap().to_string();
    // The category, the tags and the author's account (for the author's name) together, then
    // the new id, then the transaction.
    let seen = (counts.get, counts.get_many, counts.update, counts.transact);
    assert_eq!(seen, (2, 1, 1, 1), "create: {counts:?}");
    assert_eq!(api.exact(counts.round_trips), api.exact(3), "create: {counts:?}");

    let path = format!("/api/v1/admin/articles/{id}");
    let (reply, counts) = api.calls_of(api.call("PUT", &path, Some(&admin), Some(body))).await;
    assert_ok(&reply);
    // The article, the category and the tags together, then the transaction (the author's
    // name is the worker's to keep current).
    let seen = (counts.query, counts.get, counts.get_many, counts.transact);
    assert_eq!(seen, (1, 1, 1, 1), "update: {counts:?}");
    assert_eq!(api.exact(counts.round_trips), api.exact(2), "update: {counts:?}");
}

pub async fn an_update_answers_its_first_failed_check(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Checked", "content": "x"})).await;
    let update = |target: &str, body| {
        let path = format!("/api/v1/admin/articles/{target}");
        let api = &api;
        let admin = admin.clone();
        async move { api.call("PUT", &path, Some(&admin), Some(body)).await }
    };
    let nowhere = json!({"title": "t", "content": "x", "categoryId": 424242, "tagIds": [434343]});
    assert_error(&update("919191", nowhere.clone()).await, 404, "ARTICLE_NOT_FOUND");

    let mut stale = nowhere.clone();
    stale["version"] = json!(7);
    assert_error(&update(&id, stale).await, 409, "VERSION_CONFLICT");

    let reply = update(&id, nowhere).await;
    assert_error(&reply, 400, "PARAM_ERROR");
    let message = reply.body["message"].as_str().unwrap();
    assert!(message.contains("categoryId"), "the category is checked before the tags: {message}");

    let path = format!("/api/v1/admin/articles/{id}");
    let detail = api.call("GET", &path, Some(&admin), None).await;
    assert_eq!(assert_ok(&detail)["version"], json!(1), "no failed update wrote anything");
}

pub async fn content_too_large_for_one_item_is_a_parameter_error_naming_it(api: Api) {
    let admin = api.admin_token().await;
    let fits = "word ".repeat(19_000);
    let id = create(&api, &admin, json!({"title": "Long", "content": fits})).await;
    let path = format!("/api/v1/admin/articles/{id}");
    // Over the Markdown limit; and within it, Markdown whose HTML would overflow the item
    // (each `-` line renders as a list item, `<li></li>` and a newline for two bytes).
    let too_long = "a".repeat(100_001);
    let explodes = "-\n".repeat(49_000);
    for content in [too_long, explodes] {
        let body = json!({"title": "Big", "content": content});
        let (created, calls) = api
            .calls_of(api.call("POST", "/api/v1/admin/articles", Some(&admin), Some(body.clone())))
            .await;
        assert_error(&created, 400, "PARAM_ERROR");
        assert!(
            created.body["message"].as_str().unwrap().starts_with("content "),
            "{:?}",
            created.body
        );
        assert_eq!(calls.total() - calls.reads(), 0, "nothing written: {calls:?}");
        let updated = api.call("PUT", &path, Some(&admin), Some(body)).await;
        assert_error(&updated, 400, "PARAM_ERROR");
    }
    let kept = api.call("GET", &path, Some(&admin), None).await;
    assert_eq!(kept.body["data"]["title"], json!("Long"), "the article is as it was");
}
