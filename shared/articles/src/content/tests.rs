//! Tests of the whole pipeline ([`render`]).

use super::*;

/// The table of contents' ids, without the prefix every id of the HTML carries.
fn ids(markdown: &str) -> Vec<String> {
    let toc = render(markdown).toc.into_iter();
    toc.map(|e| e.id.strip_prefix("user-content-").expect("prefixed").to_string()).collect()
}

#[test]
fn gfm_table_renders_with_alignment_as_attribute() {
    let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |\n").html;
    assert!(html.contains("<table>"), "{html}");
    assert!(html.contains("<th align=\"left\">a</th>"), "{html}");
    assert!(html.contains("<td align=\"right\">2</td>"), "{html}");
    assert!(!html.contains("style"), "{html}");
}

#[test]
fn strikethrough_renders_as_del() {
    assert_eq!(render("~~gone~~").html, "<p><del>gone</del></p>\n");
}

#[test]
fn task_list_checkboxes_survive_as_disabled_checkboxes() {
    let html = render("- [x] done\n- [ ] todo\n").html;
    assert_eq!(html.matches("<input").count(), 2, "{html}");
    assert_eq!(html.matches("type=\"checkbox\"").count(), 2, "{html}");
    assert_eq!(html.matches("disabled=\"\"").count(), 2, "{html}");
    assert_eq!(html.matches("checked").count(), 1, "{html}");
}

#[test]
fn bare_urls_become_links() {
    let html = render("Visit https://example.com/docs. Or www.rust-lang.org!").html;
    assert!(
        html.contains(
            "<a href=\"https://example.com/docs\" rel=\"noopener noreferrer nofollow\">https://example.com/docs</a>."
        ),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"http://www.rust-lang.org\" rel=\"noopener noreferrer nofollow\">www.rust-lang.org</a>!"),
        "{html}"
    );
}

#[test]
fn angle_bracket_autolinks_and_emails_become_links() {
    let html = render("<https://example.com> and <me@example.com>").html;
    assert!(html.contains("<a href=\"https://example.com\""), "{html}");
    assert!(html.contains("<a href=\"mailto:me@example.com\""), "{html}");
}

#[test]
fn urls_in_code_and_links_are_not_linked_again() {
    let html =
        render("`https://a.test` [https://b.test](https://c.test)\n\n    https://d.test\n").html;
    assert_eq!(html.matches("<a ").count(), 1, "{html}");
    assert!(html.contains("<code>https://a.test</code>"), "{html}");
}

#[test]
fn fenced_code_keeps_its_language_class() {
    let html = render("```rust\nfn main() {}\n```\n").html;
    assert_eq!(html, "<pre><code class=\"language-rust\">fn main() {}\n</code></pre>\n");
}

#[test]
fn fenced_code_with_a_hostile_info_string_loses_the_class() {
    let html = render("```\"><script>alert(1)</script>\nx\n```\n").html;
    assert!(!html.contains("class"), "{html}");
    assert!(!html.contains("<script"), "{html}");
}

#[test]
fn explicit_heading_id_wins() {
    let rendered = render("## Install {#custom}\n");
    assert_eq!(rendered.html, "<h2 id=\"user-content-custom\">Install</h2>\n");
    assert_eq!(rendered.toc[0].title, "Install");
}

#[test]
fn generated_heading_ids_are_github_style_slugs() {
    let rendered = render("# Hello, *World*! `v2`\n");
    assert_eq!(
        rendered.html,
        "<h1 id=\"user-content-hello-world-v2\">Hello, <em>World</em>! <code>v2</code></h1>\n"
    );
}

#[test]
fn duplicate_headings_get_numeric_suffixes() {
    assert_eq!(ids("# A\n# A\n## A\n# A-1\n"), ["a", "a-1", "a-2", "a-1-1"]);
}

#[test]
fn generated_ids_avoid_explicit_ids_anywhere_in_the_document() {
    assert_eq!(ids("# Intro\n# Other {#intro}\n"), ["intro-1", "intro"]);
}

#[test]
fn unicode_and_cjk_headings_keep_their_letters() {
    assert_eq!(
        ids("# 快速 开始\n## Größe ändern\n# ???\n"),
        ["快速-开始", "größe-ändern", "section"]
    );
}

#[test]
fn heading_classes_and_attributes_are_dropped() {
    let html = render("# Title {.big onclick=alert(1) data-x=y}\n").html;
    assert_eq!(html, "<h1 id=\"user-content-title\">Title</h1>\n");
}

#[test]
fn ids_are_stable_across_renders() {
    let markdown = "# A\n## B\n# A\n### 中文\n";
    assert_eq!(render(markdown), render(markdown));
}

#[test]
fn toc_lists_levels_one_to_six_in_order() {
    let rendered = render("# 1\n## 2\n### 3\n#### 4\n##### 5\n###### 6\nSetext\n---\n");
    let levels: Vec<u8> = rendered.toc.iter().map(|e| e.level).collect();
    assert_eq!(levels, [1, 2, 3, 4, 5, 6, 2]);
    assert_eq!(rendered.toc[6].title, "Setext");
}

#[test]
fn toc_ignores_heading_lines_inside_code_blocks() {
    let rendered = render("# Real\n```md\n# not a heading\n```\n\n    # indented code\n");
    assert_eq!(rendered.toc.len(), 1);
    assert_eq!(rendered.toc[0].title, "Real");
}

#[test]
fn toc_json_has_exactly_level_title_and_id() {
    let rendered = render("## Getting **started** \"now\"\n");
    assert_eq!(
        rendered.toc_json,
        r#"[{"level":2,"title":"Getting started \"now\"","id":"user-content-getting-started-now"}]"#
    );
    let parsed: Vec<TocEntry> = serde_json::from_str(&rendered.toc_json).unwrap();
    assert_eq!(parsed, rendered.toc);
}

#[test]
fn toc_json_is_an_empty_array_without_headings() {
    assert_eq!(render("just text").toc_json, "[]");
    assert_eq!(render("").toc_json, "[]");
}

#[test]
fn stored_markdown_is_untouched() {
    let markdown = String::from("# T\n<script>alert(1)</script>\n[x](javascript:alert(1))\n");
    let copy = markdown.clone();
    let _ = render(&markdown);
    assert_eq!(markdown, copy);
}

#[test]
fn raw_html_allowed_by_the_list_survives_and_the_rest_is_stripped() {
    let html = render("Some <b>bold</b> and <span style=\"color:red\">span</span>.").html;
    assert_eq!(html, "<p>Some <b>bold</b> and span.</p>\n");
}

#[test]
fn plain_text_has_no_markup_and_separates_blocks() {
    let rendered = render(
        "# Title\n\nSome *emphasis* and `code`.<script>alert(1)</script>\n\n\
         | a | b |\n|---|---|\n| 1 | 2 |\n\n![alt text](x.png)\n\n<div><p>raw &amp; html</p></div>\n",
    );
    assert_eq!(rendered.plain_text, "Title\nSome emphasis and code.\na b\n1 2\nraw & html");
}

#[test]
fn summary_of_rendered_text_is_limited() {
    let markdown = "# Heading\n\n".to_owned() + &"Lorem ipsum dolor sit amet. ".repeat(20);
    let summary = summarize(&render(&markdown).plain_text, SUMMARY_MAX_CHARS);
    assert!(summary.chars().count() <= SUMMARY_MAX_CHARS);
    assert!(summary.starts_with("Heading Lorem ipsum"));
    assert!(summary.ends_with('.'));
}

#[test]
fn deeply_nested_and_huge_inputs_do_not_panic() {
    let quotes = ">".repeat(50_000) + " deep";
    assert!(render(&quotes).plain_text.contains("deep"));
    let lists = "- ".repeat(50_000) + "item";
    assert!(render(&lists).plain_text.contains("item"));
    let indented = (0..300).map(|i| format!("{}- item\n", "  ".repeat(i))).collect::<String>();
    assert_eq!(render(&indented).plain_text.matches("item").count(), 300);
    let tags = "<div>".repeat(50_000);
    let _ = render(&tags);
    let big = "word *em* [l](http://x.test) `c`\n".repeat(20_000);
    assert!(!render(&big).html.is_empty());
}

#[test]
fn every_id_is_prefixed_so_none_clobbers_a_name_of_the_page() {
    let rendered = render("# Config {#config}\n\n<h2 id=\"location\">Raw</h2>\n\n[up](#config)\n");
    assert!(rendered.html.contains("<h1 id=\"user-content-config\">"), "{}", rendered.html);
    assert!(rendered.html.contains("<h2 id=\"user-content-location\">"), "{}", rendered.html);
    assert!(rendered.html.contains("href=\"#user-content-config\""), "{}", rendered.html);
    assert!(!rendered.html.contains("id=\"config\"") && !rendered.html.contains("id=\"location\""));
    assert_eq!(rendered.toc[0].id, "user-content-config", "the contents name the HTML's ids");
}

#[test]
fn comments_render_without_heading_ids_images_or_tables_and_with_ugc_links() {
    let html = render_comment(
        "# Hi {#custom}\n\n![a](https://x.test/a.png) [l](https://x.test)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    );
    assert!(html.contains("<h1>Hi {#custom}</h1>"), "{html}");
    assert!(!html.contains("<img") && !html.contains("<table"), "{html}");
    assert!(
        html.contains("<a href=\"https://x.test\" rel=\"nofollow ugc noopener noreferrer\">l</a>"),
        "{html}"
    );
    let html = render_comment("<script>alert(1)</script>\n\n*x*");
    assert!(!html.contains("script") && html.contains("<p><em>x</em></p>"), "{html}");
}
