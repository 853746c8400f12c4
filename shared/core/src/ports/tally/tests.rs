//! The tally's additions on the embedded table.

use super::*;
use crate::ports::table::{embedded::SqliteTable, metered::Metered, AttributeValue};

fn number(item: &Item, attribute: &str) -> Option<i64> {
    match item.get(attribute) {
        Some(AttributeValue::N(n)) => n.parse().ok(),
        _ => None,
    }
}

const SUM: &str = "views";

fn sum_key() -> Key {
    Key::new("VIEWS#01", "0000000000000001")
}

fn guard_key() -> Key {
    Key::new("ARTICLE#1", "A#HEAD")
}

/// A view of article 1 by reader `reader`, on condition that its head has `status` > 0.
fn once(reader: &str) -> Once {
    Once {
        marker: Key::new(format!("VIEWED#{reader}"), "VIEWED"),
        lasts_secs: 1800,
        guard: Some((guard_key(), Condition::GreaterThan("status".into(), 0))),
        key: sum_key(),
        attribute: SUM,
        delta: 1,
    }
}

async fn table_with_head(status: i64) -> Arc<Metered> {
    let table = Arc::new(Metered::new(SqliteTable::in_memory().unwrap()));
    let mut head = Item::default();
    head.insert(PK.into(), s("ARTICLE#1"));
    head.insert(SK.into(), s("A#HEAD"));
    head.insert("status".into(), n(status));
    table.put(head, None).await.unwrap();
    table
}

async fn sum(table: &dyn Table) -> Option<i64> {
    table.get(&sum_key()).await.unwrap().and_then(|item| number(&item, SUM))
}

#[tokio::test]
async fn an_addition_is_made_once_while_its_marker_lasts_and_a_repeat_costs_no_call() {
    let table = table_with_head(1).await;
    let direct = Direct::new(table.clone());
    assert_eq!(direct.add_once(once("a")).await.unwrap(), Outcome::Added);
    table.reset();
    assert_eq!(direct.add_once(once("a")).await.unwrap(), Outcome::Repeated);
    assert_eq!(table.counts().total(), 0, "remembered: no call");
    // Another instance, which remembers nothing, finds the marker in the table.
    let other = Direct::new(table.clone());
    assert_eq!(other.add_once(once("a")).await.unwrap(), Outcome::Repeated);
    assert_eq!(table.counts().transact, 1);
    assert_eq!(other.add_once(once("b")).await.unwrap(), Outcome::Added, "another marker");
    assert_eq!(sum(table.as_ref()).await, Some(2));
}

#[tokio::test]
async fn once_its_marker_has_ended_the_addition_is_made_again() {
    let table = table_with_head(1).await;
    assert_eq!(Direct::new(table.clone()).add_once(once("a")).await.unwrap(), Outcome::Added);
    // 30 minutes later: the marker's TTL has passed (the store may not have removed it yet).
    let marker = once("a").marker;
    let mut ended = table.get(&marker).await.unwrap().expect("the marker");
    assert!(number(&ended, TTL).unwrap() >= now_epoch_seconds() + 1799);
    ended.insert(TTL.into(), n(now_epoch_seconds() - 1));
    table.put(ended, None).await.unwrap();
    assert_eq!(Direct::new(table.clone()).add_once(once("a")).await.unwrap(), Outcome::Added);
    assert_eq!(sum(table.as_ref()).await, Some(2));
}

#[tokio::test]
async fn an_addition_whose_guard_fails_writes_nothing() {
    let table = table_with_head(0).await;
    let direct = Direct::new(table.clone());
    assert_eq!(direct.add_once(once("a")).await.unwrap(), Outcome::Refused);
    let mut absent = once("a");
    absent.guard =
        Some((Key::new("ARTICLE#9", "A#HEAD"), Condition::GreaterThan("status".into(), 0)));
    assert_eq!(direct.add_once(absent).await.unwrap(), Outcome::Refused);
    assert_eq!(sum(table.as_ref()).await, None);
    assert!(table.get(&once("a").marker).await.unwrap().is_none(), "no marker either");
}

#[tokio::test]
async fn of_simultaneous_additions_with_one_marker_exactly_one_is_made() {
    let table = table_with_head(1).await;
    let instances: Vec<Direct> = (0..16).map(|_| Direct::new(table.clone())).collect();
    let outcomes = futures::future::join_all(instances.iter().map(|d| d.add_once(once("a")))).await;
    let added = outcomes.iter().filter(|o| matches!(o, Ok(Outcome::Added))).count();
    assert_eq!(added, 1, "{outcomes:?}");
    assert!(outcomes.iter().all(|o| matches!(o, Ok(Outcome::Added | Outcome::Repeated))));
    assert_eq!(sum(table.as_ref()).await, Some(1));
}

#[tokio::test]
async fn a_buffered_tally_commits_its_additions_on_flush_only_and_once_per_marker() {
    let table = table_with_head(1).await;
    let tally = Buffered::start(table.clone(), Duration::from_secs(3600));
    assert!(!tally.waits_for_the_store());
    table.reset();
    assert_eq!(tally.add_once(once("a")).await.unwrap(), Outcome::Kept);
    for _ in 0..3 {
        assert_eq!(tally.add_once(once("a")).await.unwrap(), Outcome::Repeated);
    }
    assert_eq!(tally.add_once(once("b")).await.unwrap(), Outcome::Kept);
    assert_eq!(table.counts().total(), 0, "nothing asked of the table before a flush");
    tally.flush().await.unwrap();
    assert_eq!(sum(table.as_ref()).await, Some(2));
    tally.flush().await.unwrap();
    assert_eq!(sum(table.as_ref()).await, Some(2));
    // Another process on the same table (or this one restarted) finds the markers there.
    let restarted = Buffered::start(table.clone(), Duration::from_secs(3600));
    assert_eq!(restarted.add_once(once("a")).await.unwrap(), Outcome::Kept);
    restarted.flush().await.unwrap();
    assert_eq!(sum(table.as_ref()).await, Some(2));
}

#[tokio::test]
async fn a_buffered_addition_whose_guard_fails_at_the_flush_writes_nothing() {
    let table = table_with_head(0).await;
    let tally = Buffered::start(table.clone(), Duration::from_secs(3600));
    assert_eq!(tally.add_once(once("a")).await.unwrap(), Outcome::Kept);
    tally.flush().await.unwrap();
    assert_eq!(sum(table.as_ref()).await, None);
    assert!(table.get(&once("a").marker).await.unwrap().is_none());
}
