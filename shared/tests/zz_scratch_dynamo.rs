// THROWAWAY (removed after the check)
#![cfg(feature = "dynamodb")]
use std::sync::Arc;
use blog_shared::ports::table::dynamodb::{DynamoTable, TableUsage};
use blog_shared::ports::table::*;

fn item(pk: &str, sk: &str, attributes: &[(&str, AttributeValue)]) -> Item {
    let mut item = Item::default();
    item.insert("pk".into(), s(pk));
    item.insert("sk".into(), s(sk));
    for (name, value) in attributes { item.insert(name.to_string(), value.clone()); }
    item
}
async fn table() -> DynamoTable {
    let endpoint = std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT").unwrap();
    DynamoTable::connect_for_tests(&endpoint, &format!("scratch-{}", uuid::Uuid::new_v4().simple())).await.unwrap()
}
fn past() -> AttributeValue { n(now_epoch_seconds() - 3600) }
fn future() -> AttributeValue { n(now_epoch_seconds() + 3600) }

#[tokio::test]
async fn scratch_malformed() {
    let table = table().await;
    let invalid = |r: Result<(), TableError>| { println!("{r:?}"); matches!(r, Err(TableError::Invalid(_))) };
    let bad_index = item("P", "1", &[("gsi1pk", n(1)), ("gsi1sk", s("a"))]);
    assert!(invalid(table.put(bad_index, None).await));
    assert!(invalid(table.put(item("", "1", &[]), None).await));
    assert!(invalid(table.transact(vec![]).await));
    let twice = Update::new().set("a", n(1)).remove("a");
    assert!(invalid(table.update(&Key::new("P", "1"), twice, None).await.map(|_| ())));
    let between = Query::partition(Index::Primary, "P").sort(SortKey::Between("b".into(), "a".into()));
    assert!(invalid(table.query(between).await.map(|_| ())));
    assert!(invalid(table.query(Query::partition(Index::Primary, "P").limit(0)).await.map(|_| ())));
    assert!(invalid(table.get_many(&[Key::new("P", "1"), Key::new("P", "1")]).await.map(|_| ())));
    assert!(invalid(table.get(&Key::new("", "1")).await.map(|_| ())));
    // add to non-number inside a transaction
    table.put(item("P", "2", &[("name", s("x"))]), None).await.unwrap();
    let r = table.transact(vec![Write::Update { key: Key::new("P", "2"), update: Update::new().add("name", 1), condition: None }]).await;
    println!("txn add to string: {r:?}");
    assert_eq!(table.get(&Key::new("P", "1")).await.unwrap(), None);
    let u = table.usage();
    println!("usage {u:?}");
    assert!(u.calls > 5 && u.read_units > 0.0 && u.write_units > 0.0);
    table.reset_usage();
    assert_eq!(table.usage(), TableUsage::default());
}

#[tokio::test]
async fn scratch_decimal_and_expired_update() {
    let table = table().await;
    table.put(item("P", "1", &[("x", AttributeValue::N("1.5".into()))]), None).await.unwrap();
    let updated = table.update(&Key::new("P", "1"), Update::new().add("x", 1), None).await.unwrap();
    assert_eq!(updated.get("x"), Some(&AttributeValue::N("2.5".into())));
    let t: Arc<dyn Table> = Arc::new(table.clone());
    t.transact(vec![Write::Check { key: Key::new("P", "1"), condition: Condition::LessThan("x".into(), 3) }]).await.unwrap();
    t.transact(vec![Write::Check { key: Key::new("P", "1"), condition: Condition::All(vec![]) }]).await.unwrap();

    table.put(item("P", "e", &[("old", s("x")), (TTL, past())]), None).await.unwrap();
    let update = Update::new().set(TTL, future()).set("new", s("y"));
    let updated = table.update(&Key::new("P", "e"), update, Some(Condition::NotExists)).await.unwrap();
    assert_eq!(updated.get("old"), Some(&s("x")));
    assert_eq!(table.get(&Key::new("P", "e")).await.unwrap(), Some(updated));
    // string TTL item alive for conditions
    table.put(item("P", "t", &[(TTL, s("0"))]), None).await.unwrap();
    t.transact(vec![Write::Check { key: Key::new("P", "t"), condition: Condition::Exists }]).await.unwrap();
    let r = t.transact(vec![Write::Check { key: Key::new("P", "t"), condition: Condition::NotExists }]).await;
    assert!(matches!(r, Err(TableError::TransactionCancelled { .. })), "{r:?}");
    // empty update creates the item
    let created = table.update(&Key::new("P", "empty"), Update::new(), None).await.unwrap();
    assert_eq!(created, item("P", "empty", &[]));
    assert_eq!(table.get(&Key::new("P", "empty")).await.unwrap(), Some(item("P", "empty", &[])));
    // get_many of 100 keys works, 101 invalid
    let keys: Vec<Key> = (0..100).map(|i| Key::new("P", format!("k{i}"))).collect();
    assert!(table.get_many(&keys).await.unwrap().is_empty());
}

#[tokio::test]
async fn scratch_from_config_env() {
    let sdk = blog_shared::ports::aws::sdk_config().await;
    let endpoint = std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT").unwrap();
    let t = DynamoTable::from_config(&sdk, "scratch-cfg", Some(&endpoint));
    t.create_table_if_missing().await.unwrap();
    t.create_table_if_missing().await.unwrap();
    t.ping().await.unwrap();
    let missing = DynamoTable::from_config(&sdk, "nope", Some(&endpoint));
    let e = missing.ping().await.unwrap_err();
    println!("missing table: {e}");
    assert!(matches!(e, TableError::Backend(_)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn scratch_marker_contention() {
    let table = table().await;
    let t: Arc<dyn Table> = Arc::new(table.clone());
    let tasks: Vec<_> = (0..40).map(|i| { let t = t.clone(); tokio::spawn(async move {
        t.transact(vec![
            Write::Put { item: item("P", "marker", &[("owner", n(i))]), condition: Some(Condition::NotExists) },
            Write::Put { item: item("P", &format!("claim#{i:02}"), &[]), condition: Some(Condition::NotExists) },
        ]).await }) }).collect();
    let mut kinds = std::collections::BTreeMap::new();
    for task in tasks { let r = task.await.unwrap(); *kinds.entry(match r { Ok(()) => "ok".to_string(), Err(e) => format!("{e}").chars().take(60).collect() }).or_insert(0) += 1; }
    println!("{kinds:?} usage {:?}", table.usage());
}
