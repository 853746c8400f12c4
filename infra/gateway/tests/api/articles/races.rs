//! Many clients changing the status of one article at the same time.

use futures::future::join_all;
use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_ok, count, create, taxonomy},
    support::Api,
};

/// Error codes a lost status change may answer.
const LOSING_CODES: &[&str] = &[
    "ARTICLE_ALREADY_PUBLISHED",
    "ARTICLE_ALREADY_ARCHIVED",
    "ARTICLE_STATUS_INVALID",
    "VERSION_CONFLICT",
];

async fn total(api: &Api, token: Option<&str>, path: &str) -> Value {
    let reply = api.call("GET", path, token, None).await;
    assert_ok(&reply)["total"].clone()
}

pub async fn concurrent_status_changes_of_one_article_keep_the_counters_exact(api: Api) {
    let admin = api.admin_token().await;
    let category = taxonomy(&api, &admin, "categories", "Contended").await;
    let hot = taxonomy(&api, &admin, "tags", "Hot").await;
    let cold = taxonomy(&api, &admin, "tags", "Cold").await;
    let tags = [&hot, &cold];
    let body =
        json!({"title": "Contended", "content": "x", "categoryId": category, "tagIds": tags});
    let id = create(&api, &admin, body).await;
    let mut clients = vec![admin.clone()];
    for _ in 0..3 {
        clients.push(api.admin_token().await);
    }
    let (mut published, mut archived, mut unarchived) = (0, 0, 0);
    for round in 0..5 {
        let actions: Vec<&str> =
            (0..18).map(|i| ["publish", "archive", "unarchive"][(i + round) % 3]).collect();
        let calls =
            actions.iter().enumerate().map(|(i, action)| act(&api, &clients[i % 4], &id, action));
        for (action, reply) in actions.iter().zip(join_all(calls).await) {
            if reply.status == 200 {
                match *action {
                    "publish" => published += 1,
                    "archive" => archived += 1,
                    _ => unarchived += 1,
                }
                continue;
            }
            assert_eq!(reply.status, 409, "{action}: {:?}", reply.body);
            let code = reply.body["errorCode"].as_str().unwrap_or_default();
            assert!(LOSING_CODES.contains(&code), "{action}: {:?}", reply.body);
        }
        assert_eq!(published, 1, "round {round}: a draft is published exactly once");
        assert!(archived == unarchived || archived == unarchived + 1, "round {round}: alternation");
        let status = if archived == unarchived { 1 } else { 2 };
        let path = format!("/api/v1/admin/articles/{id}");
        let detail = api.call("GET", &path, Some(&admin), None).await;
        assert_eq!(assert_ok(&detail)["status"], json!(status), "round {round}");
        let listed = i64::from(status == 1);
        assert_eq!(
            (
                count(&api, "categories", "contended").await,
                count(&api, "tags", "hot").await,
                count(&api, "tags", "cold").await
            ),
            (listed, listed, listed),
            "round {round}"
        );
        assert_eq!(total(&api, None, "/api/v1/articles").await, json!(listed));
        let by_tag = format!("/api/v1/articles?tagId={hot}");
        assert_eq!(total(&api, None, &by_tag).await, json!(listed));
        for (code, expected) in [(1, listed), (2, 1 - listed)] {
            let path = format!("/api/v1/admin/articles?status={code}");
            assert_eq!(total(&api, Some(&admin), &path).await, json!(expected), "round {round}");
        }
        let public = api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await;
        assert_eq!(assert_ok(&public)["status"], json!(status));
    }
}
