//! The categories: the tree and the flat list, slug lookups, the rules of the administration
//! (fields, moves, deletes) and concurrent creations of one slug.

use blog_api::taxonomy::category_count_write;
use futures::future::join_all;
use serde_json::{json, Value};

use super::steps::{assert_error, assert_ok, category, id};
use crate::support::Api;

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
