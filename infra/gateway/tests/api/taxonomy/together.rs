//! Categories and tags together: who manages them, the article counts that move on them, and
//! what their reads cost.

use blog_api::taxonomy::{category_count_write, tag_count_write};
use serde_json::json;

use super::steps::{assert_error, assert_ok, category, id, tag};
use crate::support::Api;

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
