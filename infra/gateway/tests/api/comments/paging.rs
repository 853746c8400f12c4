//! The tree paged by roots: `page`, `size`, `X-Total-Count`, `Link`, and a bounded answer
//! whatever the number of comments.

use blog_api::comments::{model::StoredComment, relayout};
use blog_api::ports::table::Write;
use futures::{stream, StreamExt};
use serde_json::{json, Value};

use super::cases::{article, posted};
use crate::{
    articles::cases::{assert_error, assert_ok},
    support::{Api, Reply},
};

fn tree_path(article: &str, query: &str) -> String {
    format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={article}{query}")
}

fn ids(reply: &Reply) -> Vec<String> {
    let roots = assert_ok(reply).as_array().expect("an array of roots");
    roots.iter().map(|root| root["id"].as_str().unwrap().to_string()).collect()
}

/// The path and query of the `Link` header's `rel="next"` target, when there is one.
fn next_link(reply: &Reply) -> Option<String> {
    let link = reply.headers.get("link")?;
    let (target, rel) = link.split_once(';')?;
    assert_eq!(rel.trim(), r#"rel="next""#, "{link}");
    Some(target.trim().trim_start_matches('<').trim_end_matches('>').to_string())
}

pub async fn the_tree_is_paged_by_roots_with_its_total_and_a_link_to_the_next(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let mut roots = Vec::new();
    for n in 0..7 {
        let token = if n % 2 == 0 { &alice } else { &bob };
        roots.push(posted(&api, token, &id, None, &format!("root {n}")).await);
    }
    let answer = posted(&api, &bob, &id, Some(&roots[0]), "an answer").await;

    let first = api.call("GET", &tree_path(&id, "&size=3"), None, None).await;
    assert_eq!(ids(&first), roots[..3]);
    assert_eq!(first.body["data"][0]["children"][0]["id"], json!(answer), "with its subtree");
    assert_eq!(first.headers["x-total-count"], "7");
    let next = next_link(&first).expect("a next page");
    assert!(next.starts_with("/api/v1/comments/tree?"), "{next}");
    for part in ["targetType=ARTICLE", &format!("targetId={id}"), "page=2", "size=3"] {
        assert!(next.split(['?', '&']).any(|p| p == part), "{part} in {next}");
    }
    let second = api.call("GET", &next, None, None).await;
    assert_eq!(ids(&second), roots[3..6]);
    let third = api.call("GET", &next_link(&second).expect("a third page"), None, None).await;
    assert_eq!(ids(&third), roots[6..]);
    assert_eq!((third.headers["x-total-count"].as_str(), next_link(&third)), ("7", None));
    let beyond = api.call("GET", &tree_path(&id, "&page=9&size=3"), None, None).await;
    assert_eq!((assert_ok(&beyond), beyond.headers["x-total-count"].as_str()), (&json!([]), "7"));
    // Without page and size: the first 50 roots, here all of them, and no next page.
    let all = api.call("GET", &tree_path(&id, ""), None, None).await;
    assert_eq!((ids(&all), next_link(&all)), (roots.clone(), None));
    // A new root changes the total of a page whose comments stay the same, and its tag.
    let tag = second.headers["etag"].clone();
    posted(&api, &alice, &id, None, "root 7").await;
    let again = api.call("GET", &next, None, None).await;
    assert_eq!((ids(&again), again.headers["x-total-count"].as_str()), (ids(&second), "8"));
    assert_ne!(again.headers["etag"], tag, "a cache revalidating it learns the new total");

    for (query, field) in [
        ("&size=0", "size"),
        ("&size=101", "size"),
        ("&size=ten", "size"),
        ("&page=0", "page"),
        ("&page=-1", "page"),
        ("&page=1.5", "page"),
    ] {
        let reply = api.call("GET", &tree_path(&id, query), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
}

pub async fn a_client_that_sends_no_page_gets_the_first_fifty_threads(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let mut roots = Vec::new();
    for user in 0..11 {
        let (_, token) = api.user(&format!("writer{user}")).await;
        for n in 0..5 {
            if roots.len() < 52 {
                roots.push(posted(&api, &token, &id, None, &format!("w{user} c{n}")).await);
            }
        }
    }
    let first = api.call("GET", &tree_path(&id, ""), None, None).await;
    assert_eq!(ids(&first), roots[..50]);
    assert_eq!(first.headers["x-total-count"], "52");
    let next = next_link(&first).expect("a next page");
    assert!(next.contains("page=2") && next.contains("size=50"), "{next}");
    assert_eq!(ids(&api.call("GET", &next, None, None).await), roots[50..]);
}

/// Puts `comments` straight into the table as the present layout stores them (with their
/// threads' entries).
async fn put_comments(api: &Api, comments: &[StoredComment]) {
    let mut items = relayout::stored_items(comments).expect("items").into_iter();
    // Fifty puts a transaction: DynamoDB Local takes them far faster than one request each.
    let mut batches = Vec::new();
    loop {
        let batch: Vec<Write> =
            items.by_ref().take(50).map(|item| Write::Put { item, condition: None }).collect();
        if batch.is_empty() {
            break;
        }
        batches.push(batch);
    }
    stream::iter(batches)
        .for_each_concurrent(4, |batch| async move { api.table.transact(batch).await.unwrap() })
        .await;
}

/// Puts `count` roots on `article`, ids from `first`.
async fn flood(api: &Api, article: u64, first: u64, count: u64) {
    let roots: Vec<StoredComment> =
        (first..first + count).map(|id| relayout::flood_comment(article, id, None)).collect();
    put_comments(api, &roots).await;
}

/// Puts a root `root` with `replies` replies on `article`.
async fn flood_thread(api: &Api, article: u64, root: u64, replies: u64) {
    let mut thread = vec![relayout::flood_comment(article, root, None)];
    thread.extend(
        (root + 1..=root + replies).map(|id| relayout::flood_comment(article, id, Some(root))),
    );
    put_comments(api, &thread).await;
}

fn json_bytes(reply: &Reply) -> usize {
    serde_json::to_vec(&reply.body).unwrap().len()
}

fn thread_size(root: &Value) -> usize {
    1 + root["children"].as_array().unwrap().iter().map(thread_size).sum::<usize>()
}

pub async fn a_page_of_a_flooded_article_stays_small(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let article_id: u64 = id.parse().unwrap();
    // 1,000 roots of 2,000 characters (4.5 MB as one answer): a page holds 50 of them.
    let base = 1u64 << 50;
    flood(&api, article_id, base, 1000).await;
    let page = api.call("GET", &tree_path(&id, ""), None, None).await;
    assert_eq!(assert_ok(&page).as_array().unwrap().len(), 50);
    assert_eq!(page.headers["x-total-count"], "1000");
    assert!(json_bytes(&page) < 300_000, "page 1: {} bytes", json_bytes(&page));
    let largest = api.call("GET", &tree_path(&id, "&size=100"), None, None).await;
    assert!(json_bytes(&largest) < 600_000, "100 roots: {} bytes", json_bytes(&largest));

    // 1,000 replies of 2,000 characters under one root: its thread is cut, the others of the
    // page stay whole.
    let other = article(&api, &admin).await;
    let other_id: u64 = other.parse().unwrap();
    let discussed = posted(&api, &alice, &other, None, "a real discussion").await;
    let answer = posted(&api, &bob, &other, Some(&discussed), "an answer").await;
    let flooded_root = base + 5000;
    flood_thread(&api, other_id, flooded_root, 1000).await;
    let page = api.call("GET", &tree_path(&other, ""), None, None).await;
    let roots = assert_ok(&page).as_array().unwrap();
    assert_eq!(roots.len(), 2);
    assert!(json_bytes(&page) < 1_200_000, "page 1: {} bytes", json_bytes(&page));
    assert_eq!(roots[0]["children"][0]["id"], json!(answer), "the other thread is whole");
    let kept = thread_size(&roots[1]);
    assert!((100..1001).contains(&kept), "the flooded thread keeps {kept} comments");
    let replies = roots[1]["children"].as_array().unwrap();
    let first_reply = (flooded_root + 1).to_string();
    assert_eq!(replies[0]["id"], json!(first_reply), "its oldest replies first");
}

/// Comments a page of the tree reads at most, beside the root entries and the article's head.
const READ_BUDGET: u64 = 1000;

pub async fn a_page_reads_at_most_a_thousand_comments_however_long_its_threads(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let article_id: u64 = id.parse().unwrap();
    // Three threads of 1,500 replies each: 4,503 comments, 9 MB.
    let base = 1u64 << 51;
    let roots = [base, base + 2000, base + 4000];
    for root in roots {
        flood_thread(&api, article_id, root, 1500).await;
    }
    for (query, shown) in [("", &roots[..]), ("&page=2&size=1", &roots[1..2])] {
        let path = tree_path(&id, query);
        let (page, calls) = api.calls_of_read(|| api.call("GET", &path, None, None)).await;
        assert!(calls.items_read <= READ_BUDGET + roots.len() as u64 + 1, "{query}: {calls:?}");
        assert_eq!(page.headers["x-total-count"], "3");
        let threads = assert_ok(&page).as_array().unwrap();
        let expected: Vec<String> = shown.iter().map(u64::to_string).collect();
        assert_eq!(ids(&page), expected, "{query}");
        for thread in threads {
            let root: u64 = thread["id"].as_str().unwrap().parse().unwrap();
            let replies = thread["children"].as_array().unwrap();
            // A third of 1 MiB of replies of about 4 kB each, or more.
            assert!(replies.len() >= 50, "{query}: {} replies kept", replies.len());
            let kept: Vec<u64> =
                replies.iter().map(|r| r["id"].as_str().unwrap().parse().unwrap()).collect();
            let oldest: Vec<u64> = (root + 1..=root + kept.len() as u64).collect();
            assert_eq!(kept, oldest, "{query}: each thread keeps its oldest replies");
        }
    }
}
