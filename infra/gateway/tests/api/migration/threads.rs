//! Comments stored before threads had key ranges (replies at `C#<id16>`, locators without
//! their root, no thread entries) move into their threads exactly once, and the entries the
//! migration computes are those every write kept.

use std::collections::BTreeMap;

use blog_api::{
    comments::relayout::{marker, migrate_threads},
    ports::table::{s, Item, Key, Table},
};
use serde_json::{json, Value};

use super::indexes::moved_kinds;
use crate::{
    articles::cases::assert_ok,
    comments::cases::{article, posted, tree},
    support::Api,
};

/// The comments' items: the article's partition and the locators.
async fn comment_items(table: &dyn Table) -> BTreeMap<String, Item> {
    let mut items = moved_kinds(table).await;
    items.retain(|key, _| key.starts_with("COMMENT"));
    items
}

/// Rewrites the comments' items as the versions before thread ranges stored them.
async fn as_before_threads(table: &dyn Table, items: &BTreeMap<String, Item>) {
    for item in items.values() {
        let key = Key::of(item).expect("key");
        if key.pk.starts_with("COMMENT#") {
            let mut locator = item.clone();
            locator.remove("rootId");
            table.put(locator, None).await.unwrap();
        } else if key.sk.starts_with("R#") {
            table.delete(&key, None).await.unwrap();
        } else if let Some((_, own)) = key.sk.strip_prefix("C#").and_then(|k| k.split_once('#')) {
            let mut reply = item.clone();
            reply.insert("sk".into(), s(format!("C#{own}")));
            table.put(reply, None).await.unwrap();
            table.delete(&key, None).await.unwrap();
        }
    }
}

/// The trees of `article` as an anonymous reader, `alice` and the administrator see them.
async fn trees(api: &Api, article: &str, alice: &str, admin: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for token in [None, Some(alice), Some(admin)] {
        seen.push(tree(api, token, article).await);
    }
    seen
}

pub async fn comments_of_the_earlier_layout_join_their_threads_once_with_exact_entries(api: Api) {
    let admin = api.admin_token().await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let id = article(&api, &admin).await;
    let first = posted(&api, &alice, &id, None, "first").await;
    let answer = posted(&api, &bob, &id, Some(&first), "an answer").await;
    posted(&api, &alice, &id, Some(&answer), "and back").await;
    let rejected = posted(&api, &alice, &id, None, "rude").await;
    let path = format!("/api/v1/admin/comments/{rejected}/reject");
    assert_ok(&api.call("POST", &path, Some(&admin), Some(json!({"reason": "rude"}))).await);
    let removed = posted(&api, &bob, &id, None, "removed later").await;
    posted(&api, &alice, &id, Some(&removed), "kept under a placeholder").await;
    let gone = posted(&api, &bob, &id, Some(&first), "deleted").await;
    for (comment, token) in [(&removed, &bob), (&gone, &bob)] {
        let path = format!("/api/v1/comments/{comment}");
        assert_ok(&api.call("DELETE", &path, Some(token), None).await);
    }
    let before = trees(&api, &id, &alice, &admin).await;
    assert_eq!(before[0].as_array().unwrap().len(), 2, "{:?}", before[0]);
    let present = comment_items(api.table.as_ref()).await;

    as_before_threads(api.table.as_ref(), &present).await;
    api.table.delete(&marker(), None).await.unwrap();
    assert_eq!(tree(&api, None, &id).await, json!([]), "without entries no root is listed");

    let outcome = migrate_threads(api.table.as_ref()).await.expect("migration");
    // 4 replies moved; 3 threads.
    assert_eq!((outcome.moved, outcome.entries, outcome.already_done), (4, 3, false));
    let after = comment_items(api.table.as_ref()).await;
    assert_eq!(after.keys().collect::<Vec<_>>(), present.keys().collect::<Vec<_>>());
    for (key, item) in &present {
        assert_eq!(&after[key], item, "{key}: as the writes kept it");
    }
    assert_eq!(trees(&api, &id, &alice, &admin).await, before);

    let again = migrate_threads(api.table.as_ref()).await.expect("second run");
    assert!(again.already_done && again.moved == 0, "{again:?}");
    api.table.delete(&marker(), None).await.unwrap();
    let without_marker = migrate_threads(api.table.as_ref()).await.expect("third run");
    assert_eq!((without_marker.moved, without_marker.entries), (0, 3));
    assert_eq!(comment_items(api.table.as_ref()).await, present, "nothing else changed");
}
