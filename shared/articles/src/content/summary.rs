//! The automatic summary: the plain text, whitespace collapsed, cut at a sentence or word
//! boundary.

/// Characters that end a sentence. The ASCII ones count only when followed by whitespace (so
/// `3.14` or `example.com` are not sentence ends); the full-width ones always count.
const ASCII_SENTENCE_ENDS: [char; 3] = ['.', '!', '?'];
const WIDE_SENTENCE_ENDS: [char; 3] = ['。', '！', '？'];

/// Appended when the text is cut inside a sentence.
const ELLIPSIS: char = '…';

/// Collapses whitespace in `plain_text` and shortens it to at most `max_chars` characters
/// (Unicode scalar values, never bytes).
///
/// Text that fits is returned whole. Otherwise it is cut after the last sentence end within the
/// limit if that keeps at least half the limit; else at the last word boundary, followed by `…`
/// (the total stays within the limit); text without a usable word boundary (such as CJK without
/// spaces) is cut at `max_chars - 1` characters followed by `…`.
pub fn summarize(plain_text: &str, max_chars: usize) -> String {
    let collapsed = plain_text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<char> = collapsed.chars().collect();
    if chars.len() <= max_chars {
        return collapsed;
    }
    if max_chars == 0 {
        return String::new();
    }

    if let Some(end) = last_sentence_end(&chars, max_chars) {
        if end * 2 >= max_chars {
            return chars[..end].iter().collect();
        }
    }

    let room = max_chars - 1; // one character is kept for the ellipsis
    let word_cut = (1..=room).rev().find(|&i| chars[i] == ' ');
    let cut = match word_cut {
        Some(i) if i * 2 >= room => i,
        _ => room,
    };
    let mut summary: String = chars[..cut].iter().collect();
    let trimmed = summary.trim_end_matches([' ', ',', ';', ':', '-', '–', '—']).len();
    summary.truncate(trimmed);
    summary.push(ELLIPSIS);
    summary
}

/// Length (in chars) of the longest prefix of at most `limit` chars ending with a sentence end.
fn last_sentence_end(chars: &[char], limit: usize) -> Option<usize> {
    (1..=limit.min(chars.len())).rev().find(|&len| {
        let last = chars[len - 1];
        WIDE_SENTENCE_ENDS.contains(&last)
            || (ASCII_SENTENCE_ENDS.contains(&last) && chars.get(len).is_none_or(|&c| c == ' '))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_returned_with_whitespace_collapsed() {
        assert_eq!(summarize("  Hello \n\n  world\t! ", 200), "Hello world !");
        assert_eq!(summarize("", 200), "");
    }

    #[test]
    fn text_of_exactly_the_limit_is_not_cut() {
        let text = "a".repeat(200);
        assert_eq!(summarize(&text, 200), text);
    }

    #[test]
    fn long_text_is_cut_after_the_last_sentence_within_the_limit() {
        let text = "First sentence here. Second sentence is a bit longer! Third one goes past it.";
        assert_eq!(summarize(text, 60), "First sentence here. Second sentence is a bit longer!");
    }

    #[test]
    fn a_dot_inside_a_word_is_not_a_sentence_end() {
        let text = "Version 3.14 of example.com ships today with many things";
        let summary = summarize(text, 30);
        assert_eq!(summary, "Version 3.14 of example.com…");
    }

    #[test]
    fn a_sentence_end_too_early_gives_way_to_a_word_cut_with_ellipsis() {
        let text = "Hi. This is a rather long sentence that keeps going without any stop at all";
        let summary = summarize(text, 40);
        assert_eq!(summary, "Hi. This is a rather long sentence that…");
        assert!(summary.chars().count() <= 40);
    }

    #[test]
    fn word_cut_never_splits_a_word() {
        let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda";
        let summary = summarize(text, 20);
        assert_eq!(summary, "alpha beta gamma…");
    }

    #[test]
    fn cjk_text_without_spaces_is_cut_at_the_limit_with_ellipsis() {
        let text = "这是一段没有空格也没有句号的很长的中文文本用于测试摘要的截断行为是否正确";
        let summary = summarize(text, 10);
        assert_eq!(summary, "这是一段没有空格也…");
        assert_eq!(summary.chars().count(), 10);
    }

    #[test]
    fn cjk_text_is_cut_after_an_ideographic_full_stop() {
        let text = "第一句话比较长一些。第二句话也很长并且会超过限制";
        assert_eq!(summarize(text, 15), "第一句话比较长一些。");
    }

    #[test]
    fn the_summary_never_exceeds_the_limit() {
        let text = "word ".repeat(100) + &"长".repeat(300) + "end. ok";
        for max in 0..60 {
            assert!(summarize(&text, max).chars().count() <= max, "max {max}");
        }
    }
}
