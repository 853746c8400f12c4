//! Revisions: every update keeps the version it replaces; administrators list, read and
//! restore them; at most 50 are kept; reading the article stays one read.

use futures::future::join_all;
use serde_json::{json, Value};

use crate::{
    articles::cases::{assert_error, assert_ok, create, published},
    support::{Api, Reply, ADMIN},
};

async fn update(api: &Api, admin: &str, id: &str, title: &str, content: &str) {
    let body = json!({"title": title, "content": content, "summary": format!("About {title}")});
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &path, Some(admin), Some(body)).await);
}

async fn revisions(api: &Api, admin: &str, id: &str, query: &str) -> Reply {
    let path = format!("/api/v1/admin/articles/{id}/revisions{query}");
    api.call("GET", &path, Some(admin), None).await
}

async fn restore(api: &Api, admin: &str, id: &str, version: &str, body: Option<Value>) -> Reply {
    let path = format!("/api/v1/admin/articles/{id}/revisions/{version}/restore");
    api.call("PUT", &path, Some(admin), body).await
}

fn versions(page: &Value) -> Vec<i64> {
    page["records"].as_array().unwrap().iter().map(|r| r["version"].as_i64().unwrap()).collect()
}

pub async fn every_update_keeps_the_version_it_replaces_and_a_restore_is_a_new_version(api: Api) {
    let admin = api.admin_token().await;
    let first = json!({"title": "First", "content": "# One\n\nThe first words.", "summary": "S1"});
    let id = published(&api, &admin, first).await;
    assert_eq!(assert_ok(&revisions(&api, &admin, &id, "").await)["total"], json!(0));
    update(&api, &admin, &id, "Second", "The second words.").await;
    update(&api, &admin, &id, "Third", "The third words.").await;

    let page = assert_ok(&revisions(&api, &admin, &id, "").await).clone();
    assert_eq!((page["total"].clone(), versions(&page)), (json!(2), vec![2, 1]), "newest first");
    let oldest = &page["records"][1];
    assert_eq!((oldest["title"].clone(), oldest["summary"].clone()), (json!("First"), json!("S1")));
    assert_eq!(oldest["editorName"], json!(ADMIN.0));
    assert!(oldest["editorId"].as_str().unwrap().parse::<u64>().is_ok(), "{oldest}");
    assert!(oldest["editTime"].as_str().unwrap() <= oldest["replacedTime"].as_str().unwrap());
    assert!(oldest.get("content").is_none(), "the list carries no content");
    let second = assert_ok(&revisions(&api, &admin, &id, "?page=2&size=1").await).clone();
    assert_eq!((versions(&second), second["pages"].clone()), (vec![1], json!(2)));

    let one = assert_ok(&revisions(&api, &admin, &id, "/1").await).clone();
    assert_eq!(one["content"], json!("# One\n\nThe first words."));
    assert_eq!(one["version"], json!(1));

    // Restoring is an update: a new version, optimistic locking on the version given.
    assert_error(
        &restore(&api, &admin, &id, "1", Some(json!({"version": 2}))).await,
        409,
        "VERSION_CONFLICT",
    );
    assert_ok(&restore(&api, &admin, &id, "1", Some(json!({"version": 3}))).await);
    let detail = api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await;
    let detail = assert_ok(&detail);
    assert_eq!((detail["version"].clone(), detail["title"].clone()), (json!(4), json!("First")));
    assert_eq!(detail["content"], json!("# One\n\nThe first words."));
    assert!(detail["contentHtml"].as_str().unwrap().contains("The first words."));
    let page = assert_ok(&revisions(&api, &admin, &id, "").await).clone();
    assert_eq!(versions(&page), [3, 2, 1], "the restore kept the version it replaced");
    assert_eq!(page["records"][0]["title"], json!("Third"));

    // Two restores of one version at once: exactly one wins.
    let both =
        join_all((0..2).map(|_| restore(&api, &admin, &id, "2", Some(json!({"version": 4})))));
    let statuses: Vec<u16> = both.await.iter().map(|r| r.status).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 1, "{statuses:?}");
    // Without a body a restore is conditioned on the version it read.
    assert_ok(&restore(&api, &admin, &id, "3", None).await);

    // The detail stays one read with its revisions beside it.
    let path = format!("/api/v1/articles/{id}");
    let (reply, counts) = api.calls_of(api.call("GET", &path, None, None)).await;
    assert_eq!(assert_ok(&reply)["title"], json!("Third"));
    assert_eq!((counts.query, counts.get, counts.get_many), (1, 0, 0), "{counts:?}");
}

pub async fn revisions_answer_errors_in_the_articles_envelope(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Lonely", "content": "x"})).await;
    assert_error(&revisions(&api, &admin, &id, "/1").await, 404, "NOT_FOUND");
    assert_error(&restore(&api, &admin, &id, "1", None).await, 404, "NOT_FOUND");
    assert_error(&revisions(&api, &admin, "919191", "").await, 404, "ARTICLE_NOT_FOUND");
    assert_error(&revisions(&api, &admin, "919191", "/1").await, 404, "ARTICLE_NOT_FOUND");
    for bad in ["/x", "/0", "?size=0", "?page=x"] {
        assert_error(&revisions(&api, &admin, &id, bad).await, 400, "PARAM_ERROR");
    }
    let reply = restore(&api, &admin, &id, "1", Some(json!({"version": "two"}))).await;
    assert_error(&reply, 400, "PARAM_ERROR");
    assert!(reply.body["message"].as_str().unwrap().contains("version"), "{:?}", reply.body);
    let (_, user) = api.user("reviser").await;
    assert_error(&revisions(&api, &user, &id, "").await, 403, "ACCESS_DENIED");
    let anonymous = format!("/api/v1/admin/articles/{id}/revisions");
    assert_error(&api.call("GET", &anonymous, None, None).await, 401, "UNAUTHORIZED");
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_error(&revisions(&api, &admin, &id, "").await, 404, "ARTICLE_NOT_FOUND");
}

pub async fn at_most_fifty_revisions_are_kept_the_oldest_going_first(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Edited", "content": "v1"})).await;
    for version in 2..=53 {
        update(&api, &admin, &id, "Edited", &format!("v{version}")).await;
    }
    let page = assert_ok(&revisions(&api, &admin, &id, "?size=100").await).clone();
    let kept = versions(&page);
    assert_eq!(page["total"], json!(50));
    assert_eq!(kept, (3..=52).rev().collect::<Vec<i64>>(), "versions 1 and 2 went first");
    assert_error(&revisions(&api, &admin, &id, "/2").await, 404, "NOT_FOUND");
    let three = assert_ok(&revisions(&api, &admin, &id, "/3").await).clone();
    assert_eq!(three["content"], json!("v3"));
}
