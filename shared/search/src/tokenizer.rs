//! The tokenizer shared by indexing, queries and highlights.
//!
//! Text is NFKC-normalised and lower-cased character by character (a character with the
//! combining marks that follow it), so every normalised character still knows the byte range
//! of the original text it came from: highlights mark the original text, not the normalised
//! one. The normalised characters are then split into pieces: words of letters and digits
//! (space-separated scripts), and runs of CJK characters (scripts written without spaces).
//! Indexing turns the pieces into two token streams ([`TokenKind`]): terms (words and CJK
//! characters) and CJK bigrams.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_normalization::char::{
    canonical_combining_class, decompose_compatible, is_combining_mark,
};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Shortest word kept, in characters: single letters and digits are dropped.
pub(crate) const MIN_WORD_CHARS: usize = 2;
/// Longest word kept, in characters: longer words are cut to this length.
pub(crate) const MAX_WORD_CHARS: usize = 40;

/// One character of the normalised text and the byte range of the original it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NormalChar {
    pub ch: char,
    pub start: usize,
    pub end: usize,
}

/// A word of a space-separated script: its normalised text (cut to [`MAX_WORD_CHARS`]) and
/// the byte range of the whole word in the original text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// What the normalised text is split into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// A word of letters and digits, at least [`MIN_WORD_CHARS`] long.
    Word(Word),
    /// A run of consecutive CJK characters (at least one).
    Cjk(&'a [NormalChar]),
}

/// Whether the (normalised) character belongs to a script written without spaces: Han
/// ideographs with their extension and compatibility blocks, kana, Hangul, Bopomofo.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF          // Hangul Jamo
        | 0x2E80..=0x2FDF        // CJK radicals, Kangxi radicals
        | 0x3005..=0x3007        // 々 〆 〇
        | 0x3021..=0x3029        // Hangzhou numerals
        | 0x3040..=0x309F        // Hiragana
        | 0x30A0..=0x30FA        // Katakana (without the middle dot ・)
        | 0x30FC..=0x30FF        // Katakana prolonged sound mark, iteration marks
        | 0x3100..=0x312F        // Bopomofo
        | 0x3130..=0x318F        // Hangul compatibility Jamo
        | 0x31A0..=0x31BF        // Bopomofo extended
        | 0x31F0..=0x31FF        // Katakana phonetic extensions
        | 0x3400..=0x4DBF        // CJK extension A
        | 0x4E00..=0x9FFF        // CJK unified ideographs
        | 0xA960..=0xA97F        // Hangul Jamo extended A
        | 0xAC00..=0xD7FF        // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF        // CJK compatibility ideographs
        | 0xFF66..=0xFF9F        // halfwidth Katakana
        | 0x1B000..=0x1B16F      // Kana supplement and extensions
        | 0x20000..=0x3FFFF      // CJK extensions B-H, compatibility supplement
    )
}

fn is_word_char(c: char) -> bool {
    !is_cjk(c) && (c.is_alphanumeric() || is_combining_mark(c))
}

fn push_lowercase(out: &mut Vec<NormalChar>, c: char, start: usize, end: usize) {
    if c.is_ascii() {
        out.push(NormalChar { ch: c.to_ascii_lowercase(), start, end });
    } else {
        out.extend(c.to_lowercase().map(|ch| NormalChar { ch, start, end }));
    }
}

/// Whether `c` normalises to something that combines with the character before it: a
/// combining mark, or a compatibility form of one (the halfwidth voiced mark `ﾞ`).
fn combines_with_previous(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    if canonical_combining_class(c) != 0 {
        return true;
    }
    let mut first = None;
    decompose_compatible(c, |part| {
        first.get_or_insert(part);
    });
    first.is_some_and(|part| part != c && canonical_combining_class(part) != 0)
}

/// NFKC-normalises and lower-cases `text`, keeping each character's original byte range.
///
/// Normalisation works on segments of one character and the (compatibility forms of) combining
/// marks that follow it, so a composed form (`e` + U+0301 → `é`, `ﾃﾞ` → `デ`) and a
/// compatibility form (`Ｒ` → `r`, `ﬁ` → `fi`) both come out as composed, lower-case characters.
pub(crate) fn normalize(text: &str) -> Vec<NormalChar> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut segment = String::new();
    while let Some((start, first)) = chars.next() {
        let mut end = start + first.len_utf8();
        segment.clear();
        segment.push(first);
        while let Some(&(at, next)) = chars.peek() {
            if !combines_with_previous(next) {
                break;
            }
            segment.push(next);
            end = at + next.len_utf8();
            chars.next();
        }
        if end - start == first.len_utf8()
            && (first.is_ascii() || is_nfkc_quick(std::iter::once(first)) == IsNormalized::Yes)
        {
            push_lowercase(&mut out, first, start, end);
        } else {
            for c in segment.nfkc() {
                push_lowercase(&mut out, c, start, end);
            }
        }
    }
    out
}

/// Splits normalised characters into words and CJK runs; everything else separates them.
pub(crate) fn pieces(chars: &[NormalChar]) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at].ch;
        if is_cjk(c) {
            let run_end = (at..chars.len()).find(|&i| !is_cjk(chars[i].ch)).unwrap_or(chars.len());
            out.push(Piece::Cjk(&chars[at..run_end]));
            at = run_end;
        } else if is_word_char(c) {
            let word_end =
                (at..chars.len()).find(|&i| !is_word_char(chars[i].ch)).unwrap_or(chars.len());
            let word = &chars[at..word_end];
            if word.len() >= MIN_WORD_CHARS {
                out.push(Piece::Word(Word {
                    text: word.iter().take(MAX_WORD_CHARS).map(|c| c.ch).collect(),
                    start: word[0].start,
                    end: word[word.len() - 1].end,
                }));
            }
            at = word_end;
        } else {
            at += 1;
        }
    }
    out
}

/// The two token streams a text is indexed as, each in its own field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// Words, and every character of a CJK run: matched as terms, so their field keeps no
    /// positions (most of an index's size would be positions otherwise).
    Terms,
    /// The overlapping bigrams of CJK runs, each at the position of its first character, so a
    /// run of three characters or more is found as a phrase of consecutive bigrams. A run's
    /// last character starts no bigram, which leaves a gap: no phrase spans two runs.
    Bigrams,
}

impl TokenKind {
    /// The name the tokenizer is registered under on the index.
    pub(crate) fn tokenizer_name(self) -> &'static str {
        match self {
            TokenKind::Terms => "blog_terms",
            TokenKind::Bigrams => "blog_cjk_bigrams",
        }
    }
}

/// The tokens of one kind that a text is indexed under, with their positions and the byte
/// ranges of the original text they come from.
pub(crate) fn tokens(text: &str, kind: TokenKind) -> Vec<Token> {
    let chars = normalize(text);
    let mut tokens = Vec::new();
    let mut position = 0;
    for piece in pieces(&chars) {
        match (piece, kind) {
            (Piece::Word(word), TokenKind::Terms) => {
                tokens.push(token(word.text, word.start, word.end, position));
                position += 1;
            }
            (Piece::Word(_), TokenKind::Bigrams) => position += 1,
            (Piece::Cjk(run), TokenKind::Terms) => {
                for (i, c) in run.iter().enumerate() {
                    tokens.push(token(c.ch.to_string(), c.start, c.end, position + i));
                }
                position += run.len();
            }
            (Piece::Cjk(run), TokenKind::Bigrams) => {
                for (i, pair) in run.windows(2).enumerate() {
                    let bigram = [pair[0].ch, pair[1].ch].iter().collect();
                    tokens.push(token(bigram, pair[0].start, pair[1].end, position + i));
                }
                position += run.len();
            }
        }
    }
    tokens
}

fn token(text: String, offset_from: usize, offset_to: usize, position: usize) -> Token {
    Token { offset_from, offset_to, position, text, position_length: 1 }
}

/// The tantivy tokenizer of one [`TokenKind`], registered under its name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlogTokenizer(pub TokenKind);

/// The tokens of one text, handed to tantivy one by one.
pub(crate) struct TokenList {
    remaining: std::vec::IntoIter<Token>,
    current: Token,
}

impl Tokenizer for BlogTokenizer {
    type TokenStream<'a> = TokenList;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> TokenList {
        TokenList { remaining: tokens(text, self.0).into_iter(), current: Token::default() }
    }
}

impl TokenStream for TokenList {
    fn advance(&mut self) -> bool {
        match self.remaining.next() {
            Some(token) => {
                self.current = token;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        tokens(text, TokenKind::Terms).into_iter().map(|t| t.text).collect()
    }

    fn with_positions(text: &str, kind: TokenKind) -> Vec<(String, usize)> {
        tokens(text, kind).into_iter().map(|t| (t.text, t.position)).collect()
    }

    fn owned(expected: &[(&str, usize)]) -> Vec<(String, usize)> {
        expected.iter().map(|(t, p)| (t.to_string(), *p)).collect()
    }

    #[test]
    fn fullwidth_and_upper_case_forms_become_the_plain_lower_case_word() {
        assert_eq!(texts("ＲＵＳＴ Rust rust １２３"), ["rust", "rust", "rust", "123"]);
        assert_eq!(texts("ﬁne Straße"), ["fine", "straße"]);
    }

    #[test]
    fn a_combining_accent_is_composed_and_kept_inside_its_word() {
        assert_eq!(texts("cafe\u{301} café"), ["café", "café"]);
    }

    #[test]
    fn single_letters_are_dropped_and_long_words_are_cut() {
        let long = "x".repeat(60);
        let found = texts(&format!("a C++ guide {long}"));
        assert_eq!(found, ["guide".to_string(), "x".repeat(MAX_WORD_CHARS)]);
    }

    #[test]
    fn a_cjk_run_gives_every_character_and_every_bigram_at_its_position() {
        let text = "java 安全管理，好";
        assert_eq!(
            with_positions(text, TokenKind::Terms),
            owned(&[("java", 0), ("安", 1), ("全", 2), ("管", 3), ("理", 4), ("好", 5)])
        );
        assert_eq!(
            with_positions(text, TokenKind::Bigrams),
            owned(&[("安全", 1), ("全管", 2), ("管理", 3)])
        );
    }

    #[test]
    fn bigrams_of_two_runs_are_never_consecutive() {
        let bigrams = with_positions("安全。管理", TokenKind::Bigrams);
        assert_eq!(bigrams, owned(&[("安全", 0), ("管理", 2)]));
    }

    #[test]
    fn offsets_point_into_the_original_text() {
        let text = "Ｒust 安全";
        for token in [tokens(text, TokenKind::Terms), tokens(text, TokenKind::Bigrams)].concat() {
            let original = &text[token.offset_from..token.offset_to];
            assert_eq!(normalize(original).iter().map(|c| c.ch).collect::<String>(), token.text);
        }
    }

    #[test]
    fn halfwidth_katakana_and_hangul_are_cjk_runs() {
        assert_eq!(texts("ｶﾀｶﾅ"), ["カ", "タ", "カ", "ナ"]);
        assert_eq!(texts("한국"), ["한", "국"]);
        assert_eq!(texts("ﾃﾞｰﾀ"), texts("データ"));
    }

    #[test]
    fn the_stream_hands_tantivy_every_token_in_order() {
        let mut tokenizer = BlogTokenizer(TokenKind::Terms);
        let mut stream = tokenizer.token_stream("rust 安全");
        let mut seen = Vec::new();
        while stream.advance() {
            seen.push(stream.token().text.clone());
        }
        assert_eq!(seen, ["rust", "安", "全"]);
    }
}
