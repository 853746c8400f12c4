//! Heading anchors and the table of contents.
//!
//! pulldown-cmark only reports explicit `{#id}` attributes, so the event stream is walked here:
//! each heading gets its explicit id or a GitHub-style slug of its plain text, made unique
//! within the document, and becomes a [`TocEntry`]. Every id of the HTML carries
//! [`ID_PREFIX`] (the sanitiser adds it, raw HTML included), so no id of an article can
//! clobber a name of the page it is shown in (`id="config"` would be `window.config`); the
//! table of contents names the prefixed ids, and links to `#<id>` in the Markdown follow.

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, HeadingLevel, Tag, TagEnd};

use super::TocEntry;

/// Prefix of every `id` in an article's HTML, as GitHub prefixes rendered Markdown's.
pub(super) const ID_PREFIX: &str = "user-content-";

/// `id` as the HTML carries it.
fn prefixed(id: &str) -> String {
    if id.starts_with(ID_PREFIX) {
        id.to_owned()
    } else {
        format!("{ID_PREFIX}{id}")
    }
}

/// Id used when a heading's slug would be empty (e.g. a heading made only of punctuation).
const EMPTY_SLUG: &str = "section";

/// Sets the `id` of every heading (explicit ids win), drops heading classes and custom
/// attributes, and returns the rewritten events with the table of contents.
pub(super) fn assign_ids(mut events: Vec<Event<'_>>) -> (Vec<Event<'_>>, Vec<TocEntry>) {
    // Explicit ids are reserved first so that a generated id never takes one of them, wherever
    // the explicit heading appears in the document.
    let mut ids = Ids {
        used: events
            .iter()
            .filter_map(|event| match event {
                Event::Start(Tag::Heading { id: Some(id), .. }) if !id.is_empty() => {
                    Some(id.to_string())
                }
                _ => None,
            })
            .collect(),
        ..Ids::default()
    };

    let mut toc = Vec::new();
    let mut index = 0;
    while index < events.len() {
        let Event::Start(Tag::Heading { level, id, .. }) = &events[index] else {
            index += 1;
            continue;
        };
        let level = *level;
        let explicit = id.clone();
        let end = events[index..]
            .iter()
            .position(|event| matches!(event, Event::End(TagEnd::Heading(_))))
            .map_or(events.len(), |offset| index + offset);
        let title = heading_text(&events[index + 1..end]);
        let id = match explicit {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => ids.unique(&slugify(&title)),
        };
        events[index] = Event::Start(Tag::Heading {
            level,
            id: Some(CowStr::from(id.clone())),
            classes: Vec::new(),
            attrs: Vec::new(),
        });
        toc.push(TocEntry { level: level_number(level), title, id: prefixed(&id) });
        index = end;
    }
    for event in &mut events {
        if let Event::Start(Tag::Link { dest_url, .. }) = event {
            if let Some(fragment) = dest_url.strip_prefix('#').filter(|f| !f.is_empty()) {
                *dest_url = CowStr::from(format!("#{}", prefixed(fragment)));
            }
        }
    }
    (events, toc)
}

/// The plain text of a heading's inner events, whitespace collapsed.
fn heading_text(events: &[Event<'_>]) -> String {
    let mut text = String::new();
    let mut skip_depth = 0usize;
    for event in events {
        match event {
            Event::Text(t) | Event::Code(t) if skip_depth == 0 => text.push_str(t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::InlineHtml(tag) => skip_depth = super::plain::raw_text_depth(tag, skip_depth),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// GitHub-style slug: lower case, Unicode letters, digits, `-` and `_` kept, each space turned
/// into `-`, everything else dropped; [`EMPTY_SLUG`] when nothing is left.
pub(super) fn slugify(title: &str) -> String {
    let mut slug = String::with_capacity(title.len());
    for c in title.trim().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            slug.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            slug.push('-');
        }
    }
    if slug.is_empty() {
        EMPTY_SLUG.to_owned()
    } else {
        slug
    }
}

/// The ids taken so far, and per slug the next suffix to try (so that many equal headings stay
/// linear).
#[derive(Default)]
struct Ids {
    used: HashSet<String>,
    next_suffix: HashMap<String, usize>,
}

impl Ids {
    /// Returns `base`, or `base-1`, `base-2`, ... (the first one not yet used), and marks it used.
    fn unique(&mut self, base: &str) -> String {
        let mut suffix = self.next_suffix.get(base).copied().unwrap_or(0);
        loop {
            let candidate = if suffix == 0 { base.to_owned() } else { format!("{base}-{suffix}") };
            suffix += 1;
            if self.used.insert(candidate.clone()) {
                self.next_suffix.insert(base.to_owned(), suffix);
                return candidate;
            }
        }
    }
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_lowercases_and_turns_spaces_into_hyphens() {
        assert_eq!(slugify("Hello World"), "hello-world");
    }

    #[test]
    fn slug_drops_punctuation_but_keeps_hyphen_and_underscore() {
        assert_eq!(slugify("What's new in v2.0? (beta)"), "whats-new-in-v20-beta");
        assert_eq!(slugify("snake_case and kebab-case"), "snake_case-and-kebab-case");
    }

    #[test]
    fn slug_keeps_unicode_letters_and_digits() {
        assert_eq!(slugify("Überblick 2024"), "überblick-2024");
        assert_eq!(slugify("安装 指南"), "安装-指南");
    }

    #[test]
    fn slug_of_punctuation_only_is_section() {
        assert_eq!(slugify("?!..."), "section");
        assert_eq!(slugify(""), "section");
    }

    #[test]
    fn unique_appends_numeric_suffixes() {
        let mut ids = Ids::default();
        assert_eq!(ids.unique("a"), "a");
        assert_eq!(ids.unique("a"), "a-1");
        assert_eq!(ids.unique("a-1"), "a-1-1");
        assert_eq!(ids.unique("a"), "a-2");
    }

    #[test]
    fn many_equal_headings_stay_fast() {
        let mut ids = Ids::default();
        for _ in 0..100_000 {
            ids.unique("h");
        }
        assert_eq!(ids.unique("h"), "h-100000");
    }
}
