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
