//! Nicknames (parse, don't validate): what an account shows as its author name, cleaned of the
//! characters that reorder or break the text around it and refused when nothing of it shows.

use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// The most characters a nickname has (after cleaning).
pub const MAX_CHARS: usize = 30;

/// A nickname as stored: at most [`MAX_CHARS`] characters, no control, line-breaking or
/// bidirectional-control characters, no surrounding whitespace, and at least one character
/// that shows. [`Nickname::parse`] is the only way to make one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nickname(String);

impl Nickname {
    /// Cleans a nickname as typed: control characters (C0, DEL, C1), line and paragraph
    /// separators and the bidirectional controls (embeddings, overrides, isolates, marks) are
    /// removed and surrounding whitespace trimmed. `Ok(None)` for an empty input (no nickname:
    /// the user name shows); an error naming `nickname` when what is left is longer than
    /// [`MAX_CHARS`] or shows nothing (whitespace, zero-width and other format characters,
    /// fillers, combining marks with nothing to combine with).
    pub fn parse(raw: &str) -> Result<Option<Self>, String> {
        if raw.is_empty() {
            return Ok(None);
        }
        let kept: String = raw.chars().filter(|c| !is_removed(*c)).collect();
        let kept = kept.trim();
        if kept.chars().count() > MAX_CHARS {
            return Err(format!("nickname must be at most {MAX_CHARS} characters"));
        }
        if kept.chars().all(is_invisible) {
            return Err("nickname must contain a visible character".into());
        }
        Ok(Some(Self(kept.to_string())))
    }

    /// The nickname a new account gets from its user name (letters, digits, underscores: always
    /// a valid one).
    pub fn of_username(username: &super::model::Username) -> Self {
        Self(username.as_str().to_string())
    }

    /// The cleaned text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The cleaned text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// The characters of Unicode's Bidi_Control property: they reorder the text after them (the
/// overrides and embeddings U+202A-U+202E, the isolates U+2066-U+2069) or change how
/// neighbouring text is ordered (U+200E, U+200F, U+061C).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// What a nickname loses: control characters, line and paragraph separators, bidirectional
/// controls.
fn is_removed(c: char) -> bool {
    c.is_control()
        || matches!(
            c.general_category(),
            GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
        )
        || is_bidi_control(c)
}

/// Characters that show nothing on their own: whitespace, format characters (zero-width
/// spaces and joiners, U+2060, U+FEFF, the soft hyphen, tags...), combining marks (variation
/// selectors and the combining grapheme joiner among them), the Hangul fillers and the blank
/// Braille pattern.
fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || c.general_category() == GeneralCategory::Format
        || c.general_category_group() == GeneralCategoryGroup::Mark
        || matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(raw: &str) -> String {
        Nickname::parse(raw).unwrap().expect("a nickname").into_string()
    }

    #[test]
    fn an_ordinary_nickname_is_kept_as_typed() {
        for name in [
            "Alice",
            "Jean-Luc Picard",
            "李小龙",
            "Zoë",
            "👩\u{200D}💻 dev",
            "e\u{0301}t\u{0301}e\u{0301}",
        ] {
            assert_eq!(cleaned(name), name);
        }
    }

    #[test]
    fn control_and_bidirectional_control_characters_are_removed() {
        assert_eq!(cleaned("Al\u{0007}ice\u{007F}\u{0085}"), "Alice");
        assert_eq!(cleaned("line\nbreak\ttab\r"), "linebreaktab");
        assert_eq!(cleaned("para\u{2028}graph\u{2029}"), "paragraph");
        // "admin" shown reversed by an override, and every other bidirectional control.
        assert_eq!(cleaned("\u{202E}nimda\u{202C}"), "nimda");
        let controls = "\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}";
        assert_eq!(cleaned(&format!("a{controls}b")), "ab");
    }

    #[test]
    fn surrounding_whitespace_is_trimmed() {
        assert_eq!(cleaned("  Bob \u{3000}"), "Bob");
        assert_eq!(cleaned("\u{200E} Bob"), "Bob");
    }

    #[test]
    fn a_nickname_of_invisible_characters_only_is_refused_naming_the_field() {
        let invisible = [
            " ",
            "\u{3000}\u{00A0}",
            "\u{200B}",
            "\u{200C}\u{200D}",
            "\u{2060}",
            "\u{FEFF}",
            "\u{00AD}",
            "\u{0301}\u{0308}",
            "\u{20DD}",
            "\u{FE0F}",
            "\u{034F}",
            "\u{3164}",
            "\u{115F}\u{1160}",
            "\u{FFA0}",
            "\u{2800}",
            "\u{E0041}",
            "\u{202E}\u{0007}",
            "\u{200B} \u{202E}\u{0301}",
        ];
        for raw in invisible {
            let error = Nickname::parse(raw).expect_err(&format!("{raw:?} is refused"));
            assert!(error.contains("nickname"), "{error}");
        }
    }

    #[test]
    fn an_empty_nickname_is_no_nickname() {
        assert_eq!(Nickname::parse(""), Ok(None));
    }

    #[test]
    fn the_length_limit_counts_what_is_kept() {
        let thirty = "n".repeat(MAX_CHARS);
        assert_eq!(cleaned(&format!("\u{202E}{thirty}\u{202C}")), thirty);
        let error = Nickname::parse(&format!("{thirty}x")).unwrap_err();
        assert!(error.contains("nickname") && error.contains("30"), "{error}");
    }

    #[test]
    fn a_user_name_makes_a_nickname() {
        let username = super::super::model::Username::parse("bob_2").unwrap();
        assert_eq!(Nickname::of_username(&username).as_str(), "bob_2");
    }
}
