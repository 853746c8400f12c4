//! One contract for every adapter of the table port.
//!
//! Each `async fn` below states one behaviour every adapter must share; the `contract!` macro
//! turns each into a test per adapter: `embedded::<case>` (SQLite in memory) and, with the
//! `dynamodb` feature, `dynamodb::<case>` (DynamoDB Local at `BLOG_TEST_DYNAMODB_ENDPOINT`, one
//! fresh table per test; ignored unless asked for).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use blog_api::ports::table::{
    n, now_epoch_seconds, refused_by, s, AttributeValue, Condition, Index, Item, Key, Query, Scan,
    SortKey, Table, TableError, Transaction, Update, Write, TTL,
};

macro_rules! contract {
    ($($case:ident),* $(,)?) => {
        #[cfg(feature = "embedded")]
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    super::$case(super::sqlite()).await;
                }
            )*
        }

        #[cfg(all(feature = "dynamodb", feature = "test-support"))]
        mod dynamodb {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[ignore = "needs DynamoDB Local; make test runs it"]
                async fn $case() {
                    super::$case(super::dynamo(stringify!($case)).await).await;
                }
            )*
        }
    };
}

contract!(
    every_attribute_type_round_trips,
    a_put_replaces_the_whole_item,
    a_put_without_string_keys_is_invalid,
    a_conditional_put_on_an_existing_key_fails,
    equals_compares_strings_and_numbers_by_value,
    not_equals_holds_for_an_absent_or_different_value_of_a_present_item,
    has_lacks_and_comparisons_look_at_the_current_item,
    an_update_sets_removes_and_adds_and_returns_the_new_item,
    an_update_of_a_missing_item_creates_it_from_its_key,
    an_update_cannot_change_the_key_or_add_to_a_non_number,
    concurrent_adds_are_atomic,
    failed_conditional_updates_and_deletes_leave_the_item_unchanged,
    a_delete_returns_the_old_item_and_none_when_absent,
    primary_queries_honour_every_sort_key_condition_in_both_directions,
    limit_and_next_page_through_every_item_exactly_once,
    a_query_page_stops_at_one_megabyte_of_items,
    the_limit_counts_expired_items_that_the_query_hides,
    gsi_queries_return_only_items_with_both_index_attributes_in_index_order,
    gsi_pages_cover_items_sharing_one_index_sort_key_exactly_once,
    the_third_index_holds_only_items_with_both_of_its_attributes,
    a_scan_pages_through_every_unexpired_item_of_an_index_exactly_once,
    expired_items_are_invisible_to_reads,
    an_expired_item_counts_as_absent_for_conditions,
    a_transaction_applies_mixed_writes_together,
    a_transaction_with_a_failing_condition_applies_nothing,
    a_cancelled_transaction_reports_every_failing_write,
    a_refused_named_transaction_says_which_writes_failed_by_name,
    a_transaction_may_not_touch_one_key_twice,
    concurrent_transactions_claiming_one_marker_let_exactly_one_win,
    get_many_returns_only_present_unexpired_items,
    decimal_numbers_compare_and_add_by_value,
    malformed_requests_are_invalid,
    ping_answers,
);

#[cfg(feature = "embedded")]
fn sqlite() -> Arc<dyn Table> {
    Arc::new(blog_api::ports::table::embedded::SqliteTable::in_memory().expect("in-memory table"))
}

#[cfg(all(feature = "dynamodb", feature = "test-support"))]
async fn dynamo(case: &str) -> Arc<dyn Table> {
    use blog_api::ports::table::dynamodb::DynamoTable;
    let endpoint = std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT")
        .expect("BLOG_TEST_DYNAMODB_ENDPOINT (e.g. http://localhost:8000)");
    let name = format!("contract-{case}-{}", uuid::Uuid::new_v4().simple());
    Arc::new(DynamoTable::connect_for_tests(&endpoint, &name).await.expect("DynamoDB Local table"))
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn item(pk: &str, sk: &str, attributes: &[(&str, AttributeValue)]) -> Item {
    let mut item = Item::default();
    item.insert("pk".into(), s(pk));
    item.insert("sk".into(), s(sk));
    for (name, value) in attributes {
        item.insert(name.to_string(), value.clone());
    }
    item
}

fn key(pk: &str, sk: &str) -> Key {
    Key::new(pk, sk)
}

fn past() -> AttributeValue {
    n(now_epoch_seconds() - 3600)
}

fn future() -> AttributeValue {
    n(now_epoch_seconds() + 3600)
}

/// The `sk` of each item, in order.
fn sks(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item.get("sk") {
            Some(AttributeValue::S(sk)) => sk.clone(),
            other => panic!("item without a string sk: {other:?}"),
        })
        .collect()
}

fn attr<'a>(item: &'a Item, name: &str) -> Option<&'a AttributeValue> {
    item.get(name)
}

async fn put_all(table: &Arc<dyn Table>, items: impl IntoIterator<Item = Item>) {
    for item in items {
        table.put(item, None).await.expect("put");
    }
}

/// Whether `condition` holds on the item at `key`, asked through a `Check` transaction.
async fn holds(table: &Arc<dyn Table>, key: &Key, condition: Condition) -> bool {
    let check = Write::Check { key: key.clone(), condition: condition.clone() };
    match table.transact(vec![check]).await {
        Ok(()) => true,
        Err(TableError::TransactionCancelled { failed }) => {
            assert_eq!(failed, vec![0], "{condition:?}");
            false
        }
        Err(e) => panic!("checking {condition:?}: {e}"),
    }
}

/// The `sk`s of every page of `query` read `limit` items at a time, and the number of pages.
async fn all_pages(table: &Arc<dyn Table>, query: Query, limit: u32) -> (Vec<String>, usize) {
    let (mut seen, mut pages, mut next) = (Vec::new(), 0, None);
    loop {
        let page = table.query(query.clone().limit(limit).start_after(next)).await.expect("query");
        pages += 1;
        assert!(page.items.len() <= limit as usize);
        seen.extend(sks(&page.items));
        match page.next {
            Some(key) => next = Some(key),
            None => return (seen, pages),
        }
        assert!(pages < 100, "pagination does not end");
    }
}

// ---------------------------------------------------------------------------------------------
// Items, puts and conditions

async fn every_attribute_type_round_trips(table: Arc<dyn Table>) {
    let nested = AttributeValue::M(HashMap::from([
        ("title".to_string(), s("Hello")),
        ("tags".to_string(), AttributeValue::L(vec![s("a"), n(2), AttributeValue::Bool(false)])),
        ("inner".to_string(), AttributeValue::M(HashMap::from([("deep".to_string(), n(-7))]))),
    ]));
    let stored = item(
        "P",
        "all-types",
        &[
            ("text", s("héllo wörld ✓")),
            ("int", n(42)),
            ("decimal", AttributeValue::N("-3.25".into())),
            ("yes", AttributeValue::Bool(true)),
            ("nothing", AttributeValue::Null(true)),
            ("map", nested),
            ("list", AttributeValue::L(vec![s("x"), AttributeValue::Null(true), n(1)])),
            ("bytes", AttributeValue::B(vec![0, 1, 2, 255])),
        ],
    );
    assert_eq!(table.get(&key("P", "all-types")).await.unwrap(), None);
    table.put(stored.clone(), None).await.unwrap();
    assert_eq!(table.get(&key("P", "all-types")).await.unwrap(), Some(stored));
}

async fn a_put_replaces_the_whole_item(table: Arc<dyn Table>) {
    table.put(item("P", "1", &[("a", s("old")), ("b", n(1))]), None).await.unwrap();
    table.put(item("P", "1", &[("a", s("new"))]), None).await.unwrap();
    assert_eq!(table.get(&key("P", "1")).await.unwrap(), Some(item("P", "1", &[("a", s("new"))])));
}

async fn a_put_without_string_keys_is_invalid(table: Arc<dyn Table>) {
    let mut no_sk = Item::default();
    no_sk.insert("pk".into(), s("P"));
    assert!(matches!(table.put(no_sk, None).await, Err(TableError::Invalid(_))));
    let mut numeric_pk = item("P", "1", &[]);
    numeric_pk.insert("pk".into(), n(1));
    assert!(matches!(table.put(numeric_pk, None).await, Err(TableError::Invalid(_))));
}

async fn a_conditional_put_on_an_existing_key_fails(table: Arc<dyn Table>) {
    let first = item("P", "1", &[("v", s("first"))]);
    table.put(first.clone(), Some(Condition::NotExists)).await.unwrap();
    let second = table.put(item("P", "1", &[("v", s("second"))]), Some(Condition::NotExists)).await;
    assert!(matches!(second, Err(TableError::ConditionFailed)), "{second:?}");
    assert_eq!(table.get(&key("P", "1")).await.unwrap(), Some(first));
}

async fn equals_compares_strings_and_numbers_by_value(table: Arc<dyn Table>) {
    let k = key("P", "1");
    table.put(item("P", "1", &[("status", s("draft")), ("count", n(1))]), None).await.unwrap();
    assert!(holds(&table, &k, Condition::equals("status", s("draft"))).await);
    assert!(!holds(&table, &k, Condition::equals("status", s("Draft"))).await);
    assert!(holds(&table, &k, Condition::equals("count", n(1))).await);
    assert!(holds(&table, &k, Condition::equals("count", AttributeValue::N("1.0".into()))).await);
    assert!(!holds(&table, &k, Condition::equals("count", n(2))).await);
    assert!(!holds(&table, &k, Condition::equals("count", s("1"))).await, "types differ");
    assert!(!holds(&table, &k, Condition::equals("missing", s("draft"))).await);
    assert!(!holds(&table, &key("P", "absent"), Condition::equals("status", s("draft"))).await);

    // The single-item path agrees with the transactional one.
    let replaced = item("P", "1", &[("status", s("published")), ("count", n(2))]);
    let wrong = table.put(replaced.clone(), Some(Condition::equals("count", n(5)))).await;
    assert!(matches!(wrong, Err(TableError::ConditionFailed)));
    table.put(replaced.clone(), Some(Condition::equals("count", n(1)))).await.unwrap();
    assert_eq!(table.get(&k).await.unwrap(), Some(replaced));
}

async fn not_equals_holds_for_an_absent_or_different_value_of_a_present_item(
    table: Arc<dyn Table>,
) {
    let k = key("P", "1");
    table.put(item("P", "1", &[("deleted", n(0)), ("name", s("x"))]), None).await.unwrap();
    let not =
        |attribute: &str, value: AttributeValue| Condition::NotEquals(attribute.into(), value);
    assert!(holds(&table, &k, not("deleted", n(1))).await);
    assert!(!holds(&table, &k, not("deleted", n(0))).await);
    assert!(!holds(&table, &k, not("deleted", AttributeValue::N("0.0".into()))).await, "by value");
    assert!(holds(&table, &k, not("deleted", s("0"))).await, "types differ");
    assert!(holds(&table, &k, not("missing", n(1))).await, "an absent attribute differs");
    assert!(!holds(&table, &key("P", "absent"), not("deleted", n(1))).await, "no item");
    let guard = Condition::All(vec![Condition::Exists, not("deleted", n(1))]);
    let write = Write::Check { key: k.clone(), condition: guard };
    table.transact(vec![write]).await.expect("the transactional path agrees");
}

async fn has_lacks_and_comparisons_look_at_the_current_item(table: Arc<dyn Table>) {
    let (k, absent) = (key("P", "1"), key("P", "absent"));
    table.put(item("P", "1", &[("count", n(5)), ("name", s("x"))]), None).await.unwrap();
    assert!(holds(&table, &k, Condition::Exists).await);
    assert!(!holds(&table, &absent, Condition::Exists).await);
    assert!(holds(&table, &k, Condition::HasAttribute("name".into())).await);
    assert!(!holds(&table, &k, Condition::HasAttribute("other".into())).await);
    assert!(!holds(&table, &absent, Condition::HasAttribute("name".into())).await);
    assert!(holds(&table, &k, Condition::LacksAttribute("other".into())).await);
    assert!(!holds(&table, &k, Condition::LacksAttribute("name".into())).await);
    assert!(!holds(&table, &absent, Condition::LacksAttribute("other".into())).await);
    assert!(holds(&table, &k, Condition::LessThan("count".into(), 6)).await);
    assert!(!holds(&table, &k, Condition::LessThan("count".into(), 5)).await);
    assert!(!holds(&table, &k, Condition::LessThan("name".into(), 100)).await, "not a number");
    assert!(!holds(&table, &k, Condition::LessThan("other".into(), 100)).await, "missing");
    assert!(!holds(&table, &absent, Condition::LessThan("count".into(), 100)).await);
    assert!(holds(&table, &k, Condition::GreaterThan("count".into(), 4)).await);
    assert!(!holds(&table, &k, Condition::GreaterThan("count".into(), 5)).await);
    assert!(!holds(&table, &k, Condition::GreaterThan("name".into(), -100)).await, "not a number");
    assert!(!holds(&table, &k, Condition::GreaterThan("other".into(), -100)).await, "missing");
    assert!(!holds(&table, &absent, Condition::GreaterThan("count".into(), -100)).await);
    let both = vec![Condition::Exists, Condition::equals("name", s("x"))];
    assert!(holds(&table, &k, Condition::All(both.clone())).await);
    let one_false = [both, vec![Condition::LessThan("count".into(), 1)]].concat();
    assert!(!holds(&table, &k, Condition::All(one_false)).await);
}

// ---------------------------------------------------------------------------------------------
// Updates and deletes

async fn an_update_sets_removes_and_adds_and_returns_the_new_item(table: Arc<dyn Table>) {
    let k = key("P", "1");
    table
        .put(item("P", "1", &[("a", s("old")), ("b", s("gone")), ("count", n(1))]), None)
        .await
        .unwrap();
    let update = Update::new().set("a", s("new")).remove("b").add("count", 2).add("fresh", 5);
    let returned = table.update(&k, update, Some(Condition::Exists)).await.unwrap();
    let expected = item("P", "1", &[("a", s("new")), ("count", n(3)), ("fresh", n(5))]);
    assert_eq!(returned, expected);
    assert_eq!(table.get(&k).await.unwrap(), Some(expected));
    let decremented = table.update(&k, Update::new().add("count", -10), None).await.unwrap();
    assert_eq!(attr(&decremented, "count"), Some(&n(-7)));
}

async fn an_update_of_a_missing_item_creates_it_from_its_key(table: Arc<dyn Table>) {
    let k = key("P", "new");
    let created = table
        .update(&k, Update::new().set("title", s("t")).add("views", 1), Some(Condition::NotExists))
        .await
        .unwrap();
    let expected = item("P", "new", &[("title", s("t")), ("views", n(1))]);
    assert_eq!(created, expected);
    assert_eq!(table.get(&k).await.unwrap(), Some(expected));
}

async fn an_update_cannot_change_the_key_or_add_to_a_non_number(table: Arc<dyn Table>) {
    let (k, original) = (key("P", "1"), item("P", "1", &[("name", s("x"))]));
    table.put(original.clone(), None).await.unwrap();
    for update in [
        Update::new().set("pk", s("Q")),
        Update::new().set("sk", s("2")),
        Update::new().add("name", 1),
    ] {
        let result = table.update(&k, update.clone(), None).await;
        assert!(matches!(result, Err(TableError::Invalid(_))), "{update:?}: {result:?}");
    }
    assert_eq!(table.get(&k).await.unwrap(), Some(original));
}

async fn concurrent_adds_are_atomic(table: Arc<dyn Table>) {
    let k = key("P", "counter");
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (table, k) = (table.clone(), k.clone());
            tokio::spawn(async move { table.update(&k, Update::new().add("n", 1), None).await })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for task in tasks {
        let item = task.await.unwrap().unwrap();
        match attr(&item, "n") {
            Some(AttributeValue::N(value)) => seen.insert(value.parse::<i64>().unwrap()),
            other => panic!("counter is {other:?}"),
        };
    }
    assert_eq!(seen, (1..=20).collect(), "every add saw a distinct value");
    assert_eq!(attr(&table.get(&k).await.unwrap().unwrap(), "n"), Some(&n(20)));
}

async fn failed_conditional_updates_and_deletes_leave_the_item_unchanged(table: Arc<dyn Table>) {
    let (k, original) = (key("P", "1"), item("P", "1", &[("version", n(1))]));
    table.put(original.clone(), None).await.unwrap();
    let update = Update::new().set("version", n(2)).add("edits", 1);
    let result = table.update(&k, update.clone(), Some(Condition::equals("version", n(7)))).await;
    assert!(matches!(result, Err(TableError::ConditionFailed)), "{result:?}");
    let result = table.delete(&k, Some(Condition::LacksAttribute("version".into()))).await;
    assert!(matches!(result, Err(TableError::ConditionFailed)), "{result:?}");
    assert_eq!(table.get(&k).await.unwrap(), Some(original));

    // A failed condition on a missing item creates nothing.
    let absent = key("P", "absent");
    let result = table.update(&absent, update, Some(Condition::Exists)).await;
    assert!(matches!(result, Err(TableError::ConditionFailed)), "{result:?}");
    assert_eq!(table.get(&absent).await.unwrap(), None);
}

async fn a_delete_returns_the_old_item_and_none_when_absent(table: Arc<dyn Table>) {
    let (k, original) = (key("P", "1"), item("P", "1", &[("v", n(1))]));
    table.put(original.clone(), None).await.unwrap();
    let deleted = table.delete(&k, Some(Condition::equals("v", n(1)))).await.unwrap();
    assert_eq!(deleted, Some(original));
    assert_eq!(table.get(&k).await.unwrap(), None);
    assert_eq!(table.delete(&k, None).await.unwrap(), None);
    let result = table.delete(&k, Some(Condition::Exists)).await;
    assert!(matches!(result, Err(TableError::ConditionFailed)), "{result:?}");
}

// ---------------------------------------------------------------------------------------------
// Queries

async fn primary_queries_honour_every_sort_key_condition_in_both_directions(table: Arc<dyn Table>) {
    // UTF-8 byte order: "Z" < "a…" < "c" < "é" < "～" (U+FF5E) < "😀" (U+1F600).
    let all = ["Z", "a#1", "a#2", "a#3", "b#1", "b#2", "c", "é", "～", "😀"];
    put_all(&table, all.iter().map(|sk| item("P", sk, &[]))).await;
    put_all(&table, ["a#1", "b#1", "zz"].iter().map(|sk| item("Other", sk, &[]))).await;
    let cases: Vec<(Option<SortKey>, Vec<&str>)> = vec![
        (None, all.to_vec()),
        (Some(SortKey::Eq("a#2".into())), vec!["a#2"]),
        (Some(SortKey::Eq("a#".into())), vec![]),
        (Some(SortKey::BeginsWith("a#".into())), vec!["a#1", "a#2", "a#3"]),
        (Some(SortKey::BeginsWith("b#2".into())), vec!["b#2"]),
        (Some(SortKey::BeginsWith("é".into())), vec!["é"]),
        (Some(SortKey::Between("a#2".into(), "b#1".into())), vec!["a#2", "a#3", "b#1"]),
        (Some(SortKey::Lt("b#1".into())), vec!["Z", "a#1", "a#2", "a#3"]),
        (Some(SortKey::Le("b#1".into())), vec!["Z", "a#1", "a#2", "a#3", "b#1"]),
        (Some(SortKey::Gt("b#1".into())), vec!["b#2", "c", "é", "～", "😀"]),
        (Some(SortKey::Ge("c".into())), vec!["c", "é", "～", "😀"]),
    ];
    for (sort, expected) in cases {
        let mut query = Query::partition(Index::Primary, "P");
        query.sort = sort.clone();
        let ascending = table.query(query.clone()).await.unwrap();
        assert_eq!(sks(&ascending.items), expected, "{sort:?} ascending");
        assert_eq!(ascending.next, None);
        let descending = table.query(query.descending()).await.unwrap();
        let reversed: Vec<&str> = expected.iter().rev().copied().collect();
        assert_eq!(sks(&descending.items), reversed, "{sort:?} descending");
    }
    let empty = table.query(Query::partition(Index::Primary, "Nobody")).await.unwrap();
    assert!(empty.items.is_empty() && empty.next.is_none());
}

async fn limit_and_next_page_through_every_item_exactly_once(table: Arc<dyn Table>) {
    let all: Vec<String> = (0..7).map(|i| format!("item#{i:02}")).collect();
    put_all(&table, all.iter().map(|sk| item("P", sk, &[("body", s("…"))]))).await;
    let query = Query::partition(Index::Primary, "P");

    let first = table.query(query.clone().limit(3)).await.unwrap();
    assert_eq!(sks(&first.items), all[..3]);
    let next = first.next.expect("a full page has a next key");
    assert_eq!(next, item("P", "item#02", &[]), "next holds the key of the last item read");

    for (limit, pages) in [(1, 8), (3, 3), (7, 2), (50, 1)] {
        let (seen, count) = all_pages(&table, query.clone(), limit).await;
        assert_eq!(seen, all, "ascending by {limit}");
        assert_eq!(count, pages, "ascending by {limit}: a full last page still has a next");
        let (seen, _) = all_pages(&table, query.clone().descending(), limit).await;
        let reversed: Vec<String> = all.iter().rev().cloned().collect();
        assert_eq!(seen, reversed, "descending by {limit}");
    }
    let (seen, _) = all_pages(&table, query.sort(SortKey::Gt("item#03".into())), 2).await;
    assert_eq!(seen, all[4..]);
}

async fn a_query_page_stops_at_one_megabyte_of_items(table: Arc<dyn Table>) {
    let all: Vec<String> = (0..12).map(|i| format!("big#{i:02}")).collect();
    let body = "x".repeat(100_000);
    put_all(&table, all.iter().map(|sk| item("P", sk, &[("body", s(&body))]))).await;
    let query = Query::partition(Index::Primary, "P");

    let first = table.query(query.clone()).await.unwrap();
    assert!(first.items.len() < all.len(), "1.2 MB of items do not fit one page");
    assert!(first.items.len() >= 8, "a page holds about 1 MB, not {}", first.items.len());
    let mut seen = sks(&first.items);
    let mut next = first.next.expect("a page cut at 1 MB has a next key");
    loop {
        let page = table.query(query.clone().start_after(Some(next))).await.unwrap();
        seen.extend(sks(&page.items));
        match page.next {
            Some(key) => next = key,
            None => break,
        }
    }
    assert_eq!(seen, all);
}

async fn the_limit_counts_expired_items_that_the_query_hides(table: Arc<dyn Table>) {
    put_all(
        &table,
        [
            item("P", "1", &[]),
            item("P", "2", &[(TTL, past())]),
            item("P", "3", &[(TTL, past())]),
            item("P", "4", &[]),
        ],
    )
    .await;
    let query = Query::partition(Index::Primary, "P").limit(3);
    let page = table.query(query.clone()).await.unwrap();
    assert_eq!(sks(&page.items), ["1"]);
    assert_eq!(page.next, Some(item("P", "3", &[])), "next is the last item read, expired or not");
    let rest = table.query(query.start_after(page.next)).await.unwrap();
    assert_eq!(sks(&rest.items), ["4"]);
    assert_eq!(rest.next, None);
}

async fn gsi_queries_return_only_items_with_both_index_attributes_in_index_order(
    table: Arc<dyn Table>,
) {
    let g1 = |pk: &str, sk: &str| [("gsi1pk", s(pk)), ("gsi1sk", s(sk))];
    let g2 = |pk: &str, sk: &str| [("gsi2pk", s(pk)), ("gsi2sk", s(sk))];
    put_all(
        &table,
        [
            item("A", "1", &[g1("G", "2024-03").as_slice(), &g2("H", "b")].concat()),
            item("B", "1", &g1("G", "2024-01")),
            item("C", "1", &g1("G", "2024-02")),
            item("D", "1", &[("gsi1pk", s("G"))]),
            item("E", "1", &[("gsi1sk", s("2024-04"))]),
            item("F", "1", &g1("Other", "2024-01")),
            item("I", "1", &g2("H", "a")),
        ],
    )
    .await;
    let pks = |items: &[Item]| -> Vec<String> {
        items.iter().map(|i| Key::of(i).expect("key").pk).collect()
    };
    let gsi1 = Query::partition(Index::Gsi1, "G");
    assert_eq!(pks(&table.query(gsi1.clone()).await.unwrap().items), ["B", "C", "A"]);
    assert_eq!(pks(&table.query(gsi1.clone().descending()).await.unwrap().items), ["A", "C", "B"]);
    let since = gsi1.clone().sort(SortKey::Ge("2024-02".into()));
    assert_eq!(pks(&table.query(since).await.unwrap().items), ["C", "A"]);
    let gsi2 = Query::partition(Index::Gsi2, "H");
    assert_eq!(pks(&table.query(gsi2.clone()).await.unwrap().items), ["I", "A"]);

    // Index entries follow updates: gaining, changing and losing index attributes.
    table.update(&key("D", "1"), Update::new().set("gsi1sk", s("2024-05")), None).await.unwrap();
    table.update(&key("B", "1"), Update::new().set("gsi1sk", s("2024-06")), None).await.unwrap();
    table.update(&key("A", "1"), Update::new().remove("gsi2sk"), None).await.unwrap();
    assert_eq!(pks(&table.query(gsi1).await.unwrap().items), ["C", "A", "D", "B"]);
    assert_eq!(pks(&table.query(gsi2).await.unwrap().items), ["I"]);
}

async fn gsi_pages_cover_items_sharing_one_index_sort_key_exactly_once(table: Arc<dyn Table>) {
    let tied = [("gsi1pk", s("G")), ("gsi1sk", s("same"))];
    put_all(&table, ["a", "b", "c", "d", "e"].iter().map(|pk| item(pk, "1", &tied))).await;
    put_all(&table, [item("f", "1", &[("gsi1pk", s("G")), ("gsi1sk", s("z"))])]).await;
    let query = Query::partition(Index::Gsi1, "G");
    let first = table.query(query.clone().limit(2)).await.unwrap();
    let next = first.next.expect("next");
    let mut names: Vec<&str> = next.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["gsi1pk", "gsi1sk", "pk", "sk"], "a GSI next key has table and index keys");

    for query in [query.clone(), query.descending()] {
        let mut seen = Vec::new();
        let mut next = None;
        loop {
            let page = table.query(query.clone().limit(2).start_after(next)).await.unwrap();
            seen.extend(page.items.iter().map(|i| Key::of(i).expect("key").pk));
            next = page.next;
            if next.is_none() {
                break;
            }
        }
        let (ties, last) =
            if query.descending { (&seen[1..], &seen[0]) } else { (&seen[..5], &seen[5]) };
        assert_eq!(last, "f", "{seen:?}");
        let ties: BTreeSet<&str> = ties.iter().map(String::as_str).collect();
        assert_eq!(ties, BTreeSet::from(["a", "b", "c", "d", "e"]), "{seen:?}");
        assert_eq!(seen.len(), 6, "{seen:?}");
    }
}

async fn the_third_index_holds_only_items_with_both_of_its_attributes(table: Arc<dyn Table>) {
    let g3 = |pk: &str, sk: &str| [("gsi3pk", s(pk)), ("gsi3sk", s(sk))];
    put_all(
        &table,
        [
            item("A", "1", &g3("P", "2")),
            item(
                "B",
                "1",
                &[g3("P", "1").as_slice(), &[("gsi1pk", s("P")), ("gsi1sk", s("0"))]].concat(),
            ),
            item("C", "1", &[("gsi3pk", s("P"))]),
            item("D", "1", &g3("Q", "1")),
        ],
    )
    .await;
    let pks = |items: &[Item]| -> Vec<String> {
        items.iter().map(|i| Key::of(i).expect("key").pk).collect()
    };
    let gsi3 = Query::partition(Index::Gsi3, "P");
    assert_eq!(pks(&table.query(gsi3.clone()).await.unwrap().items), ["B", "A"]);
    let gsi1 = Query::partition(Index::Gsi1, "P");
    assert_eq!(pks(&table.query(gsi1).await.unwrap().items), ["B"], "each index apart");
    table.update(&key("A", "1"), Update::new().remove("gsi3pk"), None).await.unwrap();
    table.update(&key("C", "1"), Update::new().set("gsi3sk", s("3")), None).await.unwrap();
    assert_eq!(pks(&table.query(gsi3).await.unwrap().items), ["B", "C"]);
}

async fn a_scan_pages_through_every_unexpired_item_of_an_index_exactly_once(table: Arc<dyn Table>) {
    let g2 = |pk: &str, sk: &str| [("gsi2pk", s(pk)), ("gsi2sk", s(sk))];
    let mut items: Vec<Item> =
        (0..7).map(|i| item(&format!("IN#{i}"), "1", &g2(&format!("P{}", i % 3), "s"))).collect();
    items.push(item("OUT#1", "1", &[("gsi2pk", s("P0"))]));
    items.push(item("OUT#2", "1", &[("gsi1pk", s("P0")), ("gsi1sk", s("s"))]));
    items.push(item("GONE#1", "1", &[g2("P1", "t").as_slice(), &[(TTL, past())]].concat()));
    put_all(&table, items).await;
    let scan_all = |index: Index| {
        let table = Arc::clone(&table);
        async move {
            let (mut seen, mut scan) = (Vec::new(), Scan::of(index));
            scan.limit = Some(2);
            for _ in 0..100 {
                let page = table.scan(scan.clone()).await.expect("scan");
                assert!(page.items.len() <= 2);
                seen.extend(page.items.iter().map(|i| Key::of(i).expect("key").pk));
                match page.next {
                    Some(next) => scan.start_after = Some(next),
                    None => break,
                }
            }
            seen.sort();
            seen
        }
    };
    let expected: Vec<String> = (0..7).map(|i| format!("IN#{i}")).collect();
    assert_eq!(scan_all(Index::Gsi2).await, expected, "only the index's unexpired items");
    assert_eq!(scan_all(Index::Gsi3).await, Vec::<String>::new());
    let every = scan_all(Index::Primary).await;
    assert_eq!(every.len(), 9, "the table's unexpired items: {every:?}");
    let mut zero = Scan::of(Index::Gsi2);
    zero.limit = Some(0);
    assert!(matches!(table.scan(zero).await, Err(TableError::Invalid(_))));
}

// ---------------------------------------------------------------------------------------------
// Time to live

async fn expired_items_are_invisible_to_reads(table: Arc<dyn Table>) {
    let index = [("gsi1pk", s("G")), ("gsi1sk", s("x"))];
    put_all(
        &table,
        [
            item("P", "expired", &[&index[..], &[(TTL, past())]].concat()),
            item("P", "expiring", &[&index[..], &[(TTL, future())]].concat()),
            item("P", "text-ttl", &[(TTL, s("0"))]),
        ],
    )
    .await;
    assert_eq!(table.get(&key("P", "expired")).await.unwrap(), None);
    assert!(table.get(&key("P", "expiring")).await.unwrap().is_some());
    assert!(table.get(&key("P", "text-ttl")).await.unwrap().is_some(), "only numbers expire");
    let keys = [key("P", "expired"), key("P", "expiring")];
    assert_eq!(sks(&table.get_many(&keys).await.unwrap()), ["expiring"]);
    let primary = table.query(Query::partition(Index::Primary, "P")).await.unwrap();
    assert_eq!(sks(&primary.items), ["expiring", "text-ttl"]);
    let gsi = table.query(Query::partition(Index::Gsi1, "G")).await.unwrap();
    assert_eq!(sks(&gsi.items), ["expiring"]);
}

async fn an_expired_item_counts_as_absent_for_conditions(table: Arc<dyn Table>) {
    let k = key("P", "session");
    table.put(item("P", "session", &[("user", s("u1")), (TTL, past())]), None).await.unwrap();
    assert!(!holds(&table, &k, Condition::Exists).await);
    assert!(!holds(&table, &k, Condition::equals("user", s("u1"))).await);
    assert!(!holds(&table, &k, Condition::HasAttribute("user".into())).await);
    assert!(holds(&table, &k, Condition::NotExists).await);
    let result = table.delete(&k, Some(Condition::Exists)).await;
    assert!(matches!(result, Err(TableError::ConditionFailed)), "{result:?}");

    let fresh = item("P", "session", &[("user", s("u2")), (TTL, future())]);
    table.put(fresh.clone(), Some(Condition::NotExists)).await.unwrap();
    assert_eq!(table.get(&k).await.unwrap(), Some(fresh));

    table.put(item("P", "old", &[(TTL, past())]), None).await.unwrap();
    assert_eq!(table.delete(&key("P", "old"), None).await.unwrap(), None);
}

// ---------------------------------------------------------------------------------------------
// Transactions

async fn a_transaction_applies_mixed_writes_together(table: Arc<dyn Table>) {
    put_all(
        &table,
        [
            item("P", "counter", &[("n", n(1))]),
            item("P", "doomed", &[]),
            item("P", "guard", &[("open", AttributeValue::Bool(true))]),
        ],
    )
    .await;
    table
        .transact(vec![
            Write::Put {
                item: item("P", "new", &[("v", s("x"))]),
                condition: Some(Condition::NotExists),
            },
            Write::Update {
                key: key("P", "counter"),
                update: Update::new().add("n", 1).set("touched", AttributeValue::Bool(true)),
                condition: Some(Condition::LessThan("n".into(), 10)),
            },
            Write::Delete { key: key("P", "doomed"), condition: Some(Condition::Exists) },
            Write::Check {
                key: key("P", "guard"),
                condition: Condition::equals("open", AttributeValue::Bool(true)),
            },
            Write::Update {
                key: key("P", "created"),
                update: Update::new().add("n", 5),
                condition: None,
            },
        ])
        .await
        .unwrap();
    assert_eq!(
        table.get(&key("P", "new")).await.unwrap(),
        Some(item("P", "new", &[("v", s("x"))]))
    );
    let counter = item("P", "counter", &[("n", n(2)), ("touched", AttributeValue::Bool(true))]);
    assert_eq!(table.get(&key("P", "counter")).await.unwrap(), Some(counter));
    assert_eq!(table.get(&key("P", "doomed")).await.unwrap(), None);
    assert_eq!(
        table.get(&key("P", "created")).await.unwrap(),
        Some(item("P", "created", &[("n", n(5))]))
    );
    let guard = item("P", "guard", &[("open", AttributeValue::Bool(true))]);
    assert_eq!(table.get(&key("P", "guard")).await.unwrap(), Some(guard));
}

async fn a_transaction_with_a_failing_condition_applies_nothing(table: Arc<dyn Table>) {
    put_all(&table, [item("P", "counter", &[("n", n(1))]), item("P", "doomed", &[])]).await;
    let before = table.query(Query::partition(Index::Primary, "P")).await.unwrap();
    let result = table
        .transact(vec![
            Write::Put { item: item("P", "new", &[]), condition: None },
            Write::Update {
                key: key("P", "counter"),
                update: Update::new().add("n", 1),
                condition: None,
            },
            Write::Delete { key: key("P", "doomed"), condition: None },
            Write::Check { key: key("P", "missing"), condition: Condition::Exists },
        ])
        .await;
    assert!(
        matches!(&result, Err(TableError::TransactionCancelled { failed }) if failed == &vec![3]),
        "{result:?}"
    );
    let after = table.query(Query::partition(Index::Primary, "P")).await.unwrap();
    assert_eq!(after, before);
}

async fn a_refused_named_transaction_says_which_writes_failed_by_name(table: Arc<dyn Table>) {
    put_all(&table, [item("P", "taken", &[]), item("P", "v1", &[("version", n(1))])]).await;
    let refused = Transaction::new()
        .with(
            "claim",
            Write::Put { item: item("P", "taken", &[]), condition: Some(Condition::NotExists) },
        )
        .with(
            "fresh",
            Write::Put { item: item("P", "free", &[]), condition: Some(Condition::NotExists) },
        )
        .with(
            "stale",
            Write::Update {
                key: key("P", "v1"),
                update: Update::new().set("version", n(3)),
                condition: Some(Condition::equals("version", n(2))),
            },
        )
        .commit(table.as_ref())
        .await
        .expect_err("refused");
    assert!(
        matches!(&refused, TableError::Refused { failed } if failed == &["claim", "stale"]),
        "{refused:?}"
    );
    assert!(refused_by(&refused, "claim") && !refused_by(&refused, "fresh"));
    assert_eq!(table.get(&key("P", "free")).await.unwrap(), None, "nothing applied");
}

async fn a_cancelled_transaction_reports_every_failing_write(table: Arc<dyn Table>) {
    put_all(&table, [item("P", "taken", &[]), item("P", "v1", &[("version", n(1))])]).await;
    let result = table
        .transact(vec![
            Write::Put {
                item: item("P", "taken", &[("x", n(1))]),
                condition: Some(Condition::NotExists),
            },
            Write::Put { item: item("P", "free", &[]), condition: Some(Condition::NotExists) },
            Write::Update {
                key: key("P", "v1"),
                update: Update::new().set("version", n(3)),
                condition: Some(Condition::equals("version", n(2))),
            },
        ])
        .await;
    assert!(
        matches!(&result, Err(TableError::TransactionCancelled { failed }) if failed == &vec![0, 2]),
        "{result:?}"
    );
    assert_eq!(table.get(&key("P", "free")).await.unwrap(), None);
    assert_eq!(table.get(&key("P", "taken")).await.unwrap(), Some(item("P", "taken", &[])));
    let v1 = item("P", "v1", &[("version", n(1))]);
    assert_eq!(table.get(&key("P", "v1")).await.unwrap(), Some(v1));
}

async fn a_transaction_may_not_touch_one_key_twice(table: Arc<dyn Table>) {
    let result = table
        .transact(vec![
            Write::Put { item: item("P", "1", &[]), condition: None },
            Write::Check { key: key("P", "1"), condition: Condition::NotExists },
        ])
        .await;
    assert!(matches!(result, Err(TableError::Invalid(_))), "{result:?}");
    assert_eq!(table.get(&key("P", "1")).await.unwrap(), None);
}

async fn concurrent_transactions_claiming_one_marker_let_exactly_one_win(table: Arc<dyn Table>) {
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let table = table.clone();
            tokio::spawn(async move {
                table
                    .transact(vec![
                        Write::Put {
                            item: item("P", "marker", &[("owner", n(i))]),
                            condition: Some(Condition::NotExists),
                        },
                        Write::Put {
                            item: item("P", &format!("claim#{i:02}"), &[]),
                            condition: Some(Condition::NotExists),
                        },
                    ])
                    .await
                    .map(|()| i)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(i) => winners.push(i),
            Err(TableError::Invalid(e)) => panic!("a valid transaction was refused: {e}"),
            Err(_) => {}
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let claims = table
        .query(Query::partition(Index::Primary, "P").sort(SortKey::BeginsWith("claim#".into())))
        .await
        .unwrap();
    assert_eq!(sks(&claims.items), [format!("claim#{:02}", winners[0])]);
    let marker = table.get(&key("P", "marker")).await.unwrap().expect("marker");
    assert_eq!(attr(&marker, "owner"), Some(&n(winners[0])));
}

// ---------------------------------------------------------------------------------------------
// Batch reads and health

async fn get_many_returns_only_present_unexpired_items(table: Arc<dyn Table>) {
    put_all(
        &table,
        [
            item("P", "1", &[("v", n(1))]),
            item("Q", "2", &[("v", n(2))]),
            item("P", "expired", &[(TTL, past())]),
        ],
    )
    .await;
    let keys = [key("P", "1"), key("P", "absent"), key("Q", "2"), key("P", "expired")];
    let mut found = table.get_many(&keys).await.unwrap();
    found.sort_by_key(|item| Key::of(item).map(|k| k.to_string()));
    assert_eq!(found, vec![item("P", "1", &[("v", n(1))]), item("Q", "2", &[("v", n(2))])]);
    assert!(table.get_many(&[key("P", "absent")]).await.unwrap().is_empty());
}

async fn decimal_numbers_compare_and_add_by_value(table: Arc<dyn Table>) {
    let k = key("P", "1");
    table.put(item("P", "1", &[("x", AttributeValue::N("1.5".into()))]), None).await.unwrap();
    let updated = table.update(&k, Update::new().add("x", 1), None).await.unwrap();
    assert_eq!(attr(&updated, "x"), Some(&AttributeValue::N("2.5".into())));
    assert!(holds(&table, &k, Condition::LessThan("x".into(), 3)).await);
    assert!(!holds(&table, &k, Condition::LessThan("x".into(), 2)).await);
    assert!(holds(&table, &k, Condition::GreaterThan("x".into(), 2)).await);
    assert!(!holds(&table, &k, Condition::GreaterThan("x".into(), 3)).await);
    assert!(holds(&table, &k, Condition::equals("x", AttributeValue::N("2.50".into()))).await);
}

async fn malformed_requests_are_invalid(table: Arc<dyn Table>) {
    fn invalid<T: std::fmt::Debug>(result: Result<T, TableError>) -> bool {
        matches!(result, Err(TableError::Invalid(_)))
    }
    let numeric_index = item("P", "1", &[("gsi1pk", n(1)), ("gsi1sk", s("a"))]);
    assert!(invalid(table.put(numeric_index, None).await), "an index key must be a string");
    let empty_index = item("P", "1", &[("gsi1pk", s("")), ("gsi1sk", s("a"))]);
    assert!(invalid(table.put(empty_index, None).await), "an index key may not be empty");
    assert!(invalid(table.put(item("", "1", &[]), None).await), "a key may not be empty");
    assert!(invalid(table.get(&key("P", "")).await), "a key may not be empty");
    assert!(invalid(table.transact(vec![]).await), "a transaction needs a write");
    let twice = Update::new().set("a", n(1)).remove("a");
    assert!(invalid(table.update(&key("P", "1"), twice, None).await), "one attribute, two changes");
    let query = Query::partition(Index::Primary, "P");
    let reversed = query.clone().sort(SortKey::Between("b".into(), "a".into()));
    assert!(invalid(table.query(reversed).await), "BETWEEN bounds in order");
    assert!(invalid(table.query(query.clone().limit(0)).await), "a limit of at least 1");
    assert!(invalid(table.query(query.sort(SortKey::BeginsWith("".into()))).await));
    assert!(invalid(table.query(Query::partition(Index::Primary, "")).await));
    assert!(invalid(table.get_many(&[key("P", "1"), key("P", "1")]).await), "duplicate keys");
    assert_eq!(table.get(&key("P", "1")).await.unwrap(), None, "nothing was written");
}

async fn ping_answers(table: Arc<dyn Table>) {
    table.ping().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Embedded adapter only

#[cfg(feature = "embedded")]
mod embedded_only {
    use super::*;
    use blog_api::ports::table::embedded::SqliteTable;

    fn rows(path: &std::path::Path) -> i64 {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.query_row("SELECT count(*) FROM items", [], |r| r.get(0)).unwrap()
    }

    #[tokio::test]
    async fn a_file_backed_table_keeps_its_data_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/dirs/table.sqlite");
        let stored = item("P", "1", &[("v", s("kept")), ("gsi1pk", s("G")), ("gsi1sk", s("1"))]);
        {
            let table = SqliteTable::open(&path).unwrap();
            table.put(stored.clone(), None).await.unwrap();
            table.update(&key("P", "2"), Update::new().add("n", 3), None).await.unwrap();
        }
        let table = SqliteTable::open(&path).unwrap();
        assert_eq!(table.get(&key("P", "1")).await.unwrap(), Some(stored.clone()));
        assert_eq!(table.get(&key("P", "2")).await.unwrap(), Some(item("P", "2", &[("n", n(3))])));
        let gsi = table.query(Query::partition(Index::Gsi1, "G")).await.unwrap();
        assert_eq!(gsi.items, vec![stored]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_of_a_file_backed_table_see_every_write_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let table = SqliteTable::open(dir.path().join("table.sqlite")).unwrap();
        for i in 0..50 {
            let stored = item("P", &format!("{i:02}"), &[("v", n(i))]);
            table.put(stored.clone(), None).await.unwrap();
            assert_eq!(table.get(&key("P", &format!("{i:02}"))).await.unwrap(), Some(stored));
            let page = table.query(Query::partition(Index::Primary, "P")).await.unwrap();
            assert_eq!(page.items.len(), i as usize + 1);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_sees_what_another_process_wrote_to_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.sqlite");
        let (reader, writer) =
            (SqliteTable::open(&path).unwrap(), SqliteTable::open(&path).unwrap());
        let stored =
            |v: &str| item("P", "1", &[("v", s(v)), ("gsi1pk", s("G")), ("gsi1sk", s("1"))]);
        for v in ["first", "second", "third"] {
            writer.put(stored(v), None).await.unwrap();
            // Twice each: the second read is the one a cache of decoded items would answer.
            for _ in 0..2 {
                assert_eq!(reader.get(&key("P", "1")).await.unwrap(), Some(stored(v)));
                assert_eq!(reader.get_many(&[key("P", "1")]).await.unwrap(), vec![stored(v)]);
                let gsi = reader.query(Query::partition(Index::Gsi1, "G")).await.unwrap();
                assert_eq!(gsi.items, vec![stored(v)]);
            }
        }
        writer.delete(&key("P", "1"), None).await.unwrap();
        assert_eq!(reader.get(&key("P", "1")).await.unwrap(), None);
    }

    #[tokio::test]
    async fn opening_a_file_purges_expired_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.sqlite");
        {
            let table = SqliteTable::open(&path).unwrap();
            table.put(item("P", "live", &[(TTL, future())]), None).await.unwrap();
            table.put(item("P", "dead", &[(TTL, past())]), None).await.unwrap();
        }
        assert_eq!(rows(&path), 2, "expired rows stay until the next open");
        let table = SqliteTable::open(&path).unwrap();
        assert_eq!(rows(&path), 1);
        assert!(table.get(&key("P", "live")).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn an_update_of_an_expired_item_merges_with_its_stored_attributes() {
        let table = SqliteTable::in_memory().unwrap();
        table.put(item("P", "1", &[("old", s("x")), (TTL, past())]), None).await.unwrap();
        let update = Update::new().set(TTL, future()).set("new", s("y"));
        let updated =
            table.update(&key("P", "1"), update, Some(Condition::NotExists)).await.unwrap();
        assert_eq!(attr(&updated, "old"), Some(&s("x")));
        assert_eq!(table.get(&key("P", "1")).await.unwrap(), Some(updated));
    }
}
