//! Articles and their categories and tags: the counters their lifecycle moves (also under
//! concurrency), a deleted tag leaving its articles, renames showing in them.

use futures::future::join_all;
use serde_json::json;

use crate::{
    articles::cases::{act, admin_detail, assert_ok, count, create, published, taxonomy},
    support::Api,
};

pub async fn counters_stay_exact_through_the_lifecycle(api: Api) {
    let admin = api.admin_token().await;
    taxonomy(&api, &admin, "categories", "Cat").await;
    let cat = taxonomy(&api, &admin, "categories", "Dog").await;
    let t1 = taxonomy(&api, &admin, "tags", "Red").await;
    let t2 = taxonomy(&api, &admin, "tags", "Blue").await;
    let id = create(
        &api,
        &admin,
        json!({"title": "Counted", "content": "x", "categoryId": cat, "tagIds": [t1, t2]}),
    )
    .await;
    assert_eq!(
        (count(&api, "categories", "dog").await, count(&api, "tags", "red").await),
        (0, 0),
        "drafts do not count"
    );
    assert_ok(&act(&api, &admin, &id, "publish").await);
    assert_eq!(
        (
            count(&api, "categories", "dog").await,
            count(&api, "tags", "red").await,
            count(&api, "tags", "blue").await
        ),
        (1, 1, 1)
    );
    let path = format!("/api/v1/admin/articles/{id}");
    let moved = json!({"title": "Counted", "content": "x", "categoryId": "1", "tagIds": [t2]});
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(moved)).await);
    assert_eq!(
        (count(&api, "categories", "cat").await, count(&api, "categories", "dog").await),
        (1, 0)
    );
    assert_eq!((count(&api, "tags", "red").await, count(&api, "tags", "blue").await), (0, 1));
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!((count(&api, "categories", "cat").await, count(&api, "tags", "blue").await), (0, 0));
    let in_use = api.call("DELETE", "/api/v1/admin/categories/1", Some(&admin), None).await;
    assert_eq!(
        in_use.status, 409,
        "an archived article still holds its category: {:?}",
        in_use.body
    );
    assert_ok(&act(&api, &admin, &id, "unarchive").await);
    assert_eq!(count(&api, "categories", "cat").await, 1);
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_eq!((count(&api, "categories", "cat").await, count(&api, "tags", "blue").await), (0, 0));
    let freed = api.call("DELETE", "/api/v1/admin/categories/1", Some(&admin), None).await;
    assert_eq!(freed.status, 200, "a deleted article frees its category: {:?}", freed.body);
}

pub async fn concurrent_publish_and_archive_keep_the_counters_exact(api: Api) {
    let admin = api.admin_token().await;
    let tag = taxonomy(&api, &admin, "tags", "Busy").await;
    let mut ids = vec![];
    for i in 0..4 {
        ids.push(
            create(
                &api,
                &admin,
                json!({"title": format!("Busy {i}"), "content": "x", "tagIds": [tag]}),
            )
            .await,
        );
    }
    for round in 0..3 {
        let actions = ids.iter().flat_map(|id| {
            let first = if round % 2 == 0 { "publish" } else { "archive" };
            [
                act(&api, &admin, id, first),
                act(&api, &admin, id, first),
                act(&api, &admin, id, "unarchive"),
            ]
        });
        join_all(actions).await;
        let mut listed = 0;
        for id in &ids {
            if admin_detail(&api, &admin, id).await["status"] == json!(1) {
                listed += 1;
            }
        }
        assert_eq!(count(&api, "tags", "busy").await, listed, "round {round}");
    }
}

pub async fn deleting_a_tag_detaches_it_from_its_articles(api: Api) {
    let admin = api.admin_token().await;
    let keep = taxonomy(&api, &admin, "tags", "Keep").await;
    let gone = taxonomy(&api, &admin, "tags", "Gone").await;
    let draft =
        create(&api, &admin, json!({"title": "Draft", "content": "x", "tagIds": [gone, keep]}))
            .await;
    let live =
        published(&api, &admin, json!({"title": "Live", "content": "x", "tagIds": [gone]})).await;
    let deleted =
        api.call("DELETE", &format!("/api/v1/admin/tags/{gone}"), Some(&admin), None).await;
    assert_eq!(deleted.status, 200, "{:?}", deleted.body);
    let draft = admin_detail(&api, &admin, &draft).await;
    assert_eq!(
        draft["tags"].as_array().unwrap().iter().map(|t| t["id"].clone()).collect::<Vec<_>>(),
        [json!(keep)]
    );
    assert_eq!(admin_detail(&api, &admin, &live).await["tags"], json!([]));
    let by_tag = api.call("GET", &format!("/api/v1/articles?tagId={gone}"), None, None).await;
    assert_eq!(assert_ok(&by_tag)["total"], json!(0));
}

pub async fn renaming_a_category_or_tag_shows_in_the_articles(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Old").await;
    let tag = taxonomy(&api, &admin, "tags", "Before").await;
    let id = published(
        &api,
        &admin,
        json!({"title": "Named", "content": "x", "categoryId": cat, "tagIds": [tag]}),
    )
    .await;
    let renamed = api
        .call(
            "PUT",
            &format!("/api/v1/admin/categories/{cat}"),
            Some(&admin),
            Some(json!({"name": "New"})),
        )
        .await;
    assert_eq!(renamed.status, 200);
    let recolored = api
        .call(
            "PUT",
            &format!("/api/v1/admin/tags/{tag}"),
            Some(&admin),
            Some(json!({"name": "After", "color": "#FF0000"})),
        )
        .await;
    assert_eq!(recolored.status, 200);
    let detail = api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await;
    let detail = assert_ok(&detail);
    assert_eq!(detail["categoryName"], json!("New"));
    assert_eq!(
        detail["tags"],
        json!([{"id": tag, "name": "After", "slug": "before", "color": "#FF0000"}])
    );
}
