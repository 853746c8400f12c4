//! The embedded table's change stamp: it changes at once with every commit of its own, soon
//! with a commit of another table on the same file (another process), and with nothing else.
//! A table in a file watches the file from a connection of its own, which sees the table's own
//! commits too: they move the stamp once more within the watch interval (20 ms).
#![cfg(feature = "embedded")]

use std::collections::HashMap;

use blog_api::ports::table::{embedded::SqliteTable, s, Condition, Item, Key, Table};

fn item(pk: &str, title: &str) -> Item {
    Item::from(HashMap::from([
        ("pk".to_string(), s(pk)),
        ("sk".to_string(), s("HEAD")),
        ("title".to_string(), s(title)),
    ]))
}

/// The stamp once the watch interval has passed (a commit's second move has happened).
async fn settled(table: &SqliteTable) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    table.change_stamp().unwrap()
}

#[tokio::test]
async fn a_commit_changes_the_stamp_and_a_read_or_a_refused_write_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = SqliteTable::open(dir.path().join("blog.db")).unwrap();
    for table in [file, SqliteTable::in_memory().unwrap()] {
        let before = table.change_stamp().expect("the embedded table tells its changes");
        table.put(item("A#1", "one"), None).await.unwrap();
        assert_ne!(table.change_stamp().unwrap(), before);
        let after = settled(&table).await;

        table.get(&Key::new("A#1", "HEAD")).await.unwrap();
        let refused = table.put(item("A#1", "two"), Some(Condition::NotExists)).await;
        assert!(refused.is_err());
        assert_eq!(settled(&table).await, after);
    }
}

#[tokio::test]
async fn a_commit_by_another_process_on_the_same_file_changes_the_stamp_soon() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blog.db");
    let ours = SqliteTable::open(&path).unwrap();
    let theirs = SqliteTable::open(&path).unwrap();
    let mut seen = vec![ours.change_stamp().unwrap()];
    for title in ["one", "two", "three"] {
        theirs.put(item("A#1", title), None).await.unwrap();
        // `data_version` is read at most every 20 ms: wait for it, up to a generous limit.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let stamp = loop {
            let stamp = ours.change_stamp().unwrap();
            if !seen.contains(&stamp) || std::time::Instant::now() > deadline {
                break stamp;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        };
        assert!(!seen.contains(&stamp), "{stamp} was seen before: {seen:?}");
        seen.push(stamp);
        let read = ours.get(&Key::new("A#1", "HEAD")).await.unwrap().unwrap();
        assert_eq!(read.get("title"), Some(&s(title)));
    }
}
