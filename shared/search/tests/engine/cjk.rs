//! Chinese, Japanese and Korean text: substrings of any length match, contiguously.

use crate::support::*;

#[test]
fn a_two_character_chinese_query_finds_it_inside_a_longer_word() {
    // Halo's Lucene answers nothing here: 安全 is inside the word 安全管理器.
    let index = index_of([titled("1", "java 安全管理器", 1), titled("2", "管理员手册", 2)]);
    assert_eq!(find(&index, "安全"), ["1"]);
}

#[test]
fn a_chinese_query_finds_chinese_titles_and_bodies() {
    let index = index_of([
        titled("title", "深入理解分布式系统", 1),
        article("body", "读书笔记", "", "这本书讲的是分布式系统的一致性问题。", 2),
        article("neither", "读书笔记", "", "这本书讲的是操作系统。", 3),
    ]);
    assert_eq!(find_sorted(&index, "分布式"), ["body", "title"]);
    assert_eq!(find_sorted(&index, "一致性"), ["body"]);
    assert_eq!(find_sorted(&index, "系统"), ["body", "neither", "title"]);
}

#[test]
fn a_longer_cjk_run_matches_only_where_it_is_contiguous() {
    let index = index_of([
        titled("together", "浅谈安全管理的实践", 1),
        titled("apart", "安全与权限管理", 2),
        titled("split", "安全，管理", 3),
    ]);
    assert_eq!(find(&index, "安全管理"), ["together"]);
    assert_eq!(find_sorted(&index, "安全 管理"), ["apart", "split", "together"]);
}

#[test]
fn a_three_character_run_matches_as_one_phrase() {
    let index = index_of([titled("1", "管理器", 1), titled("2", "理器管", 2)]);
    assert_eq!(find(&index, "管理器"), ["1"]);
}

#[test]
fn a_single_cjk_character_finds_every_text_containing_it() {
    let index = index_of([
        titled("start", "安装指南", 1),
        titled("middle", "平安夜", 2),
        article("alone", "随笔", "安", "", 3),
        titled("none", "指南", 4),
    ]);
    assert_eq!(find_sorted(&index, "安"), ["alone", "middle", "start"]);
}

#[test]
fn japanese_and_korean_runs_match_like_chinese() {
    let index = index_of([
        titled("ja", "プログラミング言語の設計", 1),
        titled("ko", "러스트 프로그래밍 언어", 2),
    ]);
    assert_eq!(find(&index, "言語"), ["ja"]);
    assert_eq!(find(&index, "グラミ"), ["ja"]);
    assert_eq!(find(&index, "프로그래밍"), ["ko"]);
    assert_eq!(find(&index, "그래"), ["ko"]);
}

#[test]
fn a_mixed_query_of_latin_and_cjk_needs_both() {
    let index = index_of([
        titled("both", "Rust 语言入门", 1),
        titled("rust", "Rust in action", 2),
        titled("cjk", "Go 语言入门", 3),
    ]);
    assert_eq!(find(&index, "rust语言"), ["both"]);
    assert_eq!(find(&index, "语言 Rust"), ["both"]);
}

#[test]
fn halfwidth_katakana_finds_fullwidth_katakana() {
    let index = index_of([titled("1", "データベース入門", 1)]);
    assert_eq!(find(&index, "ﾃﾞｰﾀ"), ["1"]);
}
