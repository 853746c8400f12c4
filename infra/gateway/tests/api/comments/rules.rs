//! The comment rules: depth, disabled comments, the rate limit, moderation.

use std::time::Duration;

use serde_json::json;

use super::cases::{article, head_counter, post, posted, tree};
use crate::{
    articles::cases::{assert_error, assert_ok},
    support::Api,
};

pub async fn replies_nest_at_most_five_levels(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let mut parent = posted(&api, &alice, &id, None, "depth 0").await;
    for depth in 1..=4 {
        let reply = post(&api, &alice, &id, Some(&parent), &format!("depth {depth}")).await;
        assert_eq!(assert_ok(&reply)["depth"], json!(depth));
        parent = reply.body["data"]["id"].as_str().unwrap().to_string();
    }
    let (_, bob) = api.user("bob").await;
    assert_error(&post(&api, &bob, &id, Some(&parent), "too deep").await, 400, "COMMENT_TOO_DEEP");
}

pub async fn comments_on_a_disabled_article_are_refused_and_stay_readable(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let comment = posted(&api, &alice, &id, None, "before").await;
    let update = json!({"title": "Commented", "content": "Body", "isCommentDisabled": 1});
    let reply =
        api.call("PUT", &format!("/api/v1/admin/articles/{id}"), Some(&admin), Some(update)).await;
    assert_ok(&reply);
    assert_error(&post(&api, &alice, &id, None, "after").await, 403, "COMMENTS_DISABLED");
    assert_error(&post(&api, &admin, &id, Some(&comment), "after").await, 403, "COMMENTS_DISABLED");
    assert_eq!(tree(&api, None, &id).await[0]["id"], json!(comment));
    assert_ok(&api.call("GET", &format!("/api/v1/comments/{comment}"), None, None).await);
}

/// Sleeps into the next minute when less than 20 seconds of this one are left, so that a
/// case's comments share one rate window.
pub(super) async fn fresh_window() {
    let second = chrono::Utc::now().timestamp().rem_euclid(60);
    if second > 40 {
        tokio::time::sleep(Duration::from_secs((61 - second) as u64)).await;
    }
}

pub async fn the_sixth_comment_of_a_minute_is_too_many(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    fresh_window().await;
    for n in 0..5 {
        assert_ok(&post(&api, &alice, &id, None, &format!("comment {n}")).await);
    }
    let refused = post(&api, &alice, &id, None, "one too many").await;
    assert_error(&refused, 429, "TOO_MANY_REQUESTS");
    let retry: u64 = refused.headers["retry-after"].parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Others are not held back, and a refused comment is not counted.
    assert_ok(&post(&api, &bob, &id, None, "mine").await);
    assert_eq!(head_counter(&api, &id, "commentCount").await, 6);
}

pub async fn with_moderation_comments_wait_for_approval_except_an_administrators(mut api: Api) {
    // The template's parameter, which feeds BLOG_COMMENTS_MODERATION.
    api.set_parameter("CommentsModeration", "true").await;
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let pending = post(&api, &alice, &id, None, "waiting").await;
    assert_eq!(assert_ok(&pending)["status"], json!("PENDING"));
    let pending = pending.body["data"]["id"].as_str().unwrap().to_string();
    let by_admin = post(&api, &admin, &id, None, "approved").await;
    assert_eq!(assert_ok(&by_admin)["status"], json!("APPROVED"));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 1, "PENDING is not counted");
    // Seen by its author and administrators only.
    assert_eq!(tree(&api, None, &id).await.as_array().unwrap().len(), 1);
    assert_eq!(tree(&api, Some(&bob), &id).await.as_array().unwrap().len(), 1);
    assert_eq!(tree(&api, Some(&alice), &id).await.as_array().unwrap().len(), 2);
    assert_eq!(tree(&api, Some(&admin), &id).await.as_array().unwrap().len(), 2);
    let path = format!("/api/v1/comments/{pending}");
    for (token, status) in
        [(None, 404), (Some(&bob), 404), (Some(&alice), 200), (Some(&admin), 200)]
    {
        assert_eq!(api.call("GET", &path, token.map(String::as_str), None).await.status, status);
    }
    // Nobody answers it before it is approved: not its author (400), not another user (who
    // does not see it: 404).
    assert_error(&post(&api, &alice, &id, Some(&pending), "self").await, 400, "PARAM_ERROR");
    assert_error(&post(&api, &bob, &id, Some(&pending), "x").await, 404, "COMMENT_NOT_FOUND");
    // Editing keeps it PENDING.
    let edited = api.call("PUT", &path, Some(&alice), Some(json!({"content": "edited"}))).await;
    assert_eq!(assert_ok(&edited)["status"], json!("PENDING"));
}
