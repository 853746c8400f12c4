//! Upserts, removals and the generation.

use crate::support::*;

#[test]
fn upserting_an_existing_id_replaces_it() {
    let mut index = index_of([titled("1", "rust basics", 1), titled("2", "go basics", 2)]);
    index.upsert([titled("1", "python basics", 5)]).unwrap();
    assert_eq!(index.len(), 2);
    assert!(find(&index, "rust").is_empty());
    assert_eq!(find(&index, "python"), ["1"]);
    let hit = &index.search(&blog_search::Query::new("python")).unwrap().hits[0];
    assert_eq!(hit.published_at, 5);
}

#[test]
fn the_same_id_twice_in_one_batch_keeps_the_last() {
    let index = index_of([titled("1", "first", 1), titled("1", "second", 2)]);
    assert_eq!(index.len(), 1);
    assert!(find(&index, "first").is_empty());
    assert_eq!(find(&index, "second"), ["1"]);
}

#[test]
fn removing_articles_hides_them_and_counts_them() {
    let mut index =
        index_of([titled("1", "rust", 1), titled("2", "rust", 2), titled("3", "rust", 3)]);
    assert_eq!(index.remove(["1", "3", "404", "1"]).unwrap(), 2);
    assert_eq!(find(&index, "rust"), ["2"]);
    assert_eq!(index.len(), 1);
    assert!(!index.contains("1") && index.contains("2"));
    assert_eq!(index.remove(["404"]).unwrap(), 0);
}

#[test]
fn the_generation_grows_with_every_change_and_only_then() {
    let mut index = blog_search::SearchIndex::new().unwrap();
    assert_eq!((index.generation(), index.len(), index.is_empty()), (0, 0, true));
    index.upsert([titled("1", "rust", 1)]).unwrap();
    assert_eq!(index.generation(), 1);
    index.upsert([titled("1", "rust again", 2)]).unwrap();
    assert_eq!(index.generation(), 2);
    index.upsert(Vec::new()).unwrap();
    index.remove(["404"]).unwrap();
    assert_eq!(index.generation(), 2);
    index.remove(["1"]).unwrap();
    assert_eq!((index.generation(), index.is_empty()), (3, true));
}

#[test]
fn a_batch_with_an_empty_id_is_refused_whole() {
    let mut index = index_of([titled("1", "rust", 1)]);
    let error = index.upsert([titled("2", "go", 2), titled("", "empty", 3)]).unwrap_err();
    assert!(matches!(error, blog_search::SearchError::InvalidArticle(_)), "{error}");
    assert_eq!((index.len(), index.generation()), (1, 1));
    assert!(find(&index, "go").is_empty());
}

#[test]
fn many_small_changes_keep_every_article_searchable() {
    let mut index = blog_search::SearchIndex::new().unwrap();
    for i in 0..40 {
        index.upsert([titled(&i.to_string(), &format!("rust note{i}"), i)]).unwrap();
    }
    index.remove((0..40).filter(|i| i % 4 == 0).map(|i| i.to_string())).unwrap();
    let results = index.search(&blog_search::Query::new("rust")).unwrap();
    assert_eq!(results.total, 30);
    assert_eq!(find(&index, "note17"), ["17"]);
}

#[test]
fn the_index_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<blog_search::SearchIndex>();
}
