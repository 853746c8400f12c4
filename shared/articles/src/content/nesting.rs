//! Nesting limits that keep rendering time roughly linear in the input size.
//!
//! The HTML parser behind the sanitiser scans the stack of open elements for every block-level
//! start tag, so 50,000 nested `>` quotes or `<div>`s take quadratic time (minutes). Documents
//! never need that depth, so it is capped before HTML is written: Markdown containers (block
//! quotes, lists, items) deeper than [`MAX_CONTAINER_DEPTH`] are flattened (their content is
//! kept), and raw HTML that would open elements deeper than [`MAX_RAW_HTML_DEPTH`] is shown as
//! text instead. This is a cost guard only; safety comes from the sanitiser.

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// Deepest nesting of Markdown block containers that is rendered as such.
pub(super) const MAX_CONTAINER_DEPTH: usize = 64;
/// Deepest nesting of elements opened by raw HTML that is passed on as HTML.
pub(super) const MAX_RAW_HTML_DEPTH: usize = 256;

/// Elements without content or whose end tag is implied by the parser: not counted.
const UNCOUNTED: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th",
    "thead", "tbody", "tfoot", "rt", "rp", "colgroup", "caption",
];

/// What happened to a start event, remembered until its end event.
enum Opened {
    Container,
    Other,
    Dropped,
}

/// Applies both nesting limits to the event stream.
pub(super) fn limit_nesting(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    let mut opened: Vec<Opened> = Vec::new();
    let mut containers = 0usize;
    let mut raw_open: Vec<String> = Vec::new();
    for event in events {
        match event {
            Event::Start(tag) => {
                if !is_container(&tag) {
                    opened.push(Opened::Other);
                    out.push(Event::Start(tag));
                } else if containers < MAX_CONTAINER_DEPTH {
                    containers += 1;
                    opened.push(Opened::Container);
                    out.push(Event::Start(tag));
                } else {
                    opened.push(Opened::Dropped);
                }
            }
            Event::End(end) => match opened.pop() {
                Some(Opened::Dropped) => {
                    if end == TagEnd::Item {
                        out.push(Event::SoftBreak);
                    }
                }
                Some(Opened::Container) => {
                    containers -= 1;
                    out.push(Event::End(end));
                }
                _ => out.push(Event::End(end)),
            },
            Event::Html(html) => out.push(guard_raw(html, &mut raw_open, Event::Html)),
            Event::InlineHtml(html) => out.push(guard_raw(html, &mut raw_open, Event::InlineHtml)),
            other => out.push(other),
        }
    }
    out
}

fn is_container(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::BlockQuote(_)
            | Tag::List(_)
            | Tag::Item
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListDefinition
    )
}

/// Keeps `html` as raw HTML if it stays within [`MAX_RAW_HTML_DEPTH`], else turns it into text.
fn guard_raw<'a>(
    html: CowStr<'a>,
    open: &mut Vec<String>,
    make: fn(CowStr<'a>) -> Event<'a>,
) -> Event<'a> {
    // On failure the stack keeps the tags seen so far: it stays at the limit, which is the
    // state the guard needs (an approximation is fine for a cost guard).
    if track_tags(&html, open) {
        make(html)
    } else {
        Event::Text(html)
    }
}

/// Follows the start and end tags in `html` on the `open` stack (an end tag closes up to the
/// nearest open element of that name, as the HTML parser does); `false` when the stack would
/// grow beyond [`MAX_RAW_HTML_DEPTH`].
fn track_tags(html: &str, open: &mut Vec<String>) -> bool {
    let mut pos = 0;
    // Position of the next `>` at or after `pos`, cached so that input with many `<` and few
    // `>` stays linear.
    let mut next_gt: Option<usize> = None;
    while let Some(lt) = html[pos..].find('<') {
        pos += lt + 1;
        let closing = html[pos..].starts_with('/');
        let name_start = if closing { pos + 1 } else { pos };
        let after = &html[name_start..];
        if !after.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let name_len =
            after.find(|c: char| !c.is_ascii_alphanumeric() && c != '-').unwrap_or(after.len());
        let name = after[..name_len].to_ascii_lowercase();
        pos = name_start + name_len;
        if UNCOUNTED.contains(&name.as_str()) {
            continue;
        }
        if closing {
            if let Some(index) = open.iter().rposition(|n| *n == name) {
                open.truncate(index);
            }
            continue;
        }
        if next_gt.is_none_or(|gt| gt < pos) {
            next_gt = Some(html[pos..].find('>').map_or(html.len(), |gt| pos + gt));
        }
        let tag_end = next_gt.unwrap_or(html.len());
        if html[..tag_end].ends_with('/') {
            continue;
        }
        if open.len() >= MAX_RAW_HTML_DEPTH {
            return false;
        }
        open.push(name);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_tags_are_tracked_like_the_parser_closes_them() {
        let mut open = Vec::new();
        assert!(track_tags("<div><section><span>", &mut open));
        assert_eq!(open, ["div", "section", "span"]);
        assert!(track_tags("</section><br><img src=x><p><x-y/>", &mut open));
        assert_eq!(open, ["div"]);
        assert!(track_tags("</nothing></div> a < b", &mut open));
        assert!(open.is_empty());
        assert!(track_tags("<a href='/x/'>", &mut open));
        assert_eq!(open, ["a"]);
    }

    #[test]
    fn many_unclosed_angle_brackets_stay_fast() {
        let mut open = Vec::new();
        assert!(!track_tags(&"<div".repeat(200_000), &mut open));
        assert_eq!(open.len(), MAX_RAW_HTML_DEPTH);
    }

    #[test]
    fn raw_html_beyond_the_depth_limit_becomes_text() {
        let deep = "<div>".repeat(MAX_RAW_HTML_DEPTH + 1);
        let events = limit_nesting(vec![Event::Html(deep.clone().into())]);
        assert_eq!(events, [Event::Text(deep.into())]);
        let fine = "<div>".repeat(MAX_RAW_HTML_DEPTH);
        let events = limit_nesting(vec![Event::Html(fine.clone().into())]);
        assert_eq!(events, [Event::Html(fine.into())]);
    }

    #[test]
    fn markdown_containers_beyond_the_depth_limit_are_flattened() {
        let events: Vec<Event<'_>> = (0..MAX_CONTAINER_DEPTH + 10)
            .map(|_| Event::Start(Tag::BlockQuote(None)))
            .chain([Event::Text("deep".into())])
            .chain((0..MAX_CONTAINER_DEPTH + 10).map(|_| Event::End(TagEnd::BlockQuote(None))))
            .collect();
        let limited = limit_nesting(events);
        let starts = limited.iter().filter(|e| matches!(e, Event::Start(_))).count();
        let ends = limited.iter().filter(|e| matches!(e, Event::End(_))).count();
        assert_eq!((starts, ends), (MAX_CONTAINER_DEPTH, MAX_CONTAINER_DEPTH));
        assert!(limited.contains(&Event::Text("deep".into())));
    }
}
