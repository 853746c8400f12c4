//! Relevance: field boosts, exact above fuzzy, ties newest first.

use crate::support::*;

#[test]
fn a_title_match_ranks_above_a_body_only_match() {
    let body = "tantivy tantivy tantivy: an essay on search engines and their indexes, \
                how tantivy stores postings and how it scores them.";
    let index = index_of([
        article("body", "Search engines", "an essay", body, 2),
        article("title", "Tantivy", "an essay", "on search engines", 1),
    ]);
    assert_eq!(find(&index, "tantivy"), ["title", "body"]);
}

#[test]
fn a_summary_match_ranks_above_a_body_only_match() {
    let index = index_of([
        article("body", "Notes", "an essay", "all about rust and more rust", 2),
        article("summary", "Notes", "rust in practice", "an essay", 1),
    ]);
    assert_eq!(find(&index, "rust"), ["summary", "body"]);
}

#[test]
fn an_exact_match_ranks_above_a_typo_match() {
    let index = index_of([titled("typo", "tantivu", 2), titled("exact", "tantivy", 1)]);
    assert_eq!(find(&index, "tantivy"), ["exact", "typo"]);
    assert_eq!(find(&index, "tantivu"), ["typo", "exact"]);
}

#[test]
fn an_exact_match_in_the_body_ranks_above_a_typo_in_the_title() {
    let index = index_of([
        article("typo", "tantivu", "", "", 2),
        article("exact", "notes", "", "a long body that mentions tantivy once among many words", 1),
    ]);
    assert_eq!(find(&index, "tantivy"), ["exact", "typo"]);
}

#[test]
fn an_exact_match_ranks_above_a_prefix_match() {
    let index = index_of([titled("prefix", "rustacean", 2), titled("exact", "rust", 1)]);
    assert_eq!(find(&index, "rust"), ["exact", "prefix"]);
}

#[test]
fn equal_scores_are_broken_newest_first() {
    let index = index_of([
        titled("old", "rust notes", 1_000),
        titled("new", "rust notes", 3_000),
        titled("mid", "rust notes", 2_000),
    ]);
    assert_eq!(find(&index, "rust"), ["new", "mid", "old"]);
}
