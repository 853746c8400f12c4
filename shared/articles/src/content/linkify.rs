//! GFM extended autolinks: bare `http://`, `https://` and `www.` URLs in text become links.
//!
//! pulldown-cmark implements only `<...>` autolinks, so text events are scanned here, outside
//! code, links, images and raw `<a>` elements. Only `http`/`https` destinations are produced;
//! the sanitiser still checks every URL afterwards.

use pulldown_cmark::{CowStr, Event, LinkType, Tag, TagEnd};

/// Longer runs are left as text (keeps scanning linear; no real link is that long).
const MAX_URL_BYTES: usize = 2048;

/// Rewrites text events so that bare URLs become autolinks.
pub(super) fn linkify_events(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    // Depth of links, images, code blocks and raw `<a>` elements around the current event.
    let mut no_link_depth = 0usize;
    let mut raw_anchor_depth = 0usize;
    for event in events {
        match &event {
            Event::Start(Tag::Link { .. } | Tag::Image { .. } | Tag::CodeBlock(_)) => {
                no_link_depth += 1;
            }
            Event::End(TagEnd::Link | TagEnd::Image | TagEnd::CodeBlock) => {
                no_link_depth = no_link_depth.saturating_sub(1);
            }
            Event::InlineHtml(html) => raw_anchor_depth = anchor_depth(html, raw_anchor_depth),
            Event::Text(text) if no_link_depth == 0 && raw_anchor_depth == 0 => {
                let pieces = find_urls(text);
                if !pieces.is_empty() {
                    push_linked(&mut out, text, &pieces);
                    continue;
                }
            }
            _ => {}
        }
        out.push(event);
    }
    out
}

/// Splits `text` around the URL byte ranges in `pieces` and pushes text and link events.
fn push_linked<'a>(out: &mut Vec<Event<'a>>, text: &str, pieces: &[(usize, usize)]) {
    let mut last = 0;
    for &(start, end) in pieces {
        if start > last {
            out.push(Event::Text(CowStr::from(text[last..start].to_owned())));
        }
        let url = &text[start..end];
        let dest = if url.len() >= 4 && url[..4].eq_ignore_ascii_case("www.") {
            format!("http://{url}")
        } else {
            url.to_owned()
        };
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Autolink,
            dest_url: CowStr::from(dest),
            title: CowStr::Borrowed(""),
            id: CowStr::Borrowed(""),
        }));
        out.push(Event::Text(CowStr::from(url.to_owned())));
        out.push(Event::End(TagEnd::Link));
        last = end;
    }
    if last < text.len() {
        out.push(Event::Text(CowStr::from(text[last..].to_owned())));
    }
}

/// Tracks raw `<a ...>` / `</a>` inline HTML so that text already inside a link is left alone.
fn anchor_depth(html: &str, depth: usize) -> usize {
    let bytes = html.as_bytes();
    let is_anchor = |rest: &[u8]| {
        rest.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
            && rest.get(1).is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
    };
    if bytes.starts_with(b"</") && is_anchor(&bytes[2..]) {
        depth.saturating_sub(1)
    } else if bytes.starts_with(b"<") && is_anchor(&bytes[1..]) && !html.ends_with("/>") {
        depth + 1
    } else {
        depth
    }
}

/// Byte ranges of the bare URLs in `text`, in order.
pub(super) fn find_urls(text: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut previous: Option<char> = None;
    let mut skip_until = 0;
    // End of the current run without whitespace or `<`, computed once per run.
    let mut run_end = 0;
    for (start, c) in text.char_indices() {
        let at_boundary = previous.is_none_or(|p| p.is_whitespace() || "(*_~\"'".contains(p));
        previous = Some(c);
        if start < skip_until || !at_boundary || !matches!(c, 'h' | 'H' | 'w' | 'W') {
            continue;
        }
        let rest = &bytes[start..];
        let prefix_len = ["https://", "http://", "www."]
            .iter()
            .find(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
            .map(|p| p.len());
        let Some(prefix_len) = prefix_len else {
            continue;
        };
        if run_end <= start {
            run_end = text[start..]
                .find(|c: char| c.is_whitespace() || c == '<')
                .map_or(text.len(), |offset| start + offset);
        }
        if run_end - start > MAX_URL_BYTES {
            continue;
        }
        let end = start + trim_trailing(&text[start..run_end]).len();
        if end > start + prefix_len && valid_domain(&text[start + prefix_len..end]) {
            found.push((start, end));
            skip_until = end;
        }
    }
    found
}

/// Drops trailing punctuation that GFM does not treat as part of a URL, and unbalanced `)`.
fn trim_trailing(candidate: &str) -> &str {
    let opening = candidate.matches('(').count();
    let mut closing = candidate.matches(')').count();
    let mut url = candidate;
    while let Some(last) = url.chars().next_back() {
        let drop = match last {
            '?' | '!' | '.' | ',' | ':' | ';' | '*' | '_' | '~' | '"' | '\'' => true,
            ')' => closing > opening,
            _ => false,
        };
        if !drop {
            break;
        }
        if last == ')' {
            closing -= 1;
        }
        url = &url[..url.len() - last.len_utf8()];
    }
    url
}

/// The host part (up to `/`, `?` or `#`) must be non-empty letters, digits, `-`, `_`, `.` and an
/// optional `:port`, and must contain a letter or digit.
fn valid_domain(after_prefix: &str) -> bool {
    let host = after_prefix.split(['/', '?', '#']).next().unwrap_or_default();
    !host.is_empty()
        && host.chars().any(char::is_alphanumeric)
        && host.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(text: &str) -> Vec<&str> {
        find_urls(text).into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn bare_urls_are_found_with_trailing_punctuation_left_out() {
        assert_eq!(
            urls("See https://example.com/a?b=1. And www.rust-lang.org, too"),
            ["https://example.com/a?b=1", "www.rust-lang.org"]
        );
    }

    #[test]
    fn balanced_parentheses_stay_in_the_url() {
        assert_eq!(
            urls("(https://en.wikipedia.org/wiki/Rust_(language))"),
            ["https://en.wikipedia.org/wiki/Rust_(language)"]
        );
    }

    #[test]
    fn urls_inside_words_or_without_host_are_not_links() {
        assert!(urls("xhttps://example.com").is_empty());
        assert!(urls("https:// nothing").is_empty());
        assert!(urls("www. nothing").is_empty());
        assert!(urls("javascript:alert(1)").is_empty());
    }

    #[test]
    fn overlong_or_pathological_runs_stay_fast_and_unlinked() {
        assert!(urls(&format!("https://a.test/{}", "x".repeat(MAX_URL_BYTES))).is_empty());
        let many = "(www.".repeat(100_000);
        assert!(urls(&many).is_empty());
        let parens = format!("https://a.test/{}", ")".repeat(1_000));
        assert_eq!(urls(&parens), ["https://a.test/"]);
    }

    #[test]
    fn anchor_depth_follows_raw_a_elements() {
        assert_eq!(anchor_depth("<a href=\"x\">", 0), 1);
        assert_eq!(anchor_depth("</A>", 1), 0);
        assert_eq!(anchor_depth("<abbr>", 0), 0);
    }
}
