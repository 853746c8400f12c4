//! Validators (RFC 9110 §8.8) and the `If-None-Match` precondition (§13.1.2).

use axum::http::{header::GetAll, HeaderValue};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use sha2::{Digest, Sha256};

/// Bytes of the SHA-256 digest an entity tag keeps: 128 bits, 22 base64url characters.
const TAG_BYTES: usize = 16;

/// The strong entity tag of `body`: the first 128 bits of its SHA-256, base64url, quoted.
/// Two bodies share it only if they are the same bytes (a collision of a truncated
/// cryptographic hash aside), so it is a strong validator.
pub fn entity_tag(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let tag = format!("\"{}\"", URL_SAFE_NO_PAD.encode(&digest[..TAG_BYTES]));
    HeaderValue::from_str(&tag).expect("base64url between quotes is a valid header value")
}

/// A weak entity tag (`W/"…"`) from `bytes`: for an answer whose body also holds something
/// that changes without the content changing (the comment envelope's `timestamp`), tagged from
/// the content alone. Weak tags match under `If-None-Match`'s weak comparison.
pub fn weak_entity_tag(bytes: &[u8]) -> HeaderValue {
    let strong = entity_tag(bytes);
    let weak = format!("W/{}", strong.to_str().expect("ASCII"));
    HeaderValue::from_str(&weak).expect("a valid header value")
}

/// An `If-None-Match` precondition.
#[derive(Debug, PartialEq, Eq)]
pub enum IfNoneMatch {
    /// `*`: any current representation.
    Any,
    /// The opaque tags of the listed entity tags, weak or strong (`W/` dropped, quotes kept).
    Tags(Vec<String>),
}

impl IfNoneMatch {
    /// The precondition of every `If-None-Match` field of a request (repeated fields form one
    /// list); `None` without one, or when a field is not a valid list (the precondition is
    /// then ignored: the answer is the full one, never an error).
    pub fn parse(fields: GetAll<'_, HeaderValue>) -> Option<Self> {
        let mut tags = Vec::new();
        let mut any = false;
        let mut seen = false;
        for field in fields {
            seen = true;
            let text = field.to_str().ok()?;
            if text.trim() == "*" {
                any = true;
                continue;
            }
            tags.extend(entity_tags(text)?);
        }
        match (seen, any) {
            (false, _) => None,
            // `*` is a field on its own (RFC 9110: `"*" / #entity-tag`); with tags beside it
            // the request still asks for "any".
            (true, true) => Some(IfNoneMatch::Any),
            (true, false) => Some(IfNoneMatch::Tags(tags)),
        }
    }

    /// Whether the precondition fails for a representation whose entity tag is `current`:
    /// `*`, or a listed tag equal to it under the weak comparison (§8.8.3.2: the opaque
    /// tags are equal, whether either is weak). A failed `If-None-Match` on a GET or HEAD
    /// answers 304 Not Modified.
    pub fn matches(&self, current: &HeaderValue) -> bool {
        let Ok(current) = current.to_str() else { return false };
        let current = current.strip_prefix("W/").unwrap_or(current);
        match self {
            IfNoneMatch::Any => true,
            IfNoneMatch::Tags(tags) => tags.iter().any(|tag| tag == current),
        }
    }
}

/// The opaque tags of a comma-separated list of entity tags (empty elements allowed, as in
/// every `#rule` list); `None` when an element is not an entity tag.
fn entity_tags(text: &str) -> Option<Vec<String>> {
    let mut tags = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            return Some(tags);
        }
        let opaque = rest.strip_prefix("W/").unwrap_or(rest);
        let inner = opaque.strip_prefix('"')?;
        // etagc: %x21 / %x23-7E (obs-text never reaches here: the field is visible ASCII); a
        // comma is a valid character inside the quotes.
        let end = inner.find('"')?;
        if !inner[..end].bytes().all(|b| b == 0x21 || (0x23..=0x7e).contains(&b)) {
            return None;
        }
        tags.push(opaque[..end + 2].to_string());
        rest = inner[end + 1..].trim_start_matches([' ', '\t']);
        if !(rest.is_empty() || rest.starts_with(',')) {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{header::IF_NONE_MATCH, HeaderMap};

    use super::*;

    fn parse(fields: &[&str]) -> Option<IfNoneMatch> {
        let mut headers = HeaderMap::new();
        for field in fields {
            headers.append(IF_NONE_MATCH, HeaderValue::from_str(field).unwrap());
        }
        IfNoneMatch::parse(headers.get_all(IF_NONE_MATCH))
    }

    fn tag(text: &str) -> HeaderValue {
        HeaderValue::from_str(text).unwrap()
    }

    #[test]
    fn the_entity_tag_is_a_quoted_base64url_digest_of_the_body() {
        let one = entity_tag(b"{\"code\":200}");
        assert_eq!(one, entity_tag(b"{\"code\":200}"), "the same bytes, the same tag");
        assert_ne!(one, entity_tag(b"{\"code\":201}"));
        let text = one.to_str().unwrap();
        assert_eq!(text.len(), 24, "{text}");
        assert!(text.starts_with('"') && text.ends_with('"'));
        let inner = &text[1..23];
        assert!(inner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        // SHA-256 of the empty string starts e3b0c442 98fc1c14 9afbf4c8 996fb924.
        assert_eq!(entity_tag(b""), "\"47DEQpj8HBSa-_TImW-5JA\"");
    }

    #[test]
    fn a_weak_tag_is_the_strong_one_marked_weak() {
        let weak = entity_tag(b"data");
        assert_eq!(weak_entity_tag(b"data"), format!("W/{}", weak.to_str().unwrap()).as_str());
        let condition = parse(&[weak.to_str().unwrap()]).unwrap();
        assert!(condition.matches(&weak_entity_tag(b"data")), "weak comparison");
    }

    #[test]
    fn no_field_is_no_precondition() {
        assert_eq!(parse(&[]), None);
    }

    #[test]
    fn a_list_of_tags_matches_any_of_them_weakly() {
        let condition = parse(&["\"a\", W/\"b\" ,\"c\""]).unwrap();
        assert_eq!(
            condition,
            IfNoneMatch::Tags(vec!["\"a\"".into(), "\"b\"".into(), "\"c\"".into()])
        );
        assert!(condition.matches(&tag("\"a\"")));
        assert!(condition.matches(&tag("\"b\"")), "a weak tag matches its strong twin");
        assert!(condition.matches(&tag("W/\"c\"")));
        assert!(!condition.matches(&tag("\"d\"")));
        assert!(!condition.matches(&tag("\"A\"")), "opaque tags compare byte for byte");
    }

    #[test]
    fn repeated_fields_form_one_list() {
        let condition = parse(&["\"a\"", "\"b\""]).unwrap();
        assert!(condition.matches(&tag("\"b\"")));
    }

    #[test]
    fn a_star_matches_every_representation() {
        assert_eq!(parse(&["*"]), Some(IfNoneMatch::Any));
        assert_eq!(parse(&[" * "]), Some(IfNoneMatch::Any));
        assert!(parse(&["*"]).unwrap().matches(&tag("\"anything\"")));
    }

    #[test]
    fn commas_inside_quotes_belong_to_the_tag() {
        let condition = parse(&["\"a,b\", \"c\""]).unwrap();
        assert!(condition.matches(&tag("\"a,b\"")));
        assert!(!condition.matches(&tag("\"a\"")));
    }

    #[test]
    fn empty_list_elements_are_allowed() {
        assert_eq!(parse(&[", \"a\",,"]), Some(IfNoneMatch::Tags(vec!["\"a\"".into()])));
        assert_eq!(parse(&[""]), Some(IfNoneMatch::Tags(vec![])));
        assert!(!parse(&[""]).unwrap().matches(&tag("\"a\"")));
    }

    #[test]
    fn a_malformed_field_is_ignored_as_a_whole() {
        for field in ["a", "\"a", "\"a\" \"b\"", "W/a", "\"a\"x", "**", "\"a b\"", "w/\"a\""] {
            assert_eq!(parse(&[field]), None, "{field}");
        }
        assert_eq!(parse(&["\"a\"", "bad"]), None, "one bad field spoils the list");
    }
}
