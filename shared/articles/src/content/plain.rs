//! The plain text of a document: what a reader sees, without markup, for the automatic summary
//! and for search indexing.

use pulldown_cmark::{Event, Tag, TagEnd};

use super::sanitize::{text_of_html, DROPPED_CONTENT};

/// Text and code of the document; blocks end with a newline, table cells are separated by a
/// space. Image alt texts and the content of raw `<script>`/`<style>`-like elements are left out;
/// raw HTML blocks contribute their text content only.
pub(super) fn plain_text(events: &[Event<'_>]) -> String {
    let mut out = String::new();
    let mut raw_depth = 0usize;
    let mut image_depth = 0usize;
    let mut html_block = String::new();
    for event in events {
        match event {
            Event::Text(text) | Event::Code(text) if raw_depth == 0 && image_depth == 0 => {
                out.push_str(text);
            }
            Event::Html(html) => html_block.push_str(html),
            Event::InlineHtml(tag) => raw_depth = raw_text_depth(tag, raw_depth),
            Event::SoftBreak => out.push(' '),
            Event::HardBreak | Event::Rule => separate(&mut out, '\n'),
            Event::Start(Tag::Image { .. }) => image_depth += 1,
            Event::End(TagEnd::Image) => image_depth = image_depth.saturating_sub(1),
            Event::End(TagEnd::HtmlBlock) => {
                out.push_str(text_of_html(&html_block).trim());
                html_block.clear();
                separate(&mut out, '\n');
            }
            Event::Start(tag) => {
                if let Some(separator) = start_separator(tag) {
                    separate(&mut out, separator);
                }
            }
            Event::End(tag) => {
                if let Some(separator) = end_separator(tag) {
                    separate(&mut out, separator);
                }
            }
            _ => {}
        }
    }
    if !html_block.is_empty() {
        out.push_str(&text_of_html(&html_block));
    }
    out.trim().to_owned()
}

/// Tracks whether inline raw HTML opened an element whose content is dropped by the sanitiser
/// (`<script>`, `<style>`, ...): returns the new nesting depth after `tag`.
pub(super) fn raw_text_depth(tag: &str, depth: usize) -> usize {
    let (closing, rest) = match tag.strip_prefix("</") {
        Some(rest) => (true, rest),
        None => match tag.strip_prefix('<') {
            Some(rest) => (false, rest),
            None => return depth,
        },
    };
    let name: String = rest
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !DROPPED_CONTENT.contains(&name.as_str()) || tag.ends_with("/>") {
        depth
    } else if closing {
        depth.saturating_sub(1)
    } else {
        depth + 1
    }
}

/// Ends the current run of text with `separator` unless it already ends with whitespace.
fn separate(out: &mut String, separator: char) {
    let kept = out.trim_end_matches([' ', '\t']).len();
    out.truncate(kept);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push(separator);
    }
}

fn start_separator(tag: &Tag<'_>) -> Option<char> {
    match tag {
        Tag::Emphasis
        | Tag::Strong
        | Tag::Strikethrough
        | Tag::Superscript
        | Tag::Subscript
        | Tag::Link { .. }
        | Tag::Image { .. } => None,
        Tag::TableCell => Some(' '),
        _ => Some('\n'),
    }
}

fn end_separator(tag: &TagEnd) -> Option<char> {
    match tag {
        TagEnd::Emphasis
        | TagEnd::Strong
        | TagEnd::Strikethrough
        | TagEnd::Superscript
        | TagEnd::Subscript
        | TagEnd::Link
        | TagEnd::Image => None,
        TagEnd::TableCell => Some(' '),
        _ => Some('\n'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_depth_counts_script_and_style_only() {
        assert_eq!(raw_text_depth("<script>", 0), 1);
        assert_eq!(raw_text_depth("<SCRIPT type=x>", 0), 1);
        assert_eq!(raw_text_depth("</script>", 1), 0);
        assert_eq!(raw_text_depth("</style>", 0), 0);
        assert_eq!(raw_text_depth("<b>", 0), 0);
        assert_eq!(raw_text_depth("<scriptx>", 0), 0);
    }
}
