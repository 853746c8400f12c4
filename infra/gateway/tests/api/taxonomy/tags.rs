//! The tags: their administration, the list orders and limits, the hot tags.

use blog_api::taxonomy::tag_count_write;
use serde_json::json;

use super::steps::{assert_error, assert_ok, id, tag};
use crate::support::{Api, Reply};

pub async fn tags_are_created_updated_and_deleted(api: Api) {
    let admin = api.admin_token().await;
    let rust = tag(&api, &admin, json!({"name": "Rust", "slug": "rust", "color": "#DEA584"})).await;
    assert_eq!(
        rust,
        json!({"id": rust["id"], "name": "Rust", "slug": "rust", "color": "#DEA584", "articleCount": 0})
    );
    let plain = tag(&api, &admin, json!({"name": "Plain", "slug": "plain"})).await;
    assert_eq!(plain["color"], json!("#6C757D"), "default colour");

    let bad = [
        (json!({"name": "x", "slug": "x", "color": "red"}), 400, "PARAM_ERROR", "color"),
        (json!({"name": "x", "slug": "x", "color": "#12345"}), 400, "PARAM_ERROR", "color"),
        (json!({"name": "x", "slug": "UPPER"}), 400, "PARAM_ERROR", "slug"),
        (json!({"slug": "x"}), 400, "PARAM_ERROR", "name"),
        (json!({"name": "Other", "slug": "rust"}), 409, "CONFLICT", "slug"),
    ];
    for (body, status, code, needle) in bad {
        let reply = api.call("POST", "/api/v1/admin/tags", Some(&admin), Some(body)).await;
        assert_error(&reply, status, code, needle);
    }

    let path = format!("/api/v1/admin/tags/{}", id(&rust));
    let updated = api
        .call("PUT", &path, Some(&admin), Some(json!({"slug": "rust-lang", "color": "#000000"})))
        .await;
    let updated = assert_ok(&updated);
    assert_eq!(
        (updated["name"].clone(), updated["slug"].clone()),
        (json!("Rust"), json!("rust-lang"))
    );
    assert_eq!(api.call("GET", "/api/v1/tags/slug/rust", None, None).await.status, 404);
    let found = api.call("GET", "/api/v1/tags/slug/rust-lang", None, None).await;
    assert_eq!(assert_ok(&found)["color"], json!("#000000"));
    let clash = api.call("PUT", &path, Some(&admin), Some(json!({"slug": "plain"}))).await;
    assert_error(&clash, 409, "CONFLICT", "slug");

    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    let gone = api.call("GET", "/api/v1/tags/slug/rust-lang", None, None).await;
    assert_error(&gone, 404, "NOT_FOUND", "tag does not exist");
    assert_error(&api.call("DELETE", &path, Some(&admin), None).await, 404, "NOT_FOUND", "tag");
    let list = api.call("GET", "/api/v1/tags", None, None).await;
    assert_eq!(assert_ok(&list), &json!([plain]));
}

pub async fn tag_lists_follow_the_requested_order_and_limit(api: Api) {
    let admin = api.admin_token().await;
    let mut tags = vec![];
    for name in ["beta", "Alpha", "gamma"] {
        tags.push(tag(&api, &admin, json!({"name": name, "slug": name.to_lowercase()})).await);
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }
    let (beta, alpha, gamma) = (&tags[0], &tags[1], &tags[2]);
    api.table
        .transact(vec![tag_count_write(id(gamma), 4, 4), tag_count_write(id(beta), 2, 3)])
        .await
        .unwrap();
    let names = |reply: &Reply| -> Vec<String> {
        assert_ok(reply)
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let by_count = api.call("GET", "/api/v1/tags", None, None).await;
    assert_eq!(names(&by_count), ["gamma", "beta", "Alpha"]);
    assert_eq!(assert_ok(&by_count)[0]["articleCount"], json!(4));
    let explicit = api.call("GET", "/api/v1/tags?orderBy=article_count", None, None).await;
    assert_eq!(names(&explicit), ["gamma", "beta", "Alpha"]);
    let newest = api.call("GET", "/api/v1/tags?orderBy=create_time", None, None).await;
    assert_eq!(names(&newest), ["gamma", "Alpha", "beta"]);
    let by_name = api.call("GET", "/api/v1/tags?orderBy=name&limit=2", None, None).await;
    assert_eq!(names(&by_name), ["Alpha", "beta"]);
    let _ = alpha;
}

pub async fn bad_tag_list_parameters_are_string_400s(api: Api) {
    for query in ["orderBy=popularity", "limit=0", "limit=101", "limit=ten", "limit=-1"] {
        let reply = api.call("GET", &format!("/api/v1/tags?{query}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR", "");
    }
    for query in ["limit=0", "limit=500", "limit=x"] {
        let reply = api.call("GET", &format!("/api/v1/tags/hot?{query}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR", "limit");
    }
}

pub async fn hot_tags_are_the_most_used_ten_by_default(api: Api) {
    let admin = api.admin_token().await;
    let mut writes = vec![];
    for i in 0..12 {
        let created =
            tag(&api, &admin, json!({"name": format!("t{i}"), "slug": format!("t{i}")})).await;
        writes.push(tag_count_write(id(&created), i, i));
    }
    api.table.transact(writes).await.unwrap();
    let hot = api.call("GET", "/api/v1/tags/hot", None, None).await;
    let counts: Vec<i64> = assert_ok(&hot)
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["articleCount"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    let three = api.call("GET", "/api/v1/tags/hot?limit=3", None, None).await;
    assert_eq!(assert_ok(&three).as_array().unwrap().len(), 3);
}
