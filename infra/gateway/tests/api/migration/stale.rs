//! A move decided on a stale read never overwrites what changed since, and an item of a kind
//! the migration does not know is left alone (and the run not marked done).

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use blog_api::{
    index_migration::{marker, migrate_indexes},
    ports::table::{
        s, AttributeValue, Condition, Index, Item, Key, Query, QueryPage, Scan, Table, TableError,
        Update, Write,
    },
};
use serde_json::json;

use super::{earlier, indexes::moved_kinds};
use crate::{
    articles::cases::assert_ok,
    comments::cases::{article, posted},
    support::Api,
};

/// A table whose scans answer what the indexes held when it was made (an index read that
/// lags behind the table), every other call going to the table itself.
struct StaleScans {
    inner: Arc<dyn Table>,
    pages: BTreeMap<&'static str, QueryPage>,
}

impl StaleScans {
    async fn of(inner: Arc<dyn Table>) -> Self {
        let mut pages = BTreeMap::new();
        for index in [Index::Gsi1, Index::Gsi2, Index::Gsi3] {
            let mut page = QueryPage::default();
            let mut scan = Scan::of(index);
            loop {
                let read = inner.scan(scan.clone()).await.expect("scan");
                page.items.extend(read.items);
                match read.next {
                    Some(next) => scan.start_after = Some(next),
                    None => break,
                }
            }
            pages.insert(index.name().expect("an index"), page);
        }
        Self { inner, pages }
    }
}

#[async_trait]
impl Table for StaleScans {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.inner.update(key, update, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        self.inner.query(query).await
    }
    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        let name = scan.index.name().expect("an index");
        Ok(self.pages[name].clone())
    }
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.inner.transact(writes).await
    }
    async fn ping(&self) -> Result<(), TableError> {
        self.inner.ping().await
    }
}

fn text(item: &Item, attribute: &str) -> Option<String> {
    match item.get(attribute) {
        Some(AttributeValue::S(value)) => Some(value.clone()),
        _ => None,
    }
}

pub async fn a_move_decided_on_a_stale_read_keeps_what_changed_since_and_unknown_items_stay(
    api: Api,
) {
    let admin = api.admin_token().await;
    let (alice_id, alice) = api.user("alice").await;
    let id = article(&api, &admin).await;
    let comment = posted(&api, &alice, &id, None, "fine, then rude").await;
    let present = moved_kinds(api.table.as_ref()).await;
    earlier::rewrite(api.table.as_ref(), &present.values().cloned().collect::<Vec<_>>()).await;
    let mut unknown = Item::default();
    for (attribute, value) in
        [("pk", "THING#1"), ("sk", "X"), ("gsi1pk", "SECRET"), ("gsi1sk", "1")]
    {
        unknown.insert(attribute.into(), s(value));
    }
    api.table.put(unknown.clone(), None).await.unwrap();
    let stale = StaleScans::of(Arc::clone(&api.table)).await;

    // Rejected after the migration's index reads, by the present code.
    let reject = format!("/api/v1/admin/comments/{comment}/reject");
    assert_ok(&api.call("POST", &reject, Some(&admin), Some(json!({"reason": "rude"}))).await);

    let outcome = migrate_indexes(&stale).await.expect("migration");
    let thing = Key::new("THING#1", "X");
    assert_eq!(outcome.unknown, std::slice::from_ref(&thing), "{outcome:?}");
    assert_eq!(api.table.get(&thing).await.unwrap(), Some(unknown), "left as it was");
    assert!(api.table.get(&marker()).await.unwrap().is_none(), "not done while one is left");
    let after = moved_kinds(api.table.as_ref()).await;
    let stored = after.values().find(|item| {
        text(item, "sk").is_some_and(|sk| sk.starts_with("C#")) && text(item, "status").is_some()
    });
    let stored = stored.expect("the comment");
    assert_eq!(text(stored, "status").as_deref(), Some("REJECTED"));
    assert_eq!(text(stored, "gsi3pk").as_deref(), Some("CSTATUS#REJECTED"), "not the stale one");
    assert!(["gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"].iter().all(|a| !stored.contains_key(*a)));
    let rejected =
        api.call("GET", "/api/v1/admin/comments?status=REJECTED", Some(&admin), None).await;
    assert_eq!(assert_ok(&rejected)["records"][0]["id"], json!(comment));
    let by_user = format!("/api/v1/admin/comments?status=REJECTED&userId={alice_id}");
    let by_user = api.call("GET", &by_user, Some(&admin), None).await;
    assert_eq!(assert_ok(&by_user)["records"][0]["id"], json!(comment), "found by its locator");
}
