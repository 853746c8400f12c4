//! Counts stay exact under concurrency.

use futures::future::join_all;

use super::cases::{article, head_counter, post, posted, tree};
use crate::{articles::cases::assert_ok, support::Api};

/// Four users (each within the rate limit of 5 a minute).
async fn users(api: &Api) -> Vec<String> {
    let mut tokens = Vec::new();
    for n in 0..4 {
        tokens.push(api.user(&format!("racer{n}")).await.1);
    }
    tokens
}

pub async fn parallel_comments_keep_comment_count_exact(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let tokens = users(&api).await;
    let posts = tokens.iter().flat_map(|t| (0..5).map(move |n| (t, n)));
    let (api_ref, id_ref) = (&api, id.as_str());
    let replies = join_all(
        posts.map(|(t, n)| async move { post(api_ref, t, id_ref, None, &format!("c{n}")).await }),
    )
    .await;
    replies.iter().for_each(|r| {
        assert_ok(r);
    });
    assert_eq!(head_counter(&api, &id, "commentCount").await, 20);
    assert_eq!(tree(&api, None, &id).await.as_array().unwrap().len(), 20);
}

pub async fn parallel_replies_keep_reply_count_exact(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let root = posted(&api, &admin, &id, None, "root").await;
    let tokens = users(&api).await;
    let posts = tokens.iter().flat_map(|t| (0..5).map(move |n| (t, n)));
    let (api_ref, id_ref, root_ref) = (&api, id.as_str(), root.as_str());
    let replies = join_all(posts.map(|(t, n)| async move {
        post(api_ref, t, id_ref, Some(root_ref), &format!("r{n}")).await
    }))
    .await;
    replies.iter().for_each(|r| {
        assert_ok(r);
    });
    let forest = tree(&api, None, &id).await;
    assert_eq!(forest[0]["replyCount"], serde_json::json!(20));
    assert_eq!(forest[0]["children"].as_array().unwrap().len(), 20);
    assert_eq!(head_counter(&api, &id, "commentCount").await, 21);
}

pub async fn the_first_page_of_the_tree_is_one_round_trip_and_a_comment_three(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let tokens = users(&api).await;
    let mut parent = None;
    for (n, token) in tokens.iter().enumerate() {
        for m in 0..4 {
            let comment = posted(&api, token, &id, parent.as_deref(), &format!("c{n}{m}")).await;
            parent = (m < 3).then_some(comment);
        }
    }
    let path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    let (reply, calls) = api.calls_of_read(|| api.call("GET", &path, None, None)).await;
    assert_eq!(assert_ok(&reply).as_array().unwrap().len(), 4);
    // The threads' entries, the first threads and the article's head, together.
    assert_eq!(
        (calls.query, calls.get, calls.total(), api.exact(calls.round_trips)),
        (2, 1, 3, api.exact(1)),
        "{calls:?}"
    );
    // A later page reads the entries, then its threads.
    let second = format!("{path}&page=2&size=2");
    let (reply, calls) = api.calls_of_read(|| api.call("GET", &second, None, None)).await;
    assert_eq!(assert_ok(&reply).as_array().unwrap().len(), 2);
    let seen = (calls.query, calls.get, api.exact(calls.round_trips));
    assert_eq!(seen, (2, 1, api.exact(2)), "{calls:?}");
    // The writer's account status is cached by the posts above: the article, the parent and
    // the rate window are read together, then the id, then the transaction.
    let (reply, calls) =
        api.calls_of(post(&api, &tokens[0], &id, parent.as_deref(), "counted")).await;
    assert_ok(&reply);
    assert_eq!((calls.transact, api.exact(calls.round_trips)), (1, api.exact(3)), "{calls:?}");
}

pub async fn parallel_moderation_and_deletes_move_the_counts_once(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let root = posted(&api, &alice, &id, None, "root").await;
    let reply = posted(&api, &alice, &id, Some(&root), "reply").await;
    let count = || head_counter(&api, &id, "commentCount");
    let replies = || async { tree(&api, None, &id).await[0]["replyCount"].clone() };
    let at_once = |method: &'static str, path: String, body: Option<serde_json::Value>| {
        let (api, admin) = (&api, admin.as_str());
        async move { join_all((0..8).map(|_| api.call(method, &path, Some(admin), body.clone()))).await }
    };
    let reject = format!("/api/v1/admin/comments/{reply}/reject");
    let answers = at_once("POST", reject, Some(serde_json::json!({"reason": "x"}))).await;
    answers.iter().for_each(|r| assert_eq!(r.status, 200, "{:?}", r.body));
    assert_eq!((count().await, replies().await), (1, serde_json::json!(0)));
    let approve = format!("/api/v1/admin/comments/{reply}/approve");
    let answers = at_once("POST", approve, None).await;
    answers.iter().for_each(|r| assert_eq!(r.status, 200, "{:?}", r.body));
    assert_eq!((count().await, replies().await), (2, serde_json::json!(1)));
    let delete = format!("/api/v1/comments/{reply}");
    let answers = at_once("DELETE", delete, None).await;
    let deleted = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(deleted, 1, "one delete wins, the others find it deleted");
    assert!(answers.iter().all(|r| [200, 404].contains(&r.status)));
    assert_eq!((count().await, replies().await), (1, serde_json::json!(0)));
}
