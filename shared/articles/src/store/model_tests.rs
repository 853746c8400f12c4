//! The stored layout and the served shape of article heads.

use std::collections::HashMap;

use serde_dynamo::{AttributeValue, Item};

use super::*;

fn n(value: &str) -> AttributeValue {
    AttributeValue::N(value.into())
}

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A head item as the table has held them since the first release.
fn stored_head() -> Item {
    let tag = [("id", s("4")), ("name", s("Rust")), ("slug", s("rust")), ("color", s("#000000"))];
    let tag = AttributeValue::M(tag.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    let attributes = [
        ("id", n("7")),
        ("title", s("Ownership")),
        ("summary", s("Borrowing explained")),
        ("coverImage", s("")),
        ("authorId", n("1")),
        ("categoryId", n("3")),
        ("categoryName", s("Rust")),
        ("tags", AttributeValue::L(vec![tag])),
        ("status", n("2")),
        ("isTop", n("1")),
        ("isFeatured", n("0")),
        ("isCommentDisabled", n("1")),
        ("version", n("5")),
        ("publishTime", s("2026-01-02T03:04:05")),
        ("createTime", s("2026-01-01T00:00:00")),
        ("updateTime", s("2026-01-03T00:00:00")),
        ("isDeleted", n("0")),
    ];
    Item::from(attributes.map(|(k, v)| (k.to_string(), v)).into_iter().collect::<HashMap<_, _>>())
}

fn head() -> ArticleHead {
    ArticleHead {
        summary: "Borrowing explained".into(),
        category_id: Some(3),
        category_name: Some("Rust".into()),
        tags: vec![TagRef {
            id: "4".into(),
            name: "Rust".into(),
            slug: "rust".into(),
            color: "#000000".into(),
        }],
        status: Status::Archived,
        is_top: true,
        is_comment_disabled: true,
        version: 5,
        publish_time: Some("2026-01-02T03:04:05".into()),
        update_time: "2026-01-03T00:00:00".into(),
        ..ArticleHead::published_for_tests(7, "Ownership")
    }
}

#[test]
fn a_head_is_stored_with_the_attributes_and_types_of_the_first_layout() {
    // A head written now carries the author's card and the counters besides...
    let mut now = stored_head();
    for (attribute, value) in [("authorName", s("")), ("authorAvatar", s(""))] {
        now.insert(attribute.into(), value);
    }
    for counter in COUNTERS {
        now.insert(counter.into(), n("0"));
    }
    assert_eq!(serde_dynamo::to_item::<_, Item>(head()).unwrap(), now);
    // ...and a head of the first layout reads without them (empty name, counters 0).
    assert_eq!(serde_dynamo::from_item::<_, ArticleHead>(stored_head()).unwrap(), head());
    let mut deleted = stored_head();
    deleted.insert("isDeleted".into(), n("1"));
    let deleted: ArticleHead = serde_dynamo::from_item(deleted).unwrap();
    assert!(deleted.is_deleted && !deleted.is_listed());
    let mut without_flag = stored_head();
    without_flag.remove("isDeleted");
    let read: ArticleHead = serde_dynamo::from_item(without_flag).unwrap();
    assert!(!read.is_deleted, "an item without isDeleted is not deleted");
}

#[test]
fn the_api_serves_flags_and_status_as_numbers() {
    let detail = serde_json::to_value(Detail::new(
        &head(),
        ArticleBody { toc_json: "[]".into(), ..ArticleBody::default() },
    ))
    .unwrap();
    let fields = ["status", "isTop", "isFeatured", "isCommentDisabled"].map(|f| &detail[f]);
    assert_eq!(fields, [&serde_json::json!(2), &1.into(), &0.into(), &1.into()]);
    assert_eq!(head().listing_key(), "1#2026-01-02T03:04:05#0000000000000007");
}
