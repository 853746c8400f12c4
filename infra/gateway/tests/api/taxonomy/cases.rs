//! The cases, written once against [`Api`].

use blog_shared::taxonomy::{category_count_write, tag_count_write};
use futures::future::join_all;
use serde_json::{json, Value};

use crate::support::{Api, Reply};

fn assert_ok(reply: &Reply) -> &Value {
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!("200"), "{:?}", reply.body);
    assert_eq!(reply.body["message"], json!("success"));
    &reply.body["data"]
}

fn assert_error(reply: &Reply, status: u16, error_code: &str, needle: &str) {
    assert_eq!(reply.status, status, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(status.to_string()), "{:?}", reply.body);
    assert_eq!(reply.body["errorCode"], json!(error_code), "{:?}", reply.body);
    assert_eq!(reply.body["data"], Value::Null);
    let message = reply.body["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "message {message:?} should mention {needle:?}");
}

async fn category(api: &Api, admin: &str, body: Value) -> Value {
    let reply = api.call("POST", "/api/v1/admin/categories", Some(admin), Some(body)).await;
    assert_ok(&reply).clone()
}

async fn tag(api: &Api, admin: &str, body: Value) -> Value {
    let reply = api.call("POST", "/api/v1/admin/tags", Some(admin), Some(body)).await;
    assert_ok(&reply).clone()
}

fn id(value: &Value) -> u64 {
    value["id"].as_str().unwrap().parse().unwrap()
}

pub async fn the_category_tree_nests_children_sorted_at_every_level(api: Api) {
    let admin = api.admin_token().await;
    let tech =
        category(&api, &admin, json!({"name": "Tech", "slug": "tech", "sortOrder": 2})).await;
    let life =
        category(&api, &admin, json!({"name": "Life", "slug": "life", "sortOrder": 1})).await;
    let rust = category(
        &api,
        &admin,
        json!({"name": "Rust", "slug": "rust", "sortOrder": 2, "parentId": tech["id"]}),
    )
    .await;
    let go = category(
        &api,
        &admin,
        json!({"name": "Go", "slug": "go", "sortOrder": 1, "parentId": id(&tech)}),
    )
    .await;
    let wasm =
        category(&api, &admin, json!({"name": "Wasm", "slug": "wasm", "parentId": rust["id"]}))
            .await;
    assert_eq!(rust["parentId"], tech["id"]);
    assert_eq!(wasm["description"], json!(""));
    assert_eq!(wasm["sortOrder"], json!(0));
    assert_eq!(wasm["articleCount"], json!(0));

    let tree = api.call("GET", "/api/v1/categories/tree", None, None).await;
    let tree = assert_ok(&tree);
    assert_eq!(tree.as_array().unwrap().len(), 2);
    assert_eq!(tree[0]["id"], life["id"]);
    assert_eq!(tree[0]["children"], json!([]));
    assert_eq!(tree[0]["parentId"], Value::Null);
    assert_eq!(tree[1]["id"], tech["id"]);
    assert_eq!(tree[1]["children"][0]["id"], go["id"]);
    assert_eq!(tree[1]["children"][0]["children"], json!([]));
    assert_eq!(tree[1]["children"][1]["id"], rust["id"]);
    assert_eq!(tree[1]["children"][1]["children"][0]["id"], wasm["id"]);
    assert_eq!(tree[1]["children"][1]["children"][0]["children"], json!([]));
    let first = &tree[1]["children"][1]["children"][0];
    for field in
        ["id", "name", "slug", "description", "sortOrder", "articleCount", "parentId", "children"]
    {
        assert!(first.get(field).is_some(), "{field} missing in {first}");
    }
}

pub async fn the_flat_category_list_is_ordered_by_sort_order_without_children(api: Api) {
    let admin = api.admin_token().await;
    let b = category(&api, &admin, json!({"name": "B", "slug": "b", "sortOrder": 5})).await;
    let a = category(
        &api,
        &admin,
        json!({"name": "A", "slug": "a", "sortOrder": -1, "description": "first"}),
    )
    .await;
    let c = category(
        &api,
        &admin,
        json!({"name": "C", "slug": "c", "sortOrder": 3, "parentId": b["id"]}),
    )
    .await;
    let list = api.call("GET", "/api/v1/categories", None, None).await;
    let list = assert_ok(&list).as_array().unwrap().clone();
    let ids: Vec<&Value> = list.iter().map(|c| &c["id"]).collect();
    assert_eq!(ids, [&a["id"], &c["id"], &b["id"]]);
    assert!(list.iter().all(|c| c.get("children").is_none()));
    assert_eq!(list[0]["description"], json!("first"));
    assert_eq!(list[1]["parentId"], b["id"]);
}

pub async fn a_category_slug_lookup_finds_it_and_a_miss_answers_string_404(api: Api) {
    let admin = api.admin_token().await;
    let news = category(&api, &admin, json!({"name": "News", "slug": "news"})).await;
    let found = api.call("GET", "/api/v1/categories/slug/news", None, None).await;
    assert_eq!(assert_ok(&found), &news);
    for missing in ["nothing", "Not-A-Slug!"] {
        let reply =
            api.call("GET", &format!("/api/v1/categories/slug/{missing}"), None, None).await;
        assert_error(&reply, 404, "NOT_FOUND", "category does not exist");
    }
}

pub async fn category_rules_are_checked(api: Api) {
    let admin = api.admin_token().await;
    category(&api, &admin, json!({"name": "Taken", "slug": "taken"})).await;
    let cases = [
        (json!({"slug": "no-name"}), 400, "PARAM_ERROR", "name"),
        (json!({"name": "x"}), 400, "PARAM_ERROR", "slug"),
        (json!({"name": "x", "slug": "Bad Slug"}), 400, "PARAM_ERROR", "slug"),
        (json!({"name": "x", "slug": "x".repeat(51)}), 400, "PARAM_ERROR", "slug"),
        (json!({"name": "   ", "slug": "blank"}), 400, "PARAM_ERROR", "name"),
        (json!({"name": "x", "slug": "ok-slug", "parentId": 99999}), 400, "PARAM_ERROR", "parent"),
        (
            json!({"name": "x", "slug": "ok-slug", "parentId": "abc"}),
            400,
            "PARAM_ERROR",
            "parentId",
        ),
        (
            json!({"name": "x", "slug": "ok-slug", "sortOrder": "first"}),
            400,
            "PARAM_ERROR",
            "sortOrder",
        ),
        (
            json!({"name": "x", "slug": "ok-slug", "description": "d".repeat(501)}),
            400,
            "PARAM_ERROR",
            "description",
        ),
        (json!({"name": "Again", "slug": "taken"}), 409, "CONFLICT", "slug"),
    ];
    for (body, status, code, needle) in cases {
        let reply =
            api.call("POST", "/api/v1/admin/categories", Some(&admin), Some(body.clone())).await;
        assert_error(&reply, status, code, needle);
    }
    let missing = api
        .call("PUT", "/api/v1/admin/categories/424242", Some(&admin), Some(json!({"name": "x"})))
        .await;
    assert_error(&missing, 404, "NOT_FOUND", "category does not exist");
    let bad_id = api
        .call("PUT", "/api/v1/admin/categories/x1", Some(&admin), Some(json!({"name": "x"})))
        .await;
    assert_error(&bad_id, 400, "PARAM_ERROR", "id");
}

pub async fn a_category_cannot_move_under_itself_or_a_descendant(api: Api) {
    let admin = api.admin_token().await;
    let top = category(&api, &admin, json!({"name": "Top", "slug": "top"})).await;
    let mid =
        category(&api, &admin, json!({"name": "Mid", "slug": "mid", "parentId": top["id"]})).await;
    let low =
        category(&api, &admin, json!({"name": "Low", "slug": "low", "parentId": mid["id"]})).await;
    let path = format!("/api/v1/admin/categories/{}", id(&top));
    for parent in [&top["id"], &low["id"], &mid["id"]] {
        let reply = api.call("PUT", &path, Some(&admin), Some(json!({"parentId": parent}))).await;
        assert_error(&reply, 400, "PARAM_ERROR", "parent");
    }
    let low_path = format!("/api/v1/admin/categories/{}", id(&low));
    let moved = api
        .call(
            "PUT",
            &low_path,
            Some(&admin),
            Some(json!({"parentId": null, "slug": "low-2", "name": "Low 2"})),
        )
        .await;
    let moved = assert_ok(&moved);
    assert_eq!(moved["parentId"], Value::Null);
    assert_eq!(moved["slug"], json!("low-2"));
    let old_slug = api.call("GET", "/api/v1/categories/slug/low", None, None).await;
    assert_eq!(old_slug.status, 404);
    let new_slug = api.call("GET", "/api/v1/categories/slug/low-2", None, None).await;
    assert_eq!(assert_ok(&new_slug)["name"], json!("Low 2"));
    let tree = api.call("GET", "/api/v1/categories/tree", None, None).await;
    assert_eq!(assert_ok(&tree).as_array().unwrap().len(), 2, "low is a root now");
    let reused = category(&api, &admin, json!({"name": "Low again", "slug": "low"})).await;
    assert_eq!(reused["slug"], json!("low"), "the old slug is free again");
}

pub async fn a_category_with_children_or_articles_cannot_be_deleted(api: Api) {
    let admin = api.admin_token().await;
    let parent = category(&api, &admin, json!({"name": "Parent", "slug": "parent"})).await;
    let child =
        category(&api, &admin, json!({"name": "Child", "slug": "child", "parentId": parent["id"]}))
            .await;
    let parent_path = format!("/api/v1/admin/categories/{}", id(&parent));
    let child_path = format!("/api/v1/admin/categories/{}", id(&child));
    assert_error(
        &api.call("DELETE", &parent_path, Some(&admin), None).await,
        409,
        "CONFLICT",
        "subcategories",
    );

    api.table.transact(vec![category_count_write(id(&child), 0, 1)]).await.unwrap();
    assert_error(
        &api.call("DELETE", &child_path, Some(&admin), None).await,
        409,
        "CONFLICT",
        "articles",
    );
    api.table.transact(vec![category_count_write(id(&child), 0, -1)]).await.unwrap();

    let deleted = api.call("DELETE", &child_path, Some(&admin), None).await;
    assert_eq!(assert_ok(&deleted), &Value::Null);
    assert_ok(&api.call("DELETE", &parent_path, Some(&admin), None).await);
    assert_error(
        &api.call("DELETE", &parent_path, Some(&admin), None).await,
        404,
        "NOT_FOUND",
        "category",
    );
    let tree = api.call("GET", "/api/v1/categories/tree", None, None).await;
    assert_eq!(assert_ok(&tree), &json!([]));
    assert_eq!(api.call("GET", "/api/v1/categories/slug/child", None, None).await.status, 404);
}

pub async fn only_administrators_manage_categories_and_tags(api: Api) {
    let (_, user) = api.user("plain").await;
    for path in ["/api/v1/admin/categories", "/api/v1/admin/tags"] {
        let body = json!({"name": "x", "slug": "x"});
        assert_error(
            &api.call("POST", path, Some(&user), Some(body.clone())).await,
            403,
            "ACCESS_DENIED",
            "administrator",
        );
        assert_error(&api.call("POST", path, None, Some(body)).await, 401, "UNAUTHORIZED", "token");
        assert_error(
            &api.call("DELETE", &format!("{path}/1"), Some(&user), None).await,
            403,
            "ACCESS_DENIED",
            "",
        );
    }
}

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

pub async fn article_counts_move_only_for_existing_categories_and_tags(api: Api) {
    let admin = api.admin_token().await;
    let cat = category(&api, &admin, json!({"name": "Counted", "slug": "counted"})).await;
    api.table.transact(vec![category_count_write(id(&cat), 1, 1)]).await.unwrap();
    let found = api.call("GET", "/api/v1/categories/slug/counted", None, None).await;
    assert_eq!(assert_ok(&found)["articleCount"], json!(1));
    let renamed = api
        .call(
            "PUT",
            &format!("/api/v1/admin/categories/{}", id(&cat)),
            Some(&admin),
            Some(json!({"name": "Renamed"})),
        )
        .await;
    assert_eq!(assert_ok(&renamed)["articleCount"], json!(1), "an update keeps the count");
    let missing = api.table.transact(vec![category_count_write(987654, 1, 1)]).await;
    assert!(missing.is_err(), "a count write on a missing category fails its transaction");
    let missing_tag = api.table.transact(vec![tag_count_write(987654, 1, 1)]).await;
    assert!(missing_tag.is_err());
}

pub async fn reads_of_the_tree_and_the_tag_lists_cost_one_query(api: Api) {
    let admin = api.admin_token().await;
    let root = category(&api, &admin, json!({"name": "Root", "slug": "root"})).await;
    category(&api, &admin, json!({"name": "Leaf", "slug": "leaf", "parentId": root["id"]})).await;
    tag(&api, &admin, json!({"name": "One", "slug": "one"})).await;
    for path in [
        "/api/v1/categories/tree",
        "/api/v1/categories",
        "/api/v1/tags",
        "/api/v1/tags?orderBy=name&limit=5",
        "/api/v1/tags/hot",
    ] {
        let (reply, calls) = api.calls_of(api.call("GET", path, None, None)).await;
        assert_ok(&reply);
        assert_eq!((calls.query, calls.total()), (1, 1), "{path}: {calls:?}");
    }
    let (reply, calls) =
        api.calls_of(api.call("GET", "/api/v1/categories/slug/leaf", None, None)).await;
    assert_ok(&reply);
    assert_eq!((calls.get, calls.total()), (2, 2), "slug lookup: {calls:?}");
}

pub async fn concurrent_creations_of_one_slug_give_one_category(api: Api) {
    let admin = api.admin_token().await;
    let attempts = (0..10).map(|i| {
        let body = json!({"name": format!("Same {i}"), "slug": "same"});
        api.call("POST", "/api/v1/admin/categories", Some(&admin), Some(body))
    });
    let replies = join_all(attempts).await;
    let created = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(created, 1, "{:?}", replies.iter().map(|r| &r.body).collect::<Vec<_>>());
    assert!(replies.iter().all(|r| r.status == 200 || r.status == 409));
    let list = api.call("GET", "/api/v1/categories", None, None).await;
    assert_eq!(assert_ok(&list).as_array().unwrap().len(), 1);
}
