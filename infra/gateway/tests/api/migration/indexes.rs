//! Items of the earlier layout move to gsi3 exactly once, with nothing else changed, and the
//! administration lists them as before.

use std::collections::{BTreeMap, BTreeSet};

use blog_api::{
    index_migration::{marker, migrate_indexes, misplaced},
    ports::table::{Index, Item, Key, Scan, Table},
};
use serde_json::{json, Value};

use super::earlier;
use crate::{
    articles::cases::{act, assert_ok, create, published},
    comments::cases::posted,
    support::Api,
};

/// Every item of `index` (the table's, for the primary index), by key.
async fn scan_all(table: &dyn Table, index: Index) -> BTreeMap<String, Item> {
    let mut items = BTreeMap::new();
    let mut scan = Scan::of(index);
    loop {
        let page = table.scan(scan.clone()).await.expect("scan");
        items
            .extend(page.items.into_iter().map(|item| (Key::of(&item).unwrap().to_string(), item)));
        match page.next {
            Some(next) => scan.start_after = Some(next),
            None => return items,
        }
    }
}

/// The items of the kinds whose index keys the layouts differ in: article heads and
/// schedules, comments and their locators, reports, file records, accounts.
pub async fn moved_kinds(table: &dyn Table) -> BTreeMap<String, Item> {
    let mut items = scan_all(table, Index::Primary).await;
    items.retain(|_, item| {
        let key = Key::of(item).unwrap();
        let kind = key.pk.split('#').next().unwrap_or_default().to_string();
        match kind.as_str() {
            "ARTICLE" => key.sk == "A#HEAD" || key.sk == "A#SCHEDULE",
            "COMMENTS" | "COMMENT" | "REPORT" | "FILE" => true,
            "USER" => key.sk == "PROFILE",
            _ => false,
        }
    });
    items
}

/// What the administration lists: articles by status, comments (all, by status, by user)
/// and reports.
async fn administration_lists(api: &Api, admin: &str, user: u64) -> Vec<Value> {
    let mut paths: Vec<String> =
        (0..3).map(|status| format!("/api/v1/admin/articles?status={status}&size=100")).collect();
    for filter in ["", "&status=REJECTED", "&status=DELETED", &format!("&userId={user}")] {
        paths.push(format!("/api/v1/admin/comments?size=100{filter}"));
    }
    paths.push("/api/v1/admin/comments/reports?size=100".into());
    let mut lists = Vec::new();
    for path in paths {
        let reply = api.call("GET", &path, Some(admin), None).await;
        lists.push(assert_ok(&reply).clone());
    }
    lists
}

/// The records a list shows (the article lists' `total` is the statistics' count).
fn shown(list: &Value) -> usize {
    list["records"].as_array().expect("records").len()
}

pub async fn items_of_the_earlier_layout_move_exactly_once_and_the_administration_lists_them_again(
    api: Api,
) {
    let admin = api.admin_token().await;
    let (alice_id, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    create(&api, &admin, json!({"title": "Draft", "content": "Not yet"})).await;
    let scheduled = create(&api, &admin, json!({"title": "Later", "content": "Soon"})).await;
    let path = format!("/api/v1/admin/articles/{scheduled}/schedule");
    let at = json!({"publishAt": "2099-01-01T09:00:00"});
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(at)).await);
    let article = published(&api, &admin, json!({"title": "Open", "content": "Read me"})).await;
    let archived = published(&api, &admin, json!({"title": "Old", "content": "Gone"})).await;
    assert_ok(&act(&api, &admin, &archived, "archive").await);
    let kept = posted(&api, &alice, &article, None, "kept").await;
    posted(&api, &bob, &article, Some(&kept), "a reply").await;
    let rejected = posted(&api, &bob, &article, None, "rude").await;
    let reject = format!("/api/v1/admin/comments/{rejected}/reject");
    assert_ok(&api.call("POST", &reject, Some(&admin), Some(json!({"reason": "rude"}))).await);
    let removed = posted(&api, &alice, &article, None, "oops").await;
    assert_ok(
        &api.call("DELETE", &format!("/api/v1/comments/{removed}"), Some(&alice), None).await,
    );
    let report = json!({"reason": "SPAM", "detail": "ads"});
    let path = format!("/api/v1/comments/{kept}/report");
    assert_ok(&api.call("POST", &path, Some(&bob), Some(report)).await);
    let file = json!({"fileName": "a.png", "fileSize": 3, "fileType": "image/png"});
    let presigned = api.call("POST", "/api/v1/files/presigned", Some(&alice), Some(file)).await;
    assert_eq!(presigned.status, 200, "{:?}", presigned.body);

    let lists = administration_lists(&api, &admin, alice_id).await;
    assert_eq!(lists.iter().map(shown).collect::<Vec<_>>(), [2, 1, 1, 3, 1, 1, 1, 1]);
    let present = moved_kinds(api.table.as_ref()).await;

    // The table as the versions before gsi3 left it: every private partition in gsi1 or gsi2.
    earlier::rewrite(api.table.as_ref(), &present.values().cloned().collect::<Vec<_>>()).await;
    let indexed = [
        scan_all(api.table.as_ref(), Index::Gsi1).await,
        scan_all(api.table.as_ref(), Index::Gsi2).await,
    ];
    let misplaced_keys: BTreeSet<&String> = indexed
        .iter()
        .flat_map(|items| items.iter().filter(|(_, item)| misplaced(item)).map(|(key, _)| key))
        .collect();
    // 4 heads, 4 comments, a report, a file, 3 accounts.
    assert_eq!(misplaced_keys.len(), 4 + 4 + 1 + 1 + 3, "{misplaced_keys:?}");
    let hidden = administration_lists(&api, &admin, alice_id).await;
    assert_eq!(hidden.iter().map(shown).collect::<Vec<_>>(), [0; 8], "the lists read gsi3 only");

    let outcome = migrate_indexes(api.table.as_ref()).await.expect("migration");
    assert_eq!((outcome.moved, outcome.already_in_place), (4 + 4 + 1 + 1 + 3, 0), "{outcome:?}");
    assert!(outcome.unknown.is_empty() && !outcome.already_done);
    let after = moved_kinds(api.table.as_ref()).await;
    assert_eq!(after.keys().collect::<Vec<_>>(), present.keys().collect::<Vec<_>>());
    for (key, item) in &present {
        assert_eq!(&after[key], item, "{key} is as the present version writes it");
    }
    for index in [Index::Gsi1, Index::Gsi2] {
        let left = scan_all(api.table.as_ref(), index).await;
        assert!(left.values().all(|item| !misplaced(item)), "{index:?} holds no private item");
    }
    assert_eq!(administration_lists(&api, &admin, alice_id).await, lists);

    let again = migrate_indexes(api.table.as_ref()).await.expect("second run");
    assert!(again.already_done && again.moved == 0, "{again:?}");
    api.table.delete(&marker(), None).await.unwrap();
    let without_marker = migrate_indexes(api.table.as_ref()).await.expect("third run");
    assert_eq!((without_marker.moved, without_marker.already_done), (0, false));
    assert!(api.table.get(&marker()).await.unwrap().is_some(), "the marker is written again");
    assert_eq!(moved_kinds(api.table.as_ref()).await, present, "nothing else changed");
}
