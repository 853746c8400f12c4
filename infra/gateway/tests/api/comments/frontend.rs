//! An article page of the original web frontend (Next.js, server-side fetches): it loads the
//! article, its related list and its comment tree together, and any answer but 200 shows
//! "HTTP Error" instead of the page. Every field its types read is checked.

use serde_json::{json, Value};

use super::cases::{posted, tree};
use crate::{
    articles::cases::{assert_ok, published},
    support::{Api, PASSWORD},
};

/// Fields of the frontend's `ArticleListVO` (list and related items), with their JSON types.
const LIST_ITEM: [(&str, &str); 8] = [
    ("id", "string"),
    ("title", "string"),
    ("summary", "string"),
    ("authorName", "string"),
    ("publishTime", "string"),
    ("viewCount", "number"),
    ("likeCount", "number"),
    ("commentCount", "number"),
];

/// Fields of its `CommentVO` (tree nodes add `children`).
const COMMENT: [(&str, &str); 10] = [
    ("id", "string"),
    ("content", "string"),
    ("contentHtml", "string"),
    ("userId", "string"),
    ("userName", "string"),
    ("targetType", "string"),
    ("targetId", "string"),
    ("likeCount", "number"),
    ("createTime", "string"),
    ("isEdited", "boolean"),
];

fn kind(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

fn assert_fields(what: &str, value: &Value, fields: &[(&str, &str)]) {
    for (name, expected) in fields {
        assert_eq!(kind(&value[name]), *expected, "{what}.{name}: {value}");
    }
}

pub async fn an_article_page_loads_the_article_its_related_list_and_its_comment_tree_together(
    api: Api,
) {
    let admin = api.admin_token().await;
    api.start_worker().await;
    let id = published(&api, &admin, json!({"title": "Read me", "content": "Body"})).await;
    published(&api, &admin, json!({"title": "Read me too", "content": "Body"})).await;
    assert_eq!(api.register("page_reader").await.status, 200);
    let reader = api.login("page_reader", PASSWORD).await;
    let root = posted(&api, &reader, &id, None, "A *first* comment").await;
    posted(&api, &admin, &id, Some(&root), "A reply").await;
    // The worker computes the related list after the publish: wait until it has one.
    let related_path = format!("/api/v1/articles/{id}/related?limit=5");
    for _ in 0..100 {
        let related = api.call("GET", &related_path, None, None).await;
        if assert_ok(&related).as_array().is_some_and(|items| !items.is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    let tree_path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    let detail_path = format!("/api/v1/articles/{id}");
    let (detail, related, comments, list) = tokio::join!(
        api.call("GET", &detail_path, None, None),
        api.call("GET", &related_path, None, None),
        api.call("GET", &tree_path, None, None),
        api.call("GET", "/api/v1/articles?current=1&size=10", None, None),
    );

    let detail = assert_ok(&detail);
    assert_fields("detail", detail, &LIST_ITEM);
    let more = [("content", "string"), ("contentHtml", "string"), ("updateTime", "string")];
    assert_fields("detail", detail, &more);
    assert!(detail["authorId"].is_string() || detail["authorId"].is_number(), "{detail}");
    assert!(detail.get("authorAvatar").is_some(), "the detail names the avatar: {detail}");
    assert_eq!(detail["commentCount"], json!(2), "both comments are counted: {detail}");

    let related = assert_ok(&related).as_array().expect("an array").clone();
    assert!(!related.is_empty(), "the other article is related");
    related.iter().for_each(|item| assert_fields("related item", item, &LIST_ITEM));

    let list = assert_ok(&list);
    let records = list["records"].as_array().expect("records");
    assert!(records.len() >= 2, "{list}");
    records.iter().for_each(|item| assert_fields("list item", item, &LIST_ITEM));
    for page in ["total", "current", "size", "pages"] {
        assert!(list[page].is_number(), "{page}: {list}");
    }

    let roots = assert_ok(&comments).as_array().expect("an array of roots").clone();
    assert_eq!(roots.len(), 1, "{roots:?}");
    assert_fields("comment", &roots[0], &COMMENT);
    assert_eq!(roots[0]["targetType"], json!("ARTICLE"));
    let children = roots[0]["children"].as_array().expect("children");
    assert_eq!(children.len(), 1);
    assert_fields("reply", &children[0], &COMMENT);
    assert_eq!(children[0]["parentId"], roots[0]["id"]);
    assert_eq!(children[0]["replyToUserName"], roots[0]["userName"]);
    assert_eq!(tree(&api, None, &id).await, Value::Array(roots), "the same tree twice");
}
