//! Highlights: marked matches, escaped text, short fragments, `None` without a match.

use blog_search::{Fields, Highlights, Query, SearchIndex, FRAGMENT_CHARS};

use crate::support::*;

fn highlights(index: &SearchIndex, query: &Query) -> Highlights {
    index.search(query).unwrap().hits.remove(0).highlights
}

fn visible_chars(fragment: &str) -> usize {
    fragment.replace("<mark>", "").replace("</mark>", "").chars().count()
}

#[test]
fn a_cjk_match_is_highlighted_as_the_matched_substring() {
    let index = index_of([article("1", "java 安全管理器", "谈谈安全管理的细节", "", 1)]);
    let found = highlights(&index, &Query::new("安全"));
    assert_eq!(found.title.as_deref(), Some("java <mark>安全</mark>管理器"));
    assert_eq!(found.summary.as_deref(), Some("谈谈<mark>安全</mark>管理的细节"));
    let longer = highlights(&index, &Query::new("安全管理"));
    assert_eq!(longer.title.as_deref(), Some("java <mark>安全管理</mark>器"));
}

#[test]
fn latin_matches_are_marked_in_title_summary_and_body() {
    let index = index_of([article(
        "1",
        "Rust and Tantivy",
        "Search with RUST",
        "The body talks about rust too.",
        1,
    )]);
    let found = highlights(&index, &Query::new("rust"));
    assert_eq!(found.title.as_deref(), Some("<mark>Rust</mark> and Tantivy"));
    assert_eq!(found.summary.as_deref(), Some("Search with <mark>RUST</mark>"));
    assert_eq!(found.content.as_deref(), Some("The body talks about <mark>rust</mark> too."));
}

#[test]
fn every_word_and_its_prefix_or_typo_match_is_marked() {
    let index = index_of([titled("1", "Tantivy internals explained", 1)]);
    let found = highlights(&index, &Query::new("tantivu expl"));
    assert_eq!(
        found.title.as_deref(),
        Some("<mark>Tantivy</mark> internals <mark>explained</mark>")
    );
}

#[test]
fn everything_but_the_marks_is_html_escaped() {
    let title = r#"<script>alert("x")</script> & rust's"#;
    let index = index_of([article("1", title, "<b>rust</b> & 'more'", "", 1)]);
    let found = highlights(&index, &Query::new("rust"));
    assert_eq!(
        found.title.as_deref(),
        Some("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; <mark>rust</mark>&#39;s")
    );
    assert_eq!(
        found.summary.as_deref(),
        Some("&lt;b&gt;<mark>rust</mark>&lt;/b&gt; &amp; &#39;more&#39;")
    );
    let markup = highlights(&index, &Query::new("script"));
    assert_eq!(
        markup.title.as_deref(),
        Some("&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; rust&#39;s")
    );
}

#[test]
fn a_field_without_a_match_has_no_highlight() {
    let index = index_of([article("1", "Notes", "about nothing", "the body mentions tantivy", 1)]);
    let found = highlights(&index, &Query::new("tantivy"));
    assert_eq!(found.title, None);
    assert_eq!(found.summary, None);
    assert!(found.content.is_some());
}

#[test]
fn the_title_and_summary_search_highlights_no_body() {
    let index = index_of([article("1", "rust", "rust", "rust", 1)]);
    let query = Query { fields: Fields::TitleAndSummary, ..Query::new("rust") };
    let found = highlights(&index, &query);
    assert!(found.title.is_some() && found.summary.is_some());
    assert_eq!(found.content, None);
}

#[test]
fn a_long_body_is_cut_to_a_short_fragment_around_the_match() {
    let body =
        format!("{}the needle is here.{}", "hay and straw. ".repeat(80), " more hay.".repeat(80));
    let chinese = format!("{}向量检索{}", "无关的内容。".repeat(60), "其他内容。".repeat(60));
    let index =
        index_of([article("en", "Haystack", "", &body, 1), article("zh", "草堆", "", &chinese, 2)]);
    let found = highlights(&index, &Query::new("needle"));
    let content = found.content.unwrap();
    assert!(content.contains("<mark>needle</mark>"), "{content}");
    assert!(content.starts_with('…') && content.ends_with('…'), "{content}");
    assert!(visible_chars(&content) <= FRAGMENT_CHARS, "{content}");
    let chinese = highlights(&index, &Query::new("向量检索")).content.unwrap();
    assert!(chinese.contains("<mark>向量检索</mark>"), "{chinese}");
    assert!(visible_chars(&chinese) <= FRAGMENT_CHARS, "{chinese}");
}

#[test]
fn a_fullwidth_match_is_marked_in_the_original_text() {
    let index = index_of([titled("1", "ＲＵＳＴ入门", 1)]);
    let found = highlights(&index, &Query::new("rust"));
    assert_eq!(found.title.as_deref(), Some("<mark>ＲＵＳＴ</mark>入门"));
}
