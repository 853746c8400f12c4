//! Highlights: the parts of a field that match the query's words wrapped in `<mark>`, every
//! other character HTML-escaped, cut to a short fragment around the best cluster of matches.
//!
//! Matching here follows the index: the same normalisation and pieces, a word equal to a query
//! word (or starting with the last one, or one edit from a fuzzy one), and a CJK query run as
//! a contiguous substring of a CJK run, marked whole.

use crate::query::QueryWord;
use crate::tokenizer::{normalize, pieces, Piece};

/// Most characters of a fragment (with its ellipses), for summaries and bodies.
pub const FRAGMENT_CHARS: usize = 160;
/// Characters kept before the first match of a fragment.
const CONTEXT_CHARS: usize = 30;
/// Matches considered when choosing a fragment.
const MAX_SPANS: usize = 512;
const ELLIPSIS: char = '…';

/// A match: byte range of the original text and the index of the query word it matches.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    word: usize,
}

/// The highlighted text (`whole`) or fragment of `text`, `None` when no word matches in it.
pub(crate) fn highlight(text: &str, words: &[QueryWord], whole: bool) -> Option<String> {
    let spans = matches(text, words);
    if spans.is_empty() {
        return None;
    }
    let starts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let total = starts.len();
    let (from, to) = if whole || total <= FRAGMENT_CHARS {
        (0, total)
    } else {
        best_window(&spans, &starts, total)
    };
    let byte = |char_index: usize| starts.get(char_index).copied().unwrap_or(text.len());
    Some(render(text, &merge(&spans), byte(from), byte(to)))
}

fn matches(text: &str, words: &[QueryWord]) -> Vec<Span> {
    let chars = normalize(text);
    let mut spans = Vec::new();
    for piece in pieces(&chars) {
        match piece {
            Piece::Word(found) => {
                for (index, word) in words.iter().enumerate() {
                    let QueryWord::Word { text, prefix, fuzzy } = word else { continue };
                    if found.text == *text
                        || (*prefix && found.text.starts_with(text.as_str()))
                        || (*fuzzy && within_one_edit(&found.text, text))
                    {
                        spans.push(Span { start: found.start, end: found.end, word: index });
                    }
                }
            }
            Piece::Cjk(run) => {
                for (index, word) in words.iter().enumerate() {
                    let QueryWord::Cjk(wanted) = word else { continue };
                    if wanted.len() > run.len() {
                        continue;
                    }
                    for at in 0..=run.len() - wanted.len() {
                        let window = &run[at..at + wanted.len()];
                        if window.iter().zip(wanted).all(|(c, w)| c.ch == *w) {
                            let end = window[window.len() - 1].end;
                            spans.push(Span { start: window[0].start, end, word: index });
                        }
                    }
                }
            }
        }
    }
    spans.sort_unstable_by_key(|span| (span.start, span.end));
    spans
}

/// Whether `a` and `b` are at most one insertion, deletion, substitution or transposition of
/// two neighbours apart (what tantivy's distance-1 automaton with transpositions accepts).
pub(crate) fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let Some(first) = short.iter().zip(long.iter()).position(|(x, y)| x != y) else {
        return true;
    };
    if short.len() < long.len() {
        return short[first..] == long[first + 1..];
    }
    short[first + 1..] == long[first + 1..]
        || (first + 1 < short.len()
            && short[first] == long[first + 1]
            && short[first + 1] == long[first]
            && short[first + 2..] == long[first + 2..])
}

/// The window of characters, at most [`FRAGMENT_CHARS`] with its ellipses, holding the most
/// distinct query words (the earliest such window), starting a little before its first match.
fn best_window(spans: &[Span], starts: &[usize], total: usize) -> (usize, usize) {
    let length = FRAGMENT_CHARS - 2;
    let char_of = |byte: usize| starts.partition_point(|&at| at < byte);
    let in_chars: Vec<(usize, usize, usize)> = spans[..spans.len().min(MAX_SPANS)]
        .iter()
        .map(|span| (char_of(span.start), char_of(span.end), span.word))
        .collect();
    let mut best = (0, 0u32);
    for &(anchor, _, _) in &in_chars {
        let from = anchor.saturating_sub(CONTEXT_CHARS).min(total - length);
        let to = from + length;
        let words = in_chars
            .iter()
            .filter(|(start, end, _)| *start >= from && *end <= to)
            .fold(0u64, |seen, (_, _, word)| seen | 1 << (word % 64))
            .count_ones();
        if words > best.1 {
            best = (from, words);
        }
    }
    (best.0, best.0 + length)
}

/// Overlapping or touching spans joined into one marked range.
fn merge(spans: &[Span]) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for span in spans {
        match ranges.last_mut() {
            Some(last) if span.start <= last.1 => last.1 = last.1.max(span.end),
            _ => ranges.push((span.start, span.end)),
        }
    }
    ranges
}

fn render(text: &str, ranges: &[(usize, usize)], from: usize, to: usize) -> String {
    let mut out = String::with_capacity(to - from + 32);
    if from > 0 {
        out.push(ELLIPSIS);
    }
    let mut at = from;
    for &(start, end) in ranges {
        let (start, end) = (start.max(from), end.min(to));
        if start >= end {
            continue;
        }
        escape_into(&mut out, &text[at..start]);
        out.push_str("<mark>");
        escape_into(&mut out, &text[start..end]);
        out.push_str("</mark>");
        at = end;
    }
    escape_into(&mut out, &text[at..to]);
    if to < text.len() {
        out.push(ELLIPSIS);
    }
    out
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::query_words;

    fn marked(text: &str, query: &str, whole: bool) -> Option<String> {
        highlight(text, &query_words(query), whole)
    }

    #[test]
    fn one_edit_covers_substitution_insertion_deletion_and_transposition() {
        assert!(within_one_edit("tantivy", "tantivu"));
        assert!(within_one_edit("tantivy", "tantivyy"));
        assert!(within_one_edit("tantivy", "tantiy"));
        assert!(within_one_edit("tantivy", "tantviy"));
        assert!(!within_one_edit("tantivy", "tanitvu"));
        assert!(!within_one_edit("tantivy", "tantivyyy"));
    }

    #[test]
    fn a_cjk_match_is_marked_as_the_whole_substring() {
        let found = marked("java 安全管理器", "安全", true);
        assert_eq!(found.as_deref(), Some("java <mark>安全</mark>管理器"));
    }

    #[test]
    fn a_long_text_is_cut_around_its_matches_with_ellipses() {
        let text = format!("{} needle {}", "hay ".repeat(100), "straw ".repeat(100));
        let found = marked(&text, "needle", false).unwrap();
        assert!(found.starts_with('…') && found.ends_with('…'), "{found}");
        assert!(found.contains("<mark>needle</mark>"));
        assert!(found.replace("<mark>", "").replace("</mark>", "").chars().count() <= 160);
    }

    #[test]
    fn the_fragment_holds_the_cluster_with_most_distinct_words() {
        let text = format!("rust {} rust tantivy {}", "filler ".repeat(60), "filler ".repeat(60));
        let found = marked(&text, "rust tantivy", false).unwrap();
        assert!(found.contains("<mark>tantivy</mark>"), "{found}");
    }

    #[test]
    fn no_match_is_none() {
        assert_eq!(marked("nothing here", "rust", true), None);
    }
}
