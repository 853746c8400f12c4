//! Comments safe in public (issue 32): edits and reports limited like posting, no
//! approve-then-edit spam, nothing under a hidden comment, nothing changed on a gone article.

use futures::future::join_all;
use serde_json::{json, Value};

use super::{
    cases::{article, head_counter, post, posted, tree},
    rules::fresh_window,
};
use crate::{
    articles::cases::{assert_error, assert_ok},
    support::Api,
};

const ADMIN_BASE: &str = "/api/v1/admin/comments";

fn report_body(detail: &str) -> Option<Value> {
    Some(json!({"reason": "OTHER", "detail": detail}))
}

pub async fn edits_and_reports_are_limited_like_posting(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let (_, carol) = api.user("carol").await;
    fresh_window().await;
    let mut targets = Vec::new();
    for n in 0..5 {
        targets.push(posted(&api, &alice, &id, None, &format!("a{n}")).await);
        targets.push(posted(&api, &bob, &id, None, &format!("b{n}")).await);
    }
    targets.push(posted(&api, &carol, &id, None, "carol's own").await);
    // Ten edits a minute, then 429 with Retry-After; another user's edits are not held back.
    let path = format!("/api/v1/comments/{}", targets[0]);
    for n in 0..10 {
        let body = Some(json!({"content": format!("edit {n}")}));
        assert_ok(&api.call("PUT", &path, Some(&alice), body).await);
    }
    let refused = api.call("PUT", &path, Some(&alice), Some(json!({"content": "x"}))).await;
    assert_error(&refused, 429, "TOO_MANY_REQUESTS");
    assert!(refused.body["message"].as_str().unwrap().contains("10 edits"), "{:?}", refused.body);
    let retry: u64 = refused.headers["retry-after"].parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let mine = format!("/api/v1/comments/{}", targets[1]);
    assert_ok(&api.call("PUT", &mine, Some(&bob), Some(json!({"content": "bob's edit"}))).await);
    let current = api.call("GET", &path, None, None).await;
    assert_eq!(assert_ok(&current)["content"], json!("edit 9"), "the refused edit changed nothing");

    // One's own comment is not reported; a detail loses control and bidirectional characters.
    let own = format!("/api/v1/comments/{}/report", targets[10]);
    let reply = api.call("POST", &own, Some(&carol), report_body("mine")).await;
    assert_error(&reply, 400, "PARAM_ERROR");
    let tricky = "ok\u{202E}gnp.exe\u{2066}\u{0007} a\nb\u{200F}";
    let first = format!("/api/v1/comments/{}/report", targets[0]);
    let report = api.call("POST", &first, Some(&carol), report_body(tricky)).await;
    assert_eq!(assert_ok(&report)["detail"], json!("okgnp.exe a b"));
    for target in &targets[1..10] {
        let path = format!("/api/v1/comments/{target}/report");
        assert_ok(&api.call("POST", &path, Some(&carol), report_body("")).await);
    }
    let (_, dave) = api.user("dave").await;
    let dave_comment = posted(&api, &dave, &id, None, "dave's").await;
    let path = format!("/api/v1/comments/{dave_comment}/report");
    let refused = api.call("POST", &path, Some(&carol), report_body("")).await;
    assert_error(&refused, 429, "TOO_MANY_REQUESTS");
    assert!(refused.body["message"].as_str().unwrap().contains("10 reports"));
    assert!(refused.headers["retry-after"].parse::<u64>().is_ok_and(|s| (1..=60).contains(&s)));
    let open = format!("{ADMIN_BASE}/reports?status=OPEN");
    let open = api.call("GET", &open, Some(&admin), None).await;
    assert_eq!(assert_ok(&open)["total"], json!(10), "the refused reports are not kept");
}

pub async fn with_moderation_an_edit_sends_an_approved_comment_back_to_pending(mut api: Api) {
    api.set_parameter("CommentsModeration", "true").await;
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let approve = |comment: &str| {
        let path = format!("{ADMIN_BASE}/{comment}/approve");
        let (api, admin) = (&api, admin.clone());
        async move { assert_ok(&api.call("POST", &path, Some(&admin), None).await).clone() }
    };
    let root = posted(&api, &alice, &id, None, "root").await;
    approve(&root).await;
    let answer = posted(&api, &bob, &id, Some(&root), "answer").await;
    approve(&answer).await;
    let counts = || async {
        let forest = tree(&api, Some(&admin), &id).await;
        (head_counter(&api, &id, "commentCount").await, forest[0]["replyCount"].clone())
    };
    assert_eq!(counts().await, (2, json!(1)));
    let pending_ids = || async {
        let list = format!("{ADMIN_BASE}?status=PENDING");
        let list = api.call("GET", &list, Some(&admin), None).await;
        let records = assert_ok(&list)["records"].as_array().unwrap().clone();
        records.iter().map(|c| c["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };

    // The answer edited into spam waits for an administrator again, counted out once.
    let path = format!("/api/v1/comments/{answer}");
    for text in ["spam", "more spam"] {
        let edited = api.call("PUT", &path, Some(&bob), Some(json!({"content": text}))).await;
        assert_eq!(assert_ok(&edited)["status"], json!("PENDING"));
        assert_eq!(counts().await, (1, json!(0)));
    }
    assert_eq!(pending_ids().await, std::slice::from_ref(&answer));
    assert_error(&api.call("GET", &path, None, None).await, 404, "COMMENT_NOT_FOUND");
    approve(&answer).await;
    assert_eq!(counts().await, (2, json!(1)));

    // An edited root hides its approved answer with it, and approving it shows both again.
    let root_path = format!("/api/v1/comments/{root}");
    let edited = api.call("PUT", &root_path, Some(&alice), Some(json!({"content": "x"}))).await;
    assert_eq!(assert_ok(&edited)["status"], json!("PENDING"));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 0);
    assert_eq!(tree(&api, None, &id).await, json!([]));
    approve(&root).await;
    assert_eq!(counts().await, (2, json!(1)));

    // An administrator's edit of their own comment stays APPROVED.
    let own = posted(&api, &admin, &id, None, "by the admin").await;
    let path = format!("/api/v1/comments/{own}");
    let edited = api.call("PUT", &path, Some(&admin), Some(json!({"content": "edited"}))).await;
    assert_eq!(assert_ok(&edited)["status"], json!("APPROVED"));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 3);
}

pub async fn replies_under_a_comment_that_is_not_approved_are_refused(mut api: Api) {
    api.set_parameter("CommentsModeration", "true").await;
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let pending = posted(&api, &alice, &id, None, "waiting").await;
    // Its author sees it, but it takes no reply yet; others do not see it.
    let own = post(&api, &alice, &id, Some(&pending), "self").await;
    assert_error(&own, 400, "PARAM_ERROR");
    assert!(own.body["message"].as_str().unwrap().contains("parentId"), "{:?}", own.body);
    assert_error(&post(&api, &admin, &id, Some(&pending), "x").await, 400, "PARAM_ERROR");
    assert_error(&post(&api, &bob, &id, Some(&pending), "x").await, 404, "COMMENT_NOT_FOUND");
    assert_eq!(head_counter(&api, &id, "commentCount").await, 0);
}

pub async fn nothing_under_a_rejected_comment_is_shown_counted_or_readable_by_others(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let (_, carol) = api.user("carol").await;
    let (_, dave) = api.user("dave").await;
    let root = posted(&api, &alice, &id, None, "root").await;
    let middle = posted(&api, &bob, &id, Some(&root), "middle").await;
    let leaf = posted(&api, &carol, &id, Some(&middle), "leaf").await;
    let count = || head_counter(&api, &id, "commentCount");
    assert_eq!(count().await, 3);
    let at_once = |action: &'static str, comment: &str| {
        let path = format!("{ADMIN_BASE}/{comment}/{action}");
        let (api, admin) = (&api, admin.as_str());
        async move {
            let calls = (0..6)
                .map(|_| api.call("POST", &path, Some(admin), Some(json!({"reason": "rude"}))));
            for reply in join_all(calls).await {
                assert_ok(&reply);
            }
        }
    };

    // Rejecting the root hides and uncounts its whole subtree, once.
    at_once("reject", &root).await;
    assert_eq!(count().await, 0);
    assert_eq!(tree(&api, None, &id).await, json!([]));
    assert_eq!(tree(&api, Some(&dave), &id).await, json!([]));
    for (comment, token) in [(&middle, None), (&leaf, Some(&dave)), (&leaf, Some(&bob))] {
        let path = format!("/api/v1/comments/{comment}");
        let reply = api.call("GET", &path, token.map(String::as_str), None).await;
        assert_error(&reply, 404, "COMMENT_NOT_FOUND");
    }
    // Its author and administrators still read them.
    let leaf_path = format!("/api/v1/comments/{leaf}");
    assert_ok(&api.call("GET", &leaf_path, Some(&carol), None).await);
    assert_ok(&api.call("GET", &leaf_path, Some(&admin), None).await);
    assert_eq!(tree(&api, Some(&alice), &id).await[0]["children"][0]["id"], json!(middle));
    // No reply, like or report under it.
    assert_error(&post(&api, &dave, &id, Some(&leaf), "x").await, 404, "COMMENT_NOT_FOUND");
    assert_error(&post(&api, &alice, &id, Some(&root), "x").await, 400, "PARAM_ERROR");
    assert_error(&post(&api, &admin, &id, Some(&leaf), "x").await, 400, "PARAM_ERROR");
    let like = format!("/api/v1/comments/{middle}/like");
    assert_error(&api.call("POST", &like, Some(&dave), None).await, 404, "COMMENT_NOT_FOUND");
    let report = format!("/api/v1/comments/{leaf}/report");
    let reply = api.call("POST", &report, Some(&dave), Some(json!({"reason": "SPAM"}))).await;
    assert_error(&reply, 404, "COMMENT_NOT_FOUND");
    assert_eq!(count().await, 0);

    // Approving it back restores the subtree's counts, once.
    at_once("approve", &root).await;
    assert_eq!(count().await, 3);
    let forest = tree(&api, None, &id).await;
    assert_eq!(forest[0]["children"][0]["children"][0]["id"], json!(leaf));
    assert_eq!(forest[0]["replyCount"], json!(1));

    // A rejected middle comment takes its answer out with it; its parent counts it out.
    at_once("reject", &middle).await;
    assert_eq!(count().await, 1);
    assert_eq!(tree(&api, None, &id).await[0]["replyCount"], json!(0));
    // Deleting the rejected comment leaves a placeholder: its answer shows and counts again.
    assert_ok(&api.call("DELETE", &format!("/api/v1/comments/{middle}"), Some(&bob), None).await);
    assert_eq!(count().await, 2);
    let forest = tree(&api, None, &id).await;
    assert_eq!(forest[0]["children"][0]["status"], json!("DELETED"));
    assert_eq!(forest[0]["children"][0]["children"][0]["id"], json!(leaf));
}

pub async fn comments_of_a_deleted_article_can_no_longer_be_changed(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let comment = posted(&api, &alice, &id, None, "mine").await;
    let path = format!("/api/v1/comments/{comment}");
    assert_ok(&api.call("POST", &format!("{path}/like"), Some(&bob), None).await);
    assert_ok(
        &api.call("DELETE", &format!("/api/v1/admin/articles/{id}"), Some(&admin), None).await,
    );
    let edit = Some(json!({"content": "changed"}));
    assert_error(&api.call("PUT", &path, Some(&alice), edit).await, 404, "COMMENT_NOT_FOUND");
    for method in ["POST", "DELETE"] {
        let reply = api.call(method, &format!("{path}/like"), Some(&bob), None).await;
        assert_error(&reply, 404, "COMMENT_NOT_FOUND");
    }
    let report = format!("{path}/report");
    let report = api.call("POST", &report, Some(&bob), Some(json!({"reason": "SPAM"}))).await;
    assert_error(&report, 404, "COMMENT_NOT_FOUND");
    let stored = api.call("GET", &path, Some(&admin), None).await;
    let stored = assert_ok(&stored);
    assert_eq!((stored["content"].clone(), stored["likeCount"].clone()), (json!("mine"), json!(1)));
}
