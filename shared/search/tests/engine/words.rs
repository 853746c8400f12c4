//! How a query's words match: all of them, anywhere in a long text, in any form, as a prefix
//! (the last one) or with a typo (long ones).

use blog_search::{Fields, Query, SearchError, MAX_QUERY_CHARS, MAX_QUERY_WORDS};

use crate::support::*;

#[test]
fn a_word_late_in_a_long_chinese_summary_is_found() {
    let filler: String = "我们讨论了系统设计中的各种权衡与取舍，".repeat(16);
    let summary = format!("{filler}最后介绍了向量检索");
    assert!(summary.chars().count() >= 300);
    let index = index_of([article("1", "长摘要", &summary, "", 1)]);
    assert_eq!(find(&index, "向量检索"), ["1"]);
    assert_eq!(ids(&index, &keyword("向量", 0, 10)), ["1"]);
}

#[test]
fn a_word_late_in_a_long_english_summary_is_found() {
    let filler = "we discuss the many tradeoffs of system design in depth ".repeat(6);
    let summary = format!("{filler} and finally vectors");
    assert!(summary.split_whitespace().count() >= 60);
    let index = index_of([article("1", "Long summary", &summary, "", 1)]);
    assert_eq!(ids(&index, &keyword("vectors", 0, 10)), ["1"]);
}

#[test]
fn every_word_of_a_long_body_is_indexed() {
    let body = format!("{} zeppelin", "lorem ipsum dolor sit amet ".repeat(400));
    let index = index_of([article("1", "t", "", &body, 1)]);
    assert_eq!(find(&index, "zeppelin"), ["1"]);
}

#[test]
fn fullwidth_halfwidth_and_case_forms_match_each_other() {
    let index =
        index_of([titled("full", "ＲＵＳＴ入门 第１２３页", 1), titled("half", "Rust 123", 2)]);
    assert_eq!(find_sorted(&index, "rust"), ["full", "half"]);
    assert_eq!(find_sorted(&index, "ＲＵＳＴ"), ["full", "half"]);
    assert_eq!(find_sorted(&index, "RuSt"), ["full", "half"]);
    assert_eq!(find_sorted(&index, "123"), ["full", "half"]);
    assert_eq!(find_sorted(&index, "１２３"), ["full", "half"]);
}

#[test]
fn every_word_of_the_query_must_match() {
    let index = index_of([
        titled("both", "rust search engine", 1),
        titled("rust", "rust compiler", 2),
        titled("search", "search engine basics", 3),
    ]);
    assert_eq!(find(&index, "rust engine"), ["both"]);
    assert!(find(&index, "rust engine python").is_empty());
}

#[test]
fn the_words_may_match_in_different_fields() {
    let index = index_of([article("1", "Rust", "a search library", "", 1)]);
    assert_eq!(find(&index, "rust library"), ["1"]);
}

#[test]
fn the_last_word_matches_as_a_prefix_but_earlier_words_do_not() {
    let index = index_of([titled("1", "rust and tantivy", 1)]);
    assert_eq!(find(&index, "rus"), ["1"]);
    assert_eq!(find(&index, "tanti"), ["1"]);
    assert_eq!(find(&index, "rust tanti"), ["1"]);
    assert!(find(&index, "rus tantivy").is_empty());
}

#[test]
fn a_word_of_five_letters_or_more_matches_with_one_typo() {
    let index = index_of([titled("1", "tantivy internals", 1)]);
    assert_eq!(find(&index, "tantivu"), ["1"]);
    assert_eq!(find(&index, "tantvy internals"), ["1"]);
    assert_eq!(find(&index, "tnatviy"), Vec::<String>::new(), "two edits");
}

#[test]
fn a_transposition_counts_as_one_typo() {
    let index = index_of([titled("1", "tantivy", 1)]);
    assert_eq!(find(&index, "tantviy"), ["1"]);
}

#[test]
fn a_word_of_four_letters_does_not_match_with_a_typo() {
    let index = index_of([titled("1", "rust guide", 1), titled("2", "ruby guide", 2)]);
    assert_eq!(find(&index, "rust guide"), ["1"]);
    assert!(find(&index, "rast guide").is_empty());
}

#[test]
fn an_empty_or_wordless_query_is_an_error() {
    let index = index_of([titled("1", "rust", 1)]);
    for text in ["", "   ", "!?", "a", "- + ."] {
        let error = index.search(&Query::new(text)).unwrap_err();
        assert!(matches!(error, SearchError::EmptyQuery), "{text:?}: {error}");
    }
}

#[test]
fn title_and_summary_fields_ignore_the_body_and_labels() {
    let mut labelled = article("labels", "notes", "", "", 3);
    labelled.tag_names = vec!["tantivy".into()];
    labelled.category_name = Some("tantivy".into());
    let index = index_of([
        article("title", "tantivy notes", "", "", 1),
        article("body", "notes", "", "all about tantivy", 2),
        labelled,
    ]);
    let query = Query { fields: Fields::TitleAndSummary, ..Query::new("tantivy") };
    assert_eq!(ids(&index, &query), ["title"]);
    assert_eq!(find_sorted(&index, "tantivy"), ["body", "labels", "title"]);
}

#[test]
fn tag_and_category_names_are_searched_with_everything() {
    let mut tagged = titled("tagged", "notes", 1);
    tagged.tag_names = vec!["数据库".into(), "Postgres".into()];
    let mut filed = titled("filed", "notes", 2);
    filed.category_name = Some("Backend".into());
    let index = index_of([tagged, filed]);
    assert_eq!(find(&index, "postgres"), ["tagged"]);
    assert_eq!(find(&index, "数据"), ["tagged"]);
    assert_eq!(find(&index, "backend"), ["filed"]);
}

#[test]
fn words_and_characters_past_the_query_bounds_are_ignored() {
    let index = index_of([titled("1", "alpha", 1)]);
    // "missing" is word 33: ignored, so the article still matches.
    let many_words = format!("{}missing", "alpha ".repeat(MAX_QUERY_WORDS));
    assert_eq!(find(&index, &many_words), ["1"]);
    // "missing" starts past character 200: ignored too.
    let long_text = format!("alpha{}missing", " ".repeat(MAX_QUERY_CHARS));
    assert_eq!(find(&index, &long_text), ["1"]);
    assert!(find(&index, "alpha missing").is_empty());
}
