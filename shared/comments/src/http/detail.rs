//! A report's `detail` as kept: the reporter's words without the characters that could hide
//! or disguise text in an administrator's list.

/// Characters a report's detail loses: control characters (general category Cc; tabs and line
/// breaks become spaces) and the bidirectional controls (the Unicode property Bidi_Control:
/// the marks U+061C, U+200E, U+200F, the embeddings and overrides U+202A-U+202E and the
/// isolates U+2066-U+2069), which could disguise the text an administrator reads.
pub fn cleaned(detail: &str) -> String {
    const BIDI_CONTROL: [char; 12] = [
        '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}',
        '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
    ];
    detail
        .chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' => Some(' '),
            c if c.is_control() || BIDI_CONTROL.contains(&c) => None,
            c => Some(c),
        })
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::cleaned;

    #[test]
    fn a_detail_loses_control_and_bidirectional_characters_and_keeps_the_rest() {
        let tricky = "ok\u{202E}gnp.exe\u{2066}\u{0007} a\nb\u{200F}\u{061C} 👩\u{200D}💻 é";
        assert_eq!(cleaned(tricky), "okgnp.exe a b 👩\u{200D}💻 é");
        assert_eq!(cleaned(" \u{202D}\t"), "");
    }
}
