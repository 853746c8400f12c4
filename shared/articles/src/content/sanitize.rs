//! The XSS filter: an explicit allow-list applied to the rendered HTML with ammonia.
//!
//! Only the elements Markdown produces (plus a few harmless inline ones such as `<b>`) are kept,
//! each with a fixed set of attributes. No event handler, `style`, `class` (other than
//! `language-*` on `<code>` and the GFM alert classes on `<blockquote>`), iframe, object, form,
//! svg or math survives; URLs must be relative or use `http`, `https` or `mailto`; every task
//! list `<input>` becomes a disabled checkbox; links get `rel="noopener noreferrer nofollow"`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::Builder;

/// Elements removed together with their whole content (script, style and the elements whose
/// content is raw text, embedded documents or foreign markup).
pub(super) const DROPPED_CONTENT: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "noscript", "noembed", "noframes",
    "template", "textarea", "title", "xmp", "object", "embed", "applet", "svg", "math",
];

const TAGS: &[&str] = &[
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "b",
    "i",
    "del",
    "s",
    "blockquote",
    "ul",
    "ol",
    "li",
    "code",
    "pre",
    "kbd",
    "a",
    "img",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "input",
    "sup",
    "sub",
];

const URL_SCHEMES: &[&str] = &["http", "https", "mailto"];

const LINK_REL: &str = "noopener noreferrer nofollow";

/// GFM alert classes pulldown-cmark puts on `<blockquote>` (`> [!NOTE]`).
const ALERT_CLASSES: &[&str] = &[
    "markdown-alert-note",
    "markdown-alert-tip",
    "markdown-alert-important",
    "markdown-alert-warning",
    "markdown-alert-caution",
];

/// The allow-list, built once.
static ALLOW_LIST: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut attributes: HashMap<&'static str, HashSet<&'static str>> = HashMap::new();
    for heading in ["h1", "h2", "h3", "h4", "h5", "h6"] {
        attributes.insert(heading, HashSet::from(["id"]));
    }
    attributes.insert("a", HashSet::from(["href", "title"]));
    attributes.insert("img", HashSet::from(["src", "alt", "title"]));
    attributes.insert("ol", HashSet::from(["start"]));
    attributes.insert("code", HashSet::from(["class"]));
    attributes.insert("blockquote", HashSet::from(["class"]));
    attributes.insert("input", HashSet::from(["checked"]));
    attributes.insert("th", HashSet::from(["align"]));
    attributes.insert("td", HashSet::from(["align"]));

    let forced_input = HashMap::from([("type", "checkbox"), ("disabled", "")]);

    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect())
        .clean_content_tags(DROPPED_CONTENT.iter().copied().collect())
        .tag_attributes(attributes)
        .set_tag_attribute_values(HashMap::from([("input", forced_input)]))
        .attribute_filter(filter_attribute)
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .link_rel(Some(LINK_REL))
        .id_prefix(Some(super::headings::ID_PREFIX))
        .strip_comments(true);
    builder
});

/// Elements of the article allow-list a comment may not carry: images and tables.
const NOT_IN_COMMENTS: &[&str] = &["img", "table", "thead", "tbody", "tr", "th", "td"];

/// `rel` of every link in a comment: user-generated content, followed by no crawler.
const COMMENT_LINK_REL: &str = "nofollow ugc noopener noreferrer";

/// The comments' allow-list: the articles' minus images, tables and headings' ids.
static COMMENT_ALLOW_LIST: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut attributes: HashMap<&'static str, HashSet<&'static str>> = HashMap::new();
    attributes.insert("a", HashSet::from(["href", "title"]));
    attributes.insert("ol", HashSet::from(["start"]));
    attributes.insert("code", HashSet::from(["class"]));
    attributes.insert("blockquote", HashSet::from(["class"]));
    attributes.insert("input", HashSet::from(["checked"]));
    let forced_input = HashMap::from([("type", "checkbox"), ("disabled", "")]);
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().filter(|tag| !NOT_IN_COMMENTS.contains(tag)).collect())
        .clean_content_tags(DROPPED_CONTENT.iter().copied().collect())
        .tag_attributes(attributes)
        .set_tag_attribute_values(HashMap::from([("input", forced_input)]))
        .attribute_filter(filter_attribute)
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .link_rel(Some(COMMENT_LINK_REL))
        .strip_comments(true);
    builder
});

/// Strips everything dangerous from a comment's `html`, keeping the comments' allow-list.
pub(super) fn sanitize_comment(html: &str) -> String {
    COMMENT_ALLOW_LIST.clean(html).to_string()
}

/// Strips everything dangerous from `html`, keeping only the allow-listed markup.
pub(super) fn sanitize(html: &str) -> String {
    ALLOW_LIST.clean(&table_alignment_to_attribute(html)).to_string()
}

/// pulldown-cmark writes table column alignment as `style="text-align: ..."`; styles never
/// survive, so the alignment is carried over as the (filtered) `align` attribute instead.
fn table_alignment_to_attribute(html: &str) -> Cow<'_, str> {
    if !html.contains(" style=\"text-align: ") {
        return Cow::Borrowed(html);
    }
    let mut out = html.to_owned();
    for cell in ["th", "td"] {
        for align in ["left", "center", "right"] {
            out = out.replace(
                &format!("<{cell} style=\"text-align: {align}\">"),
                &format!("<{cell} align=\"{align}\">"),
            );
        }
    }
    Cow::Owned(out)
}

/// Schemes no attribute value may carry, even in a text attribute such as `title`.
const SCRIPT_SCHEMES: &[&str] = &["javascript", "vbscript", "data"];

/// Second line of defence after the per-element attribute lists: restricts attribute *values*.
fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    if let Some(scheme) = lenient_scheme(value) {
        let url_attribute = matches!(attribute, "href" | "src");
        if SCRIPT_SCHEMES.contains(&scheme.as_str())
            || (url_attribute && !URL_SCHEMES.contains(&scheme.as_str()))
        {
            return None;
        }
    }
    match (element, attribute) {
        ("code", "class") => keep_classes(value, is_language_class),
        ("blockquote", "class") => keep_classes(value, |class| ALERT_CLASSES.contains(&class)),
        ("th" | "td", "align") => ["left", "center", "right"]
            .contains(&value.trim().to_ascii_lowercase().as_str())
            .then(|| Cow::Owned(value.trim().to_ascii_lowercase())),
        ("ol", "start") => {
            value.trim().parse::<u32>().ok().map(|start| Cow::Owned(start.to_string()))
        }
        _ if attribute.starts_with("on") || attribute == "style" => None,
        _ => Some(Cow::Borrowed(value)),
    }
}

/// The scheme of `value` as the most lenient URL parser would read it: with every whitespace
/// (Unicode's too, such as U+00A0) and control character removed, lower case. Browsers strip
/// only ASCII ones and would see a relative URL in `\u{a0}javascript:…`; the filter does not
/// rely on that.
fn lenient_scheme(value: &str) -> Option<String> {
    let cleaned: String = value
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    let (candidate, _) = cleaned.split_once(':')?;
    let is_scheme = candidate.starts_with(|c: char| c.is_ascii_alphabetic())
        && candidate.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    is_scheme.then(|| candidate.to_owned())
}

/// `language-` followed by ASCII letters, digits, `_`, `+` or `-`.
fn is_language_class(class: &str) -> bool {
    class.strip_prefix("language-").is_some_and(|lang| {
        !lang.is_empty()
            && lang.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
    })
}

fn keep_classes<'u>(value: &'u str, allowed: impl Fn(&str) -> bool) -> Option<Cow<'u, str>> {
    let kept: Vec<&str> = value.split_ascii_whitespace().filter(|c| allowed(c)).collect();
    (!kept.is_empty()).then(|| Cow::Owned(kept.join(" ")))
}

/// The text content of an HTML fragment (for the plain text of raw HTML blocks), with the
/// content of [`DROPPED_CONTENT`] elements left out.
pub(super) fn text_of_html(html: &str) -> String {
    static TEXT_ONLY: LazyLock<Builder<'static>> = LazyLock::new(|| {
        let mut builder = Builder::empty();
        builder.clean_content_tags(DROPPED_CONTENT.iter().copied().collect()).strip_comments(true);
        builder
    });
    // The serialiser escapes exactly these in text nodes.
    TEXT_ONLY
        .clean(html)
        .to_string()
        .replace("&nbsp;", "\u{a0}")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_classes_are_the_only_code_classes_kept() {
        assert!(is_language_class("language-rust"));
        assert!(is_language_class("language-c++"));
        assert!(!is_language_class("language-"));
        assert!(!is_language_class("language-x\"y"));
        assert!(!is_language_class("hljs"));
        assert_eq!(
            sanitize("<pre><code class=\"hljs language-rust evil\">x</code></pre>"),
            "<pre><code class=\"language-rust\">x</code></pre>"
        );
        assert_eq!(sanitize("<code class=\"evil\">x</code>"), "<code>x</code>");
    }

    #[test]
    fn every_input_becomes_a_disabled_checkbox() {
        let html = sanitize("<input type=\"text\" value=\"x\" onfocus=\"alert(1)\" autofocus>");
        assert!(html.contains("type=\"checkbox\""), "{html}");
        assert!(html.contains("disabled"), "{html}");
        assert!(!html.contains("text") && !html.contains("onfocus") && !html.contains("autofocus"));
    }

    #[test]
    fn table_alignment_becomes_an_align_attribute() {
        assert_eq!(
            sanitize("<table><tr><td style=\"text-align: right\">1</td></tr></table>"),
            "<table><tbody><tr><td align=\"right\">1</td></tr></tbody></table>"
        );
    }

    #[test]
    fn links_get_rel_and_lose_dangerous_schemes() {
        assert_eq!(
            sanitize("<a href=\"https://x.test/\">a</a><a href=\"javascript:alert(1)\">b</a>"),
            "<a href=\"https://x.test/\" rel=\"noopener noreferrer nofollow\">a</a>\
             <a rel=\"noopener noreferrer nofollow\">b</a>"
        );
    }

    #[test]
    fn script_schemes_hidden_behind_unicode_whitespace_are_dropped_from_every_attribute() {
        assert_eq!(
            sanitize("<a href=\"\u{a0}javascript:alert(1)\" title=\"vbscript:x\">a</a>"),
            "<a rel=\"noopener noreferrer nofollow\">a</a>"
        );
        assert_eq!(
            sanitize("<img src=\"\u{2003}javascript:x\" alt=\"Note: fine\">"),
            "<img alt=\"Note: fine\">"
        );
        assert_eq!(
            sanitize("<a href=\"/path?a=b:c\" title=\"Re: x\">a</a>"),
            "<a href=\"/path?a=b:c\" title=\"Re: x\" rel=\"noopener noreferrer nofollow\">a</a>"
        );
    }

    #[test]
    fn text_of_html_drops_tags_and_script_content() {
        assert_eq!(
            text_of_html("<div><b>a &amp; b</b><script>alert(1)</script> &lt;tag&gt;</div>"),
            "a & b <tag>"
        );
    }
}
