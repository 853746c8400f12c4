use std::sync::Arc;

use super::*;
use crate::model::Status;
use blog_core::ports::table::{embedded::SqliteTable, Update};

fn table() -> Arc<dyn Table> {
    Arc::new(SqliteTable::in_memory().expect("in-memory table"))
}

fn head(id: u64, status: Status, update_time: &str) -> ArticleHead {
    let head = ArticleHead::published_for_tests(id, &format!("Article {id}"));
    ArticleHead { status, update_time: update_time.into(), ..head }
}

async fn store(table: &dyn Table, head: &ArticleHead) {
    table.put(records::to_item(head, &keys::head(head.id)).unwrap(), None).await.unwrap();
}

async fn entries(table: &dyn Table, number: u64) -> Vec<(u64, String)> {
    page(table, number).await.unwrap().entries
}

#[test]
fn a_page_holds_a_thousand_ids_and_its_bitmap_names_them() {
    assert_eq!((page_of(1), page_of(1000), page_of(1001)), (0, 0, 1));
    assert_eq!(pages_of(&(999..=2001)), 0..=2);
    let entries = vec![(1001, "t".to_string()), (1500, "t".into()), (2000, "t".into())];
    let bits = bitmap(1, &entries);
    assert_eq!(bits.len(), 125);
    assert_eq!(ids_of(1, &bits).collect::<Vec<_>>(), [1001, 1500, 2000]);
    assert!(ids_of(0, &bitmap(0, &entries)).next().is_none(), "ids of another page are left out");
}

#[test]
fn a_full_page_stays_far_within_the_item_size_limit() {
    let entries: Vec<(u64, String)> = (1..=IDS_PER_PAGE)
        .map(|id| (9_007_199_254_000 + id, "2026-01-01T00:00:00".into()))
        .collect();
    let record = PageRecord { entries, revision: i64::MAX };
    let size = serde_json::to_string(&record).unwrap().len();
    assert!(size < 60_000, "{size} bytes for 1,000 entries of 16-digit ids");
}

#[test]
fn an_entry_is_set_in_id_order_replaced_or_removed() {
    let page = PageRecord { entries: vec![(3, "a".into()), (9, "b".into())], revision: 4 };
    assert_eq!(page.with(5, Some("c")), [(3, "a".into()), (5, "c".into()), (9, "b".into())]);
    assert_eq!(page.with(9, Some("d")), [(3, "a".to_string()), (9, "d".into())]);
    assert_eq!(page.with(3, None), [(9, "b".to_string())]);
    assert_eq!(page.with(4, None), page.entries);
}

#[tokio::test]
async fn a_sync_follows_the_head_through_publish_update_archive_and_delete() {
    let table = table();
    let table = table.as_ref();
    let mut article = head(1234, Status::Published, "2026-01-02T00:00:00");
    store(table, &article).await;
    sync(table, 1234).await.unwrap();
    assert_eq!(entries(table, 1).await, [(1234, "2026-01-02T00:00:00".to_string())]);
    assert_eq!(occupancy(table).await.unwrap().ids().collect::<Vec<_>>(), [1234]);
    article.update_time = "2026-01-03T00:00:00".into();
    store(table, &article).await;
    sync(table, 1234).await.unwrap();
    sync(table, 1234).await.unwrap();
    assert_eq!(entries(table, 1).await, [(1234, "2026-01-03T00:00:00".to_string())]);
    assert_eq!(page(table, 1).await.unwrap().revision, 2, "a redelivery writes nothing");
    article.status = Status::Archived;
    store(table, &article).await;
    sync(table, 1234).await.unwrap();
    assert!(entries(table, 1).await.is_empty());
    assert_eq!(occupancy(table).await.unwrap(), Occupancy::default(), "its bitmap goes");
    article.status = Status::Published;
    article.is_deleted = true;
    store(table, &article).await;
    sync(table, 1234).await.unwrap();
    assert!(entries(table, 1).await.is_empty(), "a deleted article is not shown");
}

#[tokio::test]
async fn the_occupancy_counts_and_names_the_pages_of_every_shard() {
    let table = table();
    let table = table.as_ref();
    for id in [1, 2, 1001, 1_000_001] {
        store(table, &head(id, Status::Published, "2026-01-02T00:00:00")).await;
        sync(table, id).await.unwrap();
    }
    let published = occupancy(table).await.unwrap();
    assert_eq!(published.count(), 4);
    assert_eq!(published.pages(), [0, 1, 1000]);
    assert_eq!(published.ids().collect::<Vec<_>>(), [1, 2, 1001, 1_000_001]);
    let stamps = stamps(table, &[0, 1], 2..=1001).await.unwrap();
    assert_eq!(stamps.iter().map(|s| s.id).collect::<Vec<_>>(), [2, 1001], "within the range");
}

#[tokio::test]
async fn the_rebuild_makes_the_pages_of_existing_articles_once_and_resumes_where_it_stopped() {
    let table = table();
    let table = table.as_ref();
    let highest = (REBUILD_PAGES_PER_STEP + 1) * IDS_PER_PAGE + 5;
    table
        .update(
            &Key::new("COUNTER#ARTICLE", "COUNTER"),
            Update::new().add("value", highest as i64),
            None,
        )
        .await
        .unwrap();
    let published = [1, 999, 1000, 1001, highest - 1, highest];
    for id in published {
        store(table, &head(id, Status::Published, "2026-01-02T00:00:00")).await;
    }
    store(table, &head(7, Status::Draft, "2026-01-02T00:00:00")).await;
    store(table, &head(8, Status::Archived, "2026-01-02T00:00:00")).await;
    assert_eq!(rebuild_step(table).await.unwrap(), REBUILD_PAGES_PER_STEP);
    let halfway = occupancy(table).await.unwrap().ids().collect::<Vec<_>>();
    assert_eq!(halfway, [1, 999, 1000, 1001], "the first step's pages");
    assert_eq!(rebuild_step(table).await.unwrap(), 2, "the rest");
    assert_eq!(occupancy(table).await.unwrap().ids().collect::<Vec<_>>(), published);
    assert_eq!(entries(table, 0).await.len(), 3);
    let revisions = page(table, 0).await.unwrap().revision;
    assert_eq!(rebuild_step(table).await.unwrap(), 0, "done: nothing more");
    table.delete(&rebuild_key(), None).await.unwrap();
    rebuild_step(table).await.unwrap();
    assert_eq!(page(table, 0).await.unwrap().revision, revisions, "again: nothing rewritten");
}

#[tokio::test]
async fn the_rebuild_of_an_empty_table_finishes_at_once() {
    let table = table();
    assert_eq!(rebuild_step(table.as_ref()).await.unwrap(), 0);
    let progress = table.get(&rebuild_key()).await.unwrap().unwrap();
    assert_eq!(number(&progress, "done"), Some(1));
}
