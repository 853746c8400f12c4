//! A renamed author (AuthorRenamedEvent, through the worker) shows on their comments and on
//! the replies to them, on the tree and on single reads, newest rename last.

use std::time::Duration;

use blog_api::ports::events::Message;
use serde_json::{json, Value};

use super::cases::{article, posted, tree};
use crate::{
    articles::cases::{assert_ok, published},
    support::Api,
};

/// One comment as `token` reads it alone.
async fn one(api: &Api, id: &str) -> Value {
    assert_ok(&api.call("GET", &format!("/api/v1/comments/{id}"), None, None).await).clone()
}

/// Waits (the worker's delivery: seconds, 30 at most) until `check` holds of what `read` reads.
async fn eventually<F, Fut>(what: &str, read: F, check: impl Fn(&Value) -> bool)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let seen = read().await;
        if check(&seen) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}: still {seen}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub async fn a_renamed_author_shows_on_their_comments_and_the_replies_to_them(api: Api) {
    let admin = api.admin_token().await;
    let first = article(&api, &admin).await;
    let second = published(&api, &admin, json!({"title": "Also commented", "content": "x"})).await;
    let (alice_id, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let root = posted(&api, &alice, &first, None, "Alice's root").await;
    let answer = posted(&api, &bob, &first, Some(&root), "Bob answers Alice").await;
    let nested = posted(&api, &alice, &first, Some(&answer), "Alice answers Bob").await;
    let elsewhere = posted(&api, &alice, &second, None, "Alice elsewhere").await;
    let answer_elsewhere = posted(&api, &bob, &second, Some(&elsewhere), "Bob again").await;
    api.start_worker().await;
    let profile = json!({"nickname": "Alicia", "avatar": "https://example.com/alicia.png"});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&alice), Some(profile)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);

    // Single reads: her comments carry the new card, the replies to them the new name.
    for id in [&root, &nested, &elsewhere] {
        eventually(&format!("comment {id}"), || one(&api, id), |c| c["userName"] == "Alicia").await;
        let comment = one(&api, id).await;
        assert_eq!(comment["userAvatar"], json!("https://example.com/alicia.png"), "{comment}");
    }
    for id in [&answer, &answer_elsewhere] {
        let named = |c: &Value| c["replyToUserName"] == "Alicia";
        eventually(&format!("reply {id}"), || one(&api, id), named).await;
        let comment = one(&api, id).await;
        assert_eq!(comment["userName"], json!("bob"), "Bob keeps his name: {comment}");
        assert_eq!(comment["replyToUserId"], json!(alice_id.to_string()));
    }
    // Alice's answer to Bob still names Bob.
    assert_eq!(one(&api, &nested).await["replyToUserName"], json!("bob"));

    // The tree.
    let forest = tree(&api, None, &first).await;
    let root_node = &forest[0];
    assert_eq!(
        (root_node["id"].as_str(), root_node["userName"].as_str()),
        (Some(&*root), Some("Alicia"))
    );
    let answer_node = &root_node["children"][0];
    assert_eq!(answer_node["replyToUserName"], json!("Alicia"), "{forest}");
    assert_eq!(answer_node["userName"], json!("bob"));
    let nested_node = &answer_node["children"][0];
    assert_eq!(
        (nested_node["userName"].clone(), nested_node["replyToUserName"].clone()),
        (json!("Alicia"), json!("bob"))
    );
    let forest = tree(&api, None, &second).await;
    assert_eq!(forest[0]["children"][0]["replyToUserName"], json!("Alicia"), "{forest}");

    // The administration's list of her comments.
    let path = format!("/api/v1/admin/comments?userId={alice_id}");
    let list = api.call("GET", &path, Some(&admin), None).await;
    let records = assert_ok(&list)["records"].as_array().unwrap().clone();
    assert_eq!(records.len(), 3, "{list:?}");
    assert!(records.iter().all(|c| c["userName"] == "Alicia"), "{records:?}");
}

/// An AuthorRenamedEvent as the users feature writes it.
fn renamed(user_id: u64, name: &str, at: i64) -> String {
    json!({"type": "AuthorRenamedEvent", "eventId": format!("e{at}"), "userId": user_id.to_string(),
        "name": name, "avatar": "", "createdAt": at})
    .to_string()
}

fn now_ms() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    now.as_millis() as i64
}

pub async fn an_older_rename_delivered_late_changes_no_comment(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (alice_id, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let root = posted(&api, &alice, &id, None, "root").await;
    let answer = posted(&api, &bob, &id, Some(&root), "answer").await;
    // A rename from before the comment was written is older than the name it carries.
    let stale = Message {
        id: "stale".into(),
        body: renamed(alice_id, "Stale", now_ms() - 60_000),
        receive_count: 1,
    };
    assert!(api.handle_batch(&[stale]).await.is_empty(), "the stale rename handled");
    assert_eq!(one(&api, &root).await["userName"], json!("alice"));
    assert_eq!(one(&api, &answer).await["replyToUserName"], json!("alice"));
    // A newer rename, then an older one and the newer again (redelivered), in one batch.
    let now = now_ms();
    let bodies = [
        renamed(alice_id, "Newer", now + 1_000),
        renamed(alice_id, "Older", now),
        renamed(alice_id, "Newer", now + 1_000),
    ];
    let messages: Vec<Message> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| Message {
            id: format!("rename-{i}"),
            body: body.clone(),
            receive_count: 1,
        })
        .collect();
    assert!(api.handle_batch(&messages).await.is_empty(), "every rename handled");
    assert_eq!(one(&api, &root).await["userName"], json!("Newer"));
    assert_eq!(one(&api, &answer).await["replyToUserName"], json!("Newer"));
    let forest = tree(&api, None, &id).await;
    assert_eq!(
        (forest[0]["userName"].clone(), forest[0]["children"][0]["replyToUserName"].clone()),
        (json!("Newer"), json!("Newer"))
    );
    // A reply written after the rename takes the parent's name with its stamp: the older rename
    // redelivered once more changes it no more than the others.
    let late = posted(&api, &bob, &id, Some(&root), "late answer").await;
    assert_eq!(one(&api, &late).await["replyToUserName"], json!("Newer"));
    let older = Message {
        id: "older-again".into(),
        body: renamed(alice_id, "Older", now),
        receive_count: 2,
    };
    assert!(api.handle_batch(&[older]).await.is_empty());
    assert_eq!(one(&api, &late).await["replyToUserName"], json!("Newer"));
    assert_eq!(one(&api, &root).await["userName"], json!("Newer"));
}
