//! The comments' rows of the capacity bench: the tree of an article with 10, 100 and 1,000
//! comments (a third of them replies), posting a comment and liking one. Commenters post at most
//! five comments a minute each, so the comments come from one account per five. Then the
//! floods no rate limit lets one client write, put straight into the table as the comments
//! feature stores them: 2,000 threads of one long comment, and 3 threads of 1,500 long replies.

use anyhow::Result;
use axum::http::Method;
use blog_api::comments::{model::StoredComment, relayout};
use futures::{stream, StreamExt, TryStreamExt};
use serde_json::json;

use crate::{
    harness::{id_of, Harness, Sample},
    measure::{metered_call, summarise, Measurement, RUNS},
};

/// Comments on the measured trees.
pub const TREE_SIZES: [usize; 3] = [10, 100, 1000];
/// Password of the bench's commenters.
const PASSWORD: &str = "Comment3r!";

/// Tokens of `count` new commenters, named after `prefix`.
async fn commenters(harness: &Harness, prefix: &str, count: usize) -> Result<Vec<String>> {
    let mut tokens = Vec::with_capacity(count);
    for n in 0..count {
        let username = format!("{prefix}{n}");
        let body = json!({
            "username": username, "password": PASSWORD, "email": format!("{username}@example.com"),
        });
        harness.call(Method::POST, "/api/v1/auth/register", None, Some(body)).await?;
        tokens.push(harness.login(&username, PASSWORD).await?.0);
    }
    Ok(tokens)
}

/// Posts `count` comments on `article` (every third a reply to the root before it); returns
/// the samples of the posts and the id of the first comment.
async fn comment(
    harness: &Harness,
    article: u64,
    count: usize,
    prefix: &str,
) -> Result<(Vec<Sample>, u64)> {
    let tokens = commenters(harness, prefix, count.div_ceil(5)).await?;
    let (mut samples, mut root, mut first) = (Vec::with_capacity(count), None::<u64>, None);
    for n in 0..count {
        let mut body = json!({
            "content": format!("Comment {n} with *some* Markdown and a [link](https://example.com/{n})."),
            "targetType": "ARTICLE",
            "targetId": article.to_string(),
        });
        if let (true, Some(parent)) = (n % 3 == 2, root) {
            body["parentId"] = json!(parent.to_string());
        }
        let token = Some(tokens[n / 5].as_str());
        let (reply, sample) =
            metered_call(harness, Method::POST, "/api/v1/comments", token, Some(body)).await?;
        let id = id_of(&reply)?;
        if n % 3 == 0 {
            root = Some(id);
        }
        first.get_or_insert(id);
        samples.push(sample);
    }
    Ok((samples, first.unwrap_or_default()))
}

/// Roots of the flooded article, and the flooded threads' replies.
const FLOOD_ROOTS: u64 = 2000;
const FLOOD_REPLIES: u64 = 1500;

/// Puts `comments` into the table with their threads' entries.
async fn put_all(harness: &Harness, comments: &[StoredComment]) -> Result<()> {
    let items = relayout::stored_items(comments)?;
    stream::iter(items)
        .map(|item| harness.table().put(item, None))
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await?;
    Ok(())
}

/// The tree rows of the floods: pages of `flooded` (2,000 roots) and of `threaded` (3 threads
/// of 1,500 replies).
async fn measure_floods(
    harness: &Harness,
    flooded: u64,
    threaded: u64,
) -> Result<Vec<Measurement>> {
    let base = 1u64 << 52;
    let roots: Vec<StoredComment> =
        (base..base + FLOOD_ROOTS).map(|id| relayout::flood_comment(flooded, id, None)).collect();
    put_all(harness, &roots).await?;
    let mut threads = Vec::new();
    for root in [base + 10_000, base + 12_000, base + 14_000] {
        threads.push(relayout::flood_comment(threaded, root, None));
        threads.extend(
            (root + 1..=root + FLOOD_REPLIES)
                .map(|id| relayout::flood_comment(threaded, id, Some(root))),
        );
    }
    put_all(harness, &threads).await?;
    let tree = |article: u64, query: &str| {
        format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={article}{query}")
    };
    let pages = [
        (tree(flooded, ""), "2,000 threads of one 2,000-character comment: page 1"),
        (tree(flooded, "&page=20&size=100"), "the same: page 20 of 100 roots"),
        (tree(threaded, ""), "3 threads of 1,500 replies of 2,000 characters: page 1"),
        (tree(threaded, "&page=2&size=1"), "the same: page 2 of 1 root"),
    ];
    let mut measurements = Vec::new();
    for (uri, what) in pages {
        let mut samples = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            samples.push(metered_call(harness, Method::GET, &uri, None, None).await?.1);
        }
        measurements.push(summarise(format!("GET /api/v1/comments/tree ({what})"), &samples));
    }
    Ok(measurements)
}

/// The comment rows: a tree per size in [`TREE_SIZES`], then posting and liking, then the
/// floods (on `articles[3]` and `articles[4]`).
pub async fn measure(harness: &Harness, articles: &[u64], token: &str) -> Result<Vec<Measurement>> {
    let mut measurements = Vec::new();
    let mut posts = Vec::new();
    let mut liked = None;
    for (size, article) in TREE_SIZES.into_iter().zip(articles) {
        let (samples, first) = comment(harness, *article, size, &format!("c{size}_")).await?;
        posts.extend(samples);
        liked.get_or_insert(first);
        let uri = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={article}");
        let mut trees = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            trees.push(metered_call(harness, Method::GET, &uri, None, None).await?.1);
        }
        let endpoint = format!("GET /api/v1/comments/tree ({size} comments, a third replies)");
        measurements.push(summarise(endpoint, &trees));
    }
    let recent = &posts[posts.len().saturating_sub(RUNS)..];
    measurements.push(summarise("POST /api/v1/comments".into(), recent));
    let uri = format!("/api/v1/comments/{}/like", liked.unwrap_or_default());
    let (_, like) = metered_call(harness, Method::POST, &uri, Some(token), None).await?;
    measurements.push(summarise("POST /api/v1/comments/{id}/like".into(), &[like]));
    if let [.., flooded, threaded] = articles[TREE_SIZES.len().min(articles.len())..] {
        measurements.extend(measure_floods(harness, flooded, threaded).await?);
    }
    Ok(measurements)
}
