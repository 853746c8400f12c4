//! Filters, publication order, paging and totals.

use blog_search::{Article, Order, Query, MAX_LIMIT};

use crate::support::*;

fn labelled(id: &str, title: &str, category: &str, tags: &[&str], published_at: i64) -> Article {
    Article {
        category_id: Some(category.into()),
        tag_ids: tags.iter().map(|tag| tag.to_string()).collect(),
        ..titled(id, title, published_at)
    }
}

fn filter_index() -> blog_search::SearchIndex {
    index_of([
        labelled("1", "rust async", "backend", &["t-rust", "t-async"], 1),
        labelled("2", "rust web", "web", &["t-rust"], 2),
        labelled("3", "rust embedded", "backend", &["t-embedded"], 3),
        titled("4", "rust without labels", 4),
    ])
}

#[test]
fn the_category_filter_keeps_only_that_category() {
    let index = filter_index();
    let query = Query { category_id: Some("backend".into()), ..Query::new("rust") };
    assert_eq!(ids(&index, &query), ["3", "1"]);
    assert_eq!(index.search(&query).unwrap().total, 2);
}

#[test]
fn the_tag_filter_keeps_only_that_tag() {
    let index = filter_index();
    let query = Query { tag_id: Some("t-rust".into()), ..Query::new("rust") };
    assert_eq!(ids(&index, &query), ["2", "1"]);
}

#[test]
fn both_filters_together_and_a_filter_id_is_exact() {
    let index = filter_index();
    let both = Query {
        category_id: Some("backend".into()),
        tag_id: Some("t-rust".into()),
        ..Query::new("rust")
    };
    assert_eq!(ids(&index, &both), ["1"]);
    let partial = Query { tag_id: Some("t-".into()), ..Query::new("rust") };
    assert!(ids(&index, &partial).is_empty());
    let tokenized = Query { category_id: Some("BACKEND".into()), ..Query::new("rust") };
    assert!(ids(&index, &tokenized).is_empty());
}

#[test]
fn newest_order_pages_through_matches_with_an_exact_total() {
    let articles = (0..25).map(|i| {
        let title = if i % 5 == 0 { format!("python {i}") } else { format!("rust part {i}") };
        titled(&format!("a{i:02}"), &title, 1_000 + i)
    });
    let index = index_of(articles);
    let newest_rust: Vec<String> =
        (0..25).rev().filter(|i| i % 5 != 0).map(|i| format!("a{i:02}")).collect();

    let first = index.search(&keyword("rust", 0, 7)).unwrap();
    assert_eq!(first.total, 20);
    assert_eq!(first.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>(), newest_rust[..7]);
    let second = index.search(&keyword("rust", 7, 7)).unwrap();
    assert_eq!(second.total, 20);
    assert_eq!(second.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>(), newest_rust[7..14]);
    let last = index.search(&keyword("rust", 14, 7)).unwrap();
    assert_eq!(last.hits.len(), 6);
    let past = index.search(&keyword("rust", 40, 7)).unwrap();
    assert_eq!((past.total, past.hits.len()), (20, 0));
    assert!(first.hits.windows(2).all(|w| w[0].published_at > w[1].published_at));
}

#[test]
fn newest_order_puts_pinned_articles_first_and_equal_times_by_larger_id() {
    let pinned = Article { pinned: true, ..titled("5", "rust pinned", 1) };
    let index = index_of([
        titled("9", "rust same second", 50),
        titled("10", "rust same second too", 50),
        pinned,
        titled("7", "rust newest", 60),
    ]);
    let found: Vec<String> =
        index.search(&keyword("rust", 0, 10)).unwrap().hits.into_iter().map(|h| h.id).collect();
    assert_eq!(found, ["5", "7", "10", "9"]);
    let reloaded = blog_search::SearchIndex::from_bundle(&index.to_bundle().unwrap()).unwrap();
    let again: Vec<String> =
        reloaded.search(&keyword("rust", 0, 10)).unwrap().hits.into_iter().map(|h| h.id).collect();
    assert_eq!(again, found, "the pinned flag survives the bundle");
}

#[test]
fn the_limit_is_capped_and_a_zero_limit_still_counts() {
    let index = index_of((0..130).map(|i| titled(&i.to_string(), "rust", i)));
    let huge = index.search(&Query { limit: 10_000, ..Query::new("rust") }).unwrap();
    assert_eq!((huge.total, huge.hits.len()), (130, MAX_LIMIT));
    let none = index.search(&Query { limit: 0, ..Query::new("rust") }).unwrap();
    assert_eq!((none.total, none.hits.len()), (130, 0));
    let far = Query { offset: usize::MAX, order: Order::Newest, ..Query::new("rust") };
    assert!(index.search(&far).unwrap().hits.is_empty());
}
