//! The administration of comments and reports.

use serde_json::{json, Value};

use super::cases::{article, head_counter, post, posted, tree};
use crate::{
    articles::cases::{assert_error, assert_ok},
    support::Api,
};

const ADMIN_BASE: &str = "/api/v1/admin/comments";

fn ids(page: &Value) -> Vec<String> {
    page["records"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().into()).collect()
}

pub async fn administrators_list_approve_reject_and_delete_with_a_reason(api: Api) {
    let admin = api.admin_token().await;
    let first = article(&api, &admin).await;
    let second = article(&api, &admin).await;
    let (alice_id, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let a1 = posted(&api, &alice, &first, None, "a1").await;
    let b1 = posted(&api, &bob, &first, None, "b1").await;
    let a2 = posted(&api, &alice, &second, None, "a2").await;
    let reply = posted(&api, &bob, &first, Some(&a1), "reply").await;

    let all = api.call("GET", &format!("{ADMIN_BASE}?size=2&current=1"), Some(&admin), None).await;
    let all = assert_ok(&all);
    assert_eq!(
        (all["total"].clone(), all["pages"].clone(), all["current"].clone()),
        (json!(4), json!(2), json!(1))
    );
    assert_eq!(ids(all), [reply.clone(), a2.clone()], "newest first");
    let by_user = format!("{ADMIN_BASE}?userId={alice_id}");
    assert_eq!(
        ids(assert_ok(&api.call("GET", &by_user, Some(&admin), None).await)),
        [a2.clone(), a1.clone()]
    );
    let by_article = format!("{ADMIN_BASE}?targetId={second}");
    assert_eq!(
        ids(assert_ok(&api.call("GET", &by_article, Some(&admin), None).await)),
        [a2.as_str()]
    );

    // Reject: hidden from others with the reply under it, shown to its author; counts move
    // once, by both.
    let path = format!("{ADMIN_BASE}/{a1}/reject");
    let no_reason = api.call("POST", &path, Some(&admin), None).await;
    assert_error(&no_reason, 400, "PARAM_ERROR");
    for _ in 0..2 {
        let rejected = api.call("POST", &path, Some(&admin), Some(json!({"reason": "rude"}))).await;
        assert_eq!(assert_ok(&rejected)["status"], json!("REJECTED"));
    }
    assert_eq!(head_counter(&api, &first, "commentCount").await, 1);
    assert_eq!(tree(&api, None, &first).await.as_array().unwrap().len(), 1, "b1 only");
    assert_eq!(tree(&api, Some(&alice), &first).await.as_array().unwrap().len(), 2);
    let rejected = format!("{ADMIN_BASE}?status=REJECTED");
    assert_eq!(
        ids(assert_ok(&api.call("GET", &rejected, Some(&admin), None).await)),
        [a1.as_str()]
    );
    // Approve it again.
    let approve = format!("{ADMIN_BASE}/{a1}/approve");
    assert_eq!(
        assert_ok(&api.call("POST", &approve, Some(&admin), None).await)["status"],
        json!("APPROVED")
    );
    assert_eq!(head_counter(&api, &first, "commentCount").await, 3);
    assert_eq!(tree(&api, None, &first).await[0]["replyCount"], json!(1));
    // Delete with a reason; the list leaves it out unless asked for DELETED.
    let delete = format!("{ADMIN_BASE}/{b1}");
    assert_ok(&api.call("DELETE", &delete, Some(&admin), Some(json!({"reason": "spam"}))).await);
    assert_error(&api.call("DELETE", &delete, Some(&admin), None).await, 404, "COMMENT_NOT_FOUND");
    assert_eq!(head_counter(&api, &first, "commentCount").await, 2);
    let deleted = format!("{ADMIN_BASE}?status=deleted");
    let deleted = api.call("GET", &deleted, Some(&admin), None).await;
    assert_eq!(ids(assert_ok(&deleted)), [b1.as_str()]);
    assert_eq!(
        deleted.body["data"]["records"][0]["userName"],
        json!("bob"),
        "admins see the author"
    );
    // Only administrators; parameters are checked.
    for token in [None, Some(alice.as_str())] {
        let reply = api.call("GET", ADMIN_BASE, token, None).await;
        assert_eq!(reply.status, if token.is_some() { 403 } else { 401 });
        let approve = api.call("POST", &approve, token, None).await;
        assert_eq!(approve.status, if token.is_some() { 403 } else { 401 });
    }
    assert_error(
        &api.call("GET", &format!("{ADMIN_BASE}/reports"), Some(&alice), None).await,
        403,
        "FORBIDDEN",
    );
    for query in ["size=0", "size=101", "page=0", "status=NOPE", "userId=x", "targetId=0"] {
        let reply = api.call("GET", &format!("{ADMIN_BASE}?{query}"), Some(&admin), None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
    }
    let unknown = format!("{ADMIN_BASE}/424242/approve");
    assert_error(&api.call("POST", &unknown, Some(&admin), None).await, 404, "COMMENT_NOT_FOUND");
}

pub async fn with_moderation_an_approved_comment_shows_and_counts(mut api: Api) {
    // The template's parameter, which feeds BLOG_COMMENTS_MODERATION.
    api.set_parameter("CommentsModeration", "true").await;
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let pending = post(&api, &alice, &id, None, "wait").await;
    let pending = assert_ok(&pending)["id"].as_str().unwrap().to_string();
    let list = api.call("GET", &format!("{ADMIN_BASE}?status=PENDING"), Some(&admin), None).await;
    assert_eq!(ids(assert_ok(&list)), [pending.as_str()]);
    let approve = format!("{ADMIN_BASE}/{pending}/approve");
    assert_ok(&api.call("POST", &approve, Some(&admin), None).await);
    assert_eq!(tree(&api, None, &id).await[0]["id"], json!(pending));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 1);
}

pub async fn reports_are_one_open_per_user_and_upheld_or_dismissed_once(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (alice_id, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let comment = posted(&api, &bob, &id, None, "buy now").await;
    let other = posted(&api, &bob, &id, None, "fine").await;
    let path = format!("/api/v1/comments/{comment}/report");
    let report = api
        .call("POST", &path, Some(&alice), Some(json!({"reason": "SPAM", "detail": "ads"})))
        .await;
    let report = assert_ok(&report).clone();
    assert_eq!(report["commentId"], json!(comment));
    assert_eq!(report["userId"], json!(alice_id.to_string()));
    assert_eq!(
        (report["reason"].clone(), report["status"].clone()),
        (json!("SPAM"), json!("OPEN"))
    );
    assert_eq!(report["detail"], json!("ads"));
    assert!(report["createTime"].as_str().is_some_and(|t| t.len() == 19));
    let again = api.call("POST", &path, Some(&alice), Some(json!({"reason": "ABUSE"}))).await;
    assert_error(&again, 409, "CONFLICT");
    for body in [
        json!({}),
        json!({"reason": "BORING"}),
        json!({"reason": "OTHER", "detail": "x".repeat(501)}),
    ] {
        assert_error(&api.call("POST", &path, Some(&alice), Some(body)).await, 400, "PARAM_ERROR");
    }
    assert_error(
        &api.call("POST", &path, None, Some(json!({"reason": "SPAM"}))).await,
        401,
        "UNAUTHORIZED",
    );
    let unknown = "/api/v1/comments/424242/report";
    assert_error(
        &api.call("POST", unknown, Some(&alice), Some(json!({"reason": "SPAM"}))).await,
        404,
        "COMMENT_NOT_FOUND",
    );
    let second = api
        .call(
            "POST",
            &format!("/api/v1/comments/{other}/report"),
            Some(&alice),
            Some(json!({"reason": "OFF_TOPIC"})),
        )
        .await;
    let second = assert_ok(&second)["id"].as_str().unwrap().to_string();

    let open =
        api.call("GET", &format!("{ADMIN_BASE}/reports?status=OPEN"), Some(&admin), None).await;
    assert_eq!(assert_ok(&open)["total"], json!(2));
    let first = report["id"].as_str().unwrap();
    let uphold = format!("{ADMIN_BASE}/reports/{first}/uphold");
    assert_eq!(
        assert_ok(&api.call("POST", &uphold, Some(&admin), None).await)["status"],
        json!("UPHELD")
    );
    assert_error(&api.call("POST", &uphold, Some(&admin), None).await, 409, "CONFLICT");
    let reply = api.call("GET", &format!("/api/v1/comments/{comment}"), None, None).await;
    assert_error(&reply, 404, "COMMENT_NOT_FOUND");
    assert_eq!(
        head_counter(&api, &id, "commentCount").await,
        1,
        "the rejected comment left the count"
    );
    let dismiss = format!("{ADMIN_BASE}/reports/{second}/dismiss");
    assert_eq!(
        assert_ok(&api.call("POST", &dismiss, Some(&admin), None).await)["status"],
        json!("DISMISSED")
    );
    assert_ok(&api.call("GET", &format!("/api/v1/comments/{other}"), None, None).await);
    let all = api.call("GET", &format!("{ADMIN_BASE}/reports?size=1"), Some(&admin), None).await;
    let all = assert_ok(&all);
    assert_eq!((all["total"].clone(), all["pages"].clone()), (json!(2), json!(2)));
    assert_eq!(all["records"][0]["id"], json!(second), "newest first");
    // A closed report lets its user report the comment again.
    let again = api.call("POST", &path, Some(&alice), Some(json!({"reason": "ABUSE"}))).await;
    assert_error(&again, 404, "COMMENT_NOT_FOUND");
    let again = api
        .call(
            "POST",
            &format!("/api/v1/comments/{other}/report"),
            Some(&alice),
            Some(json!({"reason": "OTHER"})),
        )
        .await;
    assert_eq!(assert_ok(&again)["status"], json!("OPEN"));
    let unknown = format!("{ADMIN_BASE}/reports/424242/dismiss");
    assert_error(&api.call("POST", &unknown, Some(&admin), None).await, 404, "NOT_FOUND");
    let bad = format!("{ADMIN_BASE}/reports?status=CLOSED");
    assert_error(&api.call("GET", &bad, Some(&admin), None).await, 400, "PARAM_ERROR");
}
