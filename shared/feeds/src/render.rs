//! The feed documents, written by the `rss` and `atom_syndication` crates from the articles:
//! pure functions of their input, so the unit tests below check them without a table.
//!
//! Lambda answers at most 6 MB, and 20 articles of the largest content would pass it: the
//! items' HTML is included newest first while the bytes it adds to the answer (as the format
//! writes it, plus what the JSON of Lambda's answer adds in escapes) stay within the budget
//! ([`HTML_BUDGET`]); from the first item that would pass it on, items carry their summary only.

use atom_syndication as atom;
use chrono::{DateTime, FixedOffset, NaiveDateTime, Utc};

use blog_articles::PublishedArticle;
use blog_core::config::Site;

/// Bytes of item HTML one feed carries at most: 4 MB, which leaves room under Lambda's 6 MB
/// for the rest of the feed (titles, summaries, links) and the answer's envelope.
pub const HTML_BUDGET: usize = 4 << 20;

/// What a feed is about: the whole blog, a category or a tag.
pub struct FeedHead<'a> {
    /// The site: its description, and the article URL pattern.
    pub site: &'a Site,
    /// Title: the site's, or the site's with the category's or tag's name.
    pub title: String,
    /// The page a reader opens for the whole feed (the home, category or tag page).
    pub page: String,
    /// The absolute URL the feed was requested at (`rel="self"`).
    pub self_link: String,
}

/// An API time (`YYYY-MM-DDTHH:MM:SS`, UTC) as an instant.
pub fn utc(time: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(time, blog_core::time::FORMAT).ok().map(|t| t.and_utc())
}

/// The newest change among `articles` (`lastBuildDate`, Atom's `updated`, `Last-Modified`).
pub fn newest_update(articles: &[PublishedArticle]) -> Option<DateTime<Utc>> {
    articles.iter().filter_map(|article| utc(&article.update_time)).max()
}

/// Text without the characters XML 1.0 cannot carry (control characters other than tab and
/// line breaks, U+FFFE and U+FFFF), which would make the whole feed unreadable.
pub fn xml_text(text: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
    };
    text.chars().filter(|c| allowed(*c)).collect()
}

/// Bytes `html` adds to the answer: as written inside CDATA (`escaped: false`) or as escaped
/// text (`escaped: true`), plus the escapes of the JSON string Lambda's answer carries it in.
pub fn answer_bytes(html: &str, escaped: bool) -> usize {
    html.bytes()
        .map(|b| match b {
            b'<' | b'>' if escaped => 4,
            b'&' if escaped => 5,
            b'"' if escaped => 6,
            b'\'' if escaped => 6,
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            _ => 1,
        })
        .sum()
}

/// Which articles carry their HTML: the newest first, until the next would pass `budget`.
fn with_html(articles: &[PublishedArticle], budget: usize, escaped: bool) -> Vec<bool> {
    let mut spent = 0;
    let mut open = true;
    articles
        .iter()
        .map(|article| {
            let cost = answer_bytes(&article.content_html, escaped);
            open = open && spent + cost <= budget;
            if open {
                spent += cost;
            }
            open
        })
        .collect()
}

fn author(site: &Site, article: &PublishedArticle) -> String {
    match article.author_name.trim() {
        "" => xml_text(&site.title),
        name => xml_text(name),
    }
}

/// The feed's link to itself, served as `content_type` (its media type, without parameters).
fn self_link(head: &FeedHead, content_type: &str) -> atom::Link {
    atom::Link {
        href: head.self_link.clone(),
        rel: "self".into(),
        mime_type: Some(content_type.split(';').next().unwrap_or_default().into()),
        ..Default::default()
    }
}

fn categories(article: &PublishedArticle) -> impl Iterator<Item = String> + '_ {
    article.category_name.iter().chain(&article.tag_names).map(|name| xml_text(name))
}

/// The RSS 2.0 document (with `content:encoded`, `dc:creator`, `dc:date` and
/// `atom:link rel="self"`).
pub fn rss(head: &FeedHead, articles: &[PublishedArticle], budget: usize) -> String {
    let html = with_html(articles, budget, false);
    let items = articles
        .iter()
        .zip(html)
        .map(|(article, html)| {
            let link = head.site.article(article.id);
            rss::Item {
                title: Some(xml_text(&article.title)),
                link: Some(link.clone()),
                description: Some(xml_text(&article.summary)),
                categories: categories(article)
                    .map(|name| rss::Category { name, domain: None })
                    .collect(),
                guid: Some(rss::Guid { value: link, permalink: true }),
                pub_date: utc(&article.publish_time).map(|t| t.to_rfc2822()),
                content: html.then(|| xml_text(&article.content_html)),
                // RSS has no update time of its own: `dc:date`, which readers take for it.
                dublin_core_ext: Some(rss::extension::dublincore::DublinCoreExtension {
                    creators: vec![author(head.site, article)],
                    dates: utc(&article.update_time)
                        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
                        .into_iter()
                        .collect(),
                    ..Default::default()
                }),
                ..Default::default()
            }
        })
        .collect();
    let self_link = self_link(head, super::RSS);
    let channel = rss::Channel {
        title: xml_text(&head.title),
        link: head.page.clone(),
        description: xml_text(&head.site.description),
        last_build_date: newest_update(articles).map(|t| t.to_rfc2822()),
        atom_ext: Some(rss::extension::atom::AtomExtension { links: vec![self_link] }),
        items,
        ..Default::default()
    };
    channel.to_string()
}

fn fixed(at: DateTime<Utc>) -> DateTime<FixedOffset> {
    at.fixed_offset()
}

/// The Atom 1.0 document (`content` of type `html`).
pub fn atom(head: &FeedHead, articles: &[PublishedArticle], budget: usize) -> String {
    let html = with_html(articles, budget, true);
    let alternate = |href: String| atom::Link {
        href,
        rel: "alternate".into(),
        mime_type: Some("text/html".into()),
        ..Default::default()
    };
    let entries = articles
        .iter()
        .zip(html)
        .map(|(article, html)| {
            let link = head.site.article(article.id);
            let updated = utc(&article.update_time).unwrap_or_default();
            atom::Entry {
                title: atom::Text::plain(xml_text(&article.title)),
                id: link.clone(),
                updated: fixed(updated),
                published: utc(&article.publish_time).map(fixed),
                authors: vec![atom::Person {
                    name: author(head.site, article),
                    ..Default::default()
                }],
                categories: categories(article)
                    .map(|term| atom::Category { term, ..Default::default() })
                    .collect(),
                links: vec![alternate(link)],
                summary: Some(atom::Text::plain(xml_text(&article.summary))),
                content: html.then(|| atom::Content {
                    value: Some(xml_text(&article.content_html)),
                    content_type: Some("html".into()),
                    ..Default::default()
                }),
                ..Default::default()
            }
        })
        .collect();
    let self_link = self_link(head, super::ATOM);
    let feed = atom::Feed {
        title: atom::Text::plain(xml_text(&head.title)),
        id: head.page.clone(),
        // An empty feed has changed at no instant: the epoch keeps its answer the same.
        updated: fixed(newest_update(articles).unwrap_or_default()),
        subtitle: Some(atom::Text::plain(xml_text(&head.site.description))),
        links: vec![alternate(head.page.clone()), self_link],
        entries,
        ..Default::default()
    };
    feed.to_string()
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
