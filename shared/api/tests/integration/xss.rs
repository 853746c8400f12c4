//! An independent checker of the sanitised HTML the content pipeline emits, shared by the XSS
//! corpus (`content_xss.rs`) and the property tests (`content_props.rs`).
//!
//! The output is checked structurally: a strict tokenizer for the serialiser's output shape
//! (every `<` in text is escaped, attribute values are double-quoted) lists every element and
//! attribute, and each must be on the allow-list; URL-bearing values must not carry a scheme
//! other than `http`, `https` or `mailto` once entities, whitespace and control characters are
//! removed. Any deviation from the expected shape is a violation too.

/// Elements the sanitiser may emit.
const ALLOWED_ELEMENTS: &[&str] = &[
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

/// Elements that must never appear, listed for readable failures (all are off the allow-list).
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "iframe", "frame", "object", "embed", "style", "svg", "math", "form", "meta", "base",
    "link", "body", "details", "select", "textarea", "button", "video", "audio", "source",
    "applet", "template", "noscript", "xmp", "marquee", "isindex", "bgsound",
];

/// Attributes the sanitiser may emit.
const ALLOWED_ATTRIBUTES: &[&str] = &[
    "id", "href", "title", "src", "alt", "start", "class", "checked", "type", "disabled", "align",
    "rel",
];

const SAFE_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// One start or end tag of the sanitised output.
struct TagToken {
    name: String,
    attributes: Vec<(String, String)>,
}

/// Tokenizes sanitiser output strictly; `Err` when it has an unexpected shape.
fn tags(html: &str) -> Result<Vec<TagToken>, String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        if rest[..open].contains('>') {
            return Err(format!("unescaped '>' in text before {:?}", &rest[open..]));
        }
        rest = &rest[open + 1..];
        rest = rest.strip_prefix('/').unwrap_or(rest);
        let name_len = rest.find(|c: char| !c.is_ascii_alphanumeric()).ok_or("unterminated tag")?;
        if name_len == 0 {
            return Err(format!("'<' not starting a tag: {rest:?}"));
        }
        let name = rest[..name_len].to_ascii_lowercase();
        rest = &rest[name_len..];
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start_matches(' ');
            if let Some(after) = rest.strip_prefix('>') {
                rest = after;
                break;
            }
            let attr_len = rest.find(['=', ' ', '>']).ok_or("unterminated attribute")?;
            let attr = rest[..attr_len].to_ascii_lowercase();
            rest = &rest[attr_len..];
            let value = match rest.strip_prefix("=\"") {
                Some(after) => {
                    let end = after.find('"').ok_or("unterminated attribute value")?;
                    rest = &after[end + 1..];
                    decode(&after[..end])
                }
                None if rest.starts_with('=') => return Err(format!("unquoted value: {rest:?}")),
                None => String::new(),
            };
            attributes.push((attr, value));
        }
        found.push(TagToken { name, attributes });
    }
    if rest.contains('>') {
        return Err("unescaped '>' in trailing text".into());
    }
    Ok(found)
}

/// Decodes the entities the serialiser writes in attribute values (and numeric ones, to be safe).
fn decode(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest.find(';').unwrap_or(0);
        let entity = &rest[..=end];
        let decoded = match entity {
            "&amp;" => Some('&'),
            "&quot;" => Some('"'),
            "&lt;" => Some('<'),
            "&gt;" => Some('>'),
            "&nbsp;" => Some('\u{a0}'),
            _ => entity
                .strip_prefix("&#x")
                .or_else(|| entity.strip_prefix("&#X"))
                .and_then(|hex| u32::from_str_radix(hex.trim_end_matches(';'), 16).ok())
                .or_else(|| {
                    entity.strip_prefix("&#").and_then(|dec| dec.trim_end_matches(';').parse().ok())
                })
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) if end > 0 => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The scheme a browser would see in `url`, lower case, if it has one.
fn scheme(url: &str) -> Option<String> {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    let colon = cleaned.find(':')?;
    let candidate = &cleaned[..colon];
    let is_scheme = candidate.starts_with(|c: char| c.is_ascii_alphabetic())
        && candidate.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    is_scheme.then(|| candidate.to_owned())
}

/// Every reason `html` is unsafe; empty when it is clean.
pub fn violations(html: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let lower = html.to_ascii_lowercase();
    for needle in ["<script", "<iframe", "<svg", "<math", "<style", "<object", "<embed", "<form"] {
        if lower.contains(needle) {
            problems.push(format!("contains {needle}"));
        }
    }
    let tokens = match tags(html) {
        Ok(tokens) => tokens,
        Err(shape) => {
            problems.push(format!("unexpected output shape: {shape}"));
            return problems;
        }
    };
    for tag in tokens {
        if FORBIDDEN_ELEMENTS.contains(&tag.name.as_str()) {
            problems.push(format!("forbidden element <{}>", tag.name));
        } else if !ALLOWED_ELEMENTS.contains(&tag.name.as_str()) {
            problems.push(format!("element <{}> not on the allow-list", tag.name));
        }
        for (attribute, value) in &tag.attributes {
            if attribute.starts_with("on") {
                problems.push(format!("event handler {attribute} on <{}>", tag.name));
            }
            if attribute == "style" {
                problems.push(format!("style attribute on <{}>", tag.name));
            }
            if !ALLOWED_ATTRIBUTES.contains(&attribute.as_str()) {
                problems.push(format!("attribute {attribute} on <{}>", tag.name));
            }
            if attribute == "class"
                && !value.split(' ').all(|c| {
                    c.strip_prefix("language-").is_some_and(|l| {
                        !l.is_empty()
                            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b"_+-".contains(&b))
                    }) || c.starts_with("markdown-alert-")
                })
            {
                problems.push(format!("class {value:?} on <{}>", tag.name));
            }
            if let Some(scheme) = scheme(value) {
                let url_attribute = matches!(attribute.as_str(), "href" | "src");
                if url_attribute && !SAFE_SCHEMES.contains(&scheme.as_str()) {
                    problems.push(format!("{attribute}={value:?} has scheme {scheme}"));
                }
                if ["javascript", "vbscript", "data"].contains(&scheme.as_str()) {
                    problems.push(format!("{attribute}={value:?} is a {scheme}: URL"));
                }
            }
        }
    }
    problems
}
