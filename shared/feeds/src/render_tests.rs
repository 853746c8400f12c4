//! The feed documents.

use super::*;

fn site() -> Site {
    Site::from_lookup(|name| match name {
        "BLOG_SITE_TITLE" => Some("Notes & Code".into()),
        "BLOG_SITE_DESCRIPTION" => Some("Writing <about> code".into()),
        _ => None,
    })
    .unwrap()
}

fn article(id: u64, html: &str) -> PublishedArticle {
    PublishedArticle {
        id,
        title: format!("Title {id} <&>"),
        summary: format!("Summary {id}"),
        author_name: "Ada".into(),
        category_name: Some("Rust".into()),
        tag_names: vec!["web".into(), "async".into()],
        publish_time: format!("2026-01-0{id}T10:00:00"),
        update_time: format!("2026-02-0{id}T11:30:00"),
        content_html: html.into(),
    }
}

fn head(site: &Site) -> FeedHead<'_> {
    FeedHead {
        site,
        title: site.title.clone(),
        page: site.home(),
        self_link: "https://api.example.com/api/v1/feeds/rss.xml".into(),
    }
}

#[test]
fn an_rss_item_carries_every_field_with_its_namespace() {
    let site = site();
    let xml = rss(&head(&site), &[article(2, "<p>Two</p>"), article(1, "<p>One</p>")], HTML_BUDGET);
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\""),
        "{xml}"
    );
    for expected in [
        "xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"",
        "xmlns:dc=\"http://purl.org/dc/elements/1.1/\"",
        "xmlns:atom=\"http://www.w3.org/2005/Atom\"",
        "<title>Notes &amp; Code</title>",
        "<link>https://blog.example.com/</link>",
        "<description>Writing &lt;about&gt; code</description>",
        "<lastBuildDate>Mon, 2 Feb 2026 11:30:00 +0000</lastBuildDate>",
        "<atom:link href=\"https://api.example.com/api/v1/feeds/rss.xml\" rel=\"self\" type=\"application/rss+xml\"/>",
        "<title>Title 2 &lt;&amp;&gt;</title>",
        "<link>https://blog.example.com/articles/2</link>",
        "<description><![CDATA[Summary 2]]></description>",
        // isPermaLink is true unless said otherwise.
        "<guid>https://blog.example.com/articles/2</guid>",
        "<pubDate>Fri, 2 Jan 2026 10:00:00 +0000</pubDate>",
        "<category>Rust</category><category>web</category><category>async</category>",
        "<content:encoded><![CDATA[<p>Two</p>]]></content:encoded>",
        "<dc:creator>Ada</dc:creator>",
        "<dc:date>2026-02-02T11:30:00Z</dc:date>",
    ] {
        assert!(xml.contains(expected), "{expected} missing from {xml}");
    }
    assert!(xml.find("articles/2").unwrap() < xml.find("articles/1").unwrap(), "order kept");
}

#[test]
fn an_atom_entry_carries_every_field_and_escaped_html() {
    let site = site();
    let xml = atom(&head(&site), &[article(3, "<p class=\"x\">Three</p>")], HTML_BUDGET);
    for expected in [
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"",
        "<title>Notes &amp; Code</title>",
        "<id>https://blog.example.com/</id>",
        "<updated>2026-02-03T11:30:00+00:00</updated>",
        "<link href=\"https://api.example.com/api/v1/feeds/rss.xml\" rel=\"self\" type=\"application/atom+xml\"/>",
        "<link href=\"https://blog.example.com/\" rel=\"alternate\" type=\"text/html\"/>",
        "<id>https://blog.example.com/articles/3</id>",
        "<published>2026-01-03T10:00:00+00:00</published>",
        "<author><name>Ada</name></author>",
        "<category term=\"Rust\"/><category term=\"web\"/><category term=\"async\"/>",
        "<summary>Summary 3</summary>",
        "<content type=\"html\">&lt;p class=&quot;x&quot;&gt;Three&lt;/p&gt;</content>",
    ] {
        assert!(xml.contains(expected), "{expected} missing from {xml}");
    }
}

#[test]
fn past_the_budget_items_carry_their_summary_only() {
    let site = site();
    let html = "<p>".to_string() + &"x".repeat(1000) + "</p>";
    let articles = [article(3, &html), article(2, &html), article(1, "<p>small</p>")];
    let budget = answer_bytes(&html, false) * 2 - 1;
    let xml = rss(&head(&site), &articles, budget);
    assert_eq!(xml.matches("<content:encoded>").count(), 1, "{xml}");
    assert!(!xml.contains("small"), "once one passes the budget, the later ones stay out too");
    assert_eq!(xml.matches("<description><![CDATA[Summary").count(), 3);
    let xml = atom(&head(&site), &articles, answer_bytes(&html, true) + 10);
    assert_eq!(xml.matches("<content type=\"html\">").count(), 1);
    assert_eq!(xml.matches("<summary>").count(), 3);
    assert_eq!(atom(&head(&site), &articles, HTML_BUDGET).matches("<content").count(), 3);
}

#[test]
fn the_budget_counts_escapes_of_the_xml_and_of_lambdas_json() {
    assert_eq!(answer_bytes("ab", false), 2);
    assert_eq!(answer_bytes("<a href=\"x\">", false), 14);
    assert_eq!(answer_bytes("<a href=\"x\">", true), 4 + 7 + 6 + 1 + 6 + 4);
    assert_eq!(answer_bytes("a\nb", true), 4);
}

#[test]
fn characters_xml_cannot_carry_are_dropped() {
    assert_eq!(xml_text("a\u{0}b\u{1b}c\td\ne\u{FFFE}"), "abc\td\ne");
    let site = site();
    let mut odd = article(1, "<p>bell\u{7}</p>");
    odd.title = "T\u{8}".into();
    let xml = rss(&head(&site), &[odd], HTML_BUDGET);
    assert!(xml.contains("<title>T</title>") && xml.contains("bell</p>"), "{xml}");
}

#[test]
fn an_empty_feed_is_valid_with_a_fixed_update_time() {
    let site = site();
    let xml = rss(&head(&site), &[], HTML_BUDGET);
    assert!(!xml.contains("lastBuildDate") && xml.contains("<channel>"), "{xml}");
    let xml = atom(&head(&site), &[], HTML_BUDGET);
    assert!(xml.contains("<updated>1970-01-01T00:00:00+00:00</updated>"), "{xml}");
    assert_eq!(newest_update(&[]), None);
}

#[test]
fn an_author_without_a_name_shows_as_the_site() {
    let site = site();
    let mut unnamed = article(1, "<p>x</p>");
    unnamed.author_name = " ".into();
    let xml = rss(&head(&site), &[unnamed.clone()], HTML_BUDGET);
    assert!(xml.contains("<dc:creator>Notes &amp; Code</dc:creator>"), "{xml}");
    let xml = atom(&head(&site), &[unnamed], HTML_BUDGET);
    assert!(xml.contains("<author><name>Notes &amp; Code</name></author>"), "{xml}");
}
