//! A data file written by an earlier version (items in a `WITHOUT ROWID` table, or a table of
//! two secondary indexes) opens with every item, key order and index intact, rewritten once
//! into the current layout.
#![cfg(feature = "embedded")]

use blog_api::ports::table::{embedded::SqliteTable, s, Index, Key, Query, SortKey, Table, Update};

/// The schema of the data files before the rows moved out of the key's B-tree.
const EARLIER_SCHEMA: &str = "
    CREATE TABLE items (
        pk TEXT NOT NULL, sk TEXT NOT NULL, item TEXT NOT NULL, expires_at INTEGER,
        gsi1pk TEXT, gsi1sk TEXT, gsi2pk TEXT, gsi2sk TEXT,
        PRIMARY KEY (pk, sk)
    ) WITHOUT ROWID;
    CREATE INDEX items_gsi1 ON items (gsi1pk, gsi1sk);
    CREATE INDEX items_gsi2 ON items (gsi2pk, gsi2sk);";

fn stored(pk: &str, sk: &str, gsi1: Option<(&str, &str)>) -> String {
    let mut json = format!(
        r#"{{"pk":{{"S":"{pk}"}},"sk":{{"S":"{sk}"}},"body":{{"S":"{}"}}"#,
        "x".repeat(5000)
    );
    if let Some((p, s)) = gsi1 {
        json += &format!(r#","gsi1pk":{{"S":"{p}"}},"gsi1sk":{{"S":"{s}"}}"#);
    }
    json + "}"
}

fn write_earlier_file(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    conn.execute_batch(EARLIER_SCHEMA).unwrap();
    let rows = [
        ("A#1", "BODY", None),
        ("A#1", "HEAD", Some(("LIST", "002"))),
        ("A#2", "HEAD", Some(("LIST", "001"))),
        ("A#3", "HEAD", Some(("LIST", "001"))),
    ];
    for (pk, sk, gsi1) in rows {
        conn.execute(
            "INSERT INTO items (pk, sk, item, gsi1pk, gsi1sk) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![pk, sk, stored(pk, sk, gsi1), gsi1.map(|g| g.0), gsi1.map(|g| g.1)],
        )
        .unwrap();
    }
}

fn table_sql(path: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("SELECT sql FROM sqlite_master WHERE name = 'items'", [], |r| r.get(0)).unwrap()
}

fn keys(items: &[blog_api::ports::table::Item]) -> Vec<String> {
    items.iter().map(|item| Key::of(item).unwrap().to_string()).collect()
}

#[tokio::test]
async fn a_file_of_the_earlier_layout_opens_with_every_item_and_index_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blog.db");
    write_earlier_file(&path);

    for _ in 0..2 {
        let table = SqliteTable::open(&path).unwrap();
        assert!(!table_sql(&path).contains("WITHOUT ROWID"), "rewritten once, then left alone");
        let head = table.get(&Key::new("A#1", "HEAD")).await.unwrap().unwrap();
        assert_eq!(head.get("body"), Some(&s("x".repeat(5000))));
        let article = table
            .query(Query::partition(Index::Primary, "A#1").sort(SortKey::Le("HEAD".into())))
            .await
            .unwrap();
        assert_eq!(keys(&article.items), ["A#1|BODY", "A#1|HEAD"]);
        let listed = table.query(Query::partition(Index::Gsi1, "LIST")).await.unwrap();
        assert_eq!(keys(&listed.items), ["A#2|HEAD", "A#3|HEAD", "A#1|HEAD"]);
        let mut first = Query::partition(Index::Gsi1, "LIST");
        first.limit = Some(1);
        let page = table.query(first.clone()).await.unwrap();
        first.start_after = page.next;
        let rest = table.query(first).await.unwrap();
        assert_eq!(keys(&rest.items), ["A#3|HEAD"], "pages resume after ties on the index key");
    }
}

/// The schema of the data files with two secondary indexes (before gsi3).
const TWO_INDEX_SCHEMA: &str = "
    CREATE TABLE items (
        pk TEXT NOT NULL, sk TEXT NOT NULL, item TEXT NOT NULL, expires_at INTEGER,
        gsi1pk TEXT, gsi1sk TEXT, gsi2pk TEXT, gsi2sk TEXT,
        UNIQUE (pk, sk)
    );
    CREATE INDEX items_gsi1 ON items (gsi1pk, gsi1sk, pk, sk);
    CREATE INDEX items_gsi2 ON items (gsi2pk, gsi2sk, pk, sk);";

#[tokio::test]
async fn a_file_with_two_indexes_gains_the_third_with_every_item_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blog.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(TWO_INDEX_SCHEMA).unwrap();
        let rows = [
            ("A#1", "HEAD", r#","gsi2pk":{"S":"ADMIN#0"},"gsi2sk":{"S":"1"}"#, Some("ADMIN#0")),
            ("A#2", "HEAD", r#","gsi3pk":{"S":"P"},"gsi3sk":{"S":"2"}"#, None),
            ("A#3", "HEAD", r#","gsi3pk":{"S":"P"}"#, None),
        ];
        for (pk, sk, extra, gsi2) in rows {
            let json = format!(r#"{{"pk":{{"S":"{pk}"}},"sk":{{"S":"{sk}"}}{extra}}}"#);
            conn.execute(
                "INSERT INTO items (pk, sk, item, gsi2pk, gsi2sk) VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![pk, sk, json, gsi2, gsi2.map(|_| "1")],
            )
            .unwrap();
        }
    }
    let table = SqliteTable::open(&path).unwrap();
    assert!(table_sql(&path).contains("gsi3pk"), "the columns are added");
    let admin = table.query(Query::partition(Index::Gsi2, "ADMIN#0")).await.unwrap();
    assert_eq!(keys(&admin.items), ["A#1|HEAD"]);
    let third = table.query(Query::partition(Index::Gsi3, "P")).await.unwrap();
    assert_eq!(keys(&third.items), ["A#2|HEAD"], "indexed from the items' own attributes");
    let complete = Update::new().set("gsi3sk", s("3"));
    table.update(&Key::new("A#3", "HEAD"), complete, None).await.unwrap();
    drop(table);
    let table = SqliteTable::open(&path).unwrap();
    let third = table.query(Query::partition(Index::Gsi3, "P")).await.unwrap();
    assert_eq!(keys(&third.items), ["A#2|HEAD", "A#3|HEAD"], "reopened as it was left");
    let admin = table.query(Query::partition(Index::Gsi2, "ADMIN#0")).await.unwrap();
    assert_eq!(keys(&admin.items), ["A#1|HEAD"]);
}
