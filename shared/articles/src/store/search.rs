//! Search tokens of an article's title and summary, and of a keyword: lower-cased words of
//! letters and digits (at least two characters), and character bigrams inside runs of CJK
//! script, which has no spaces between words. An article is indexed under at most
//! [`MAX_TOKENS`] distinct tokens (title first), which bounds the writes of its transaction.

/// Distinct tokens indexed per article.
pub const MAX_TOKENS: usize = 30;
/// Longest token kept (characters).
const MAX_TOKEN_CHARS: usize = 40;

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn push(tokens: &mut Vec<String>, token: String, limit: usize) {
    if tokens.len() < limit && !tokens.contains(&token) {
        tokens.push(token);
    }
}

fn tokenize_into(text: &str, tokens: &mut Vec<String>, limit: usize) {
    let lower = text.to_lowercase();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, tokens: &mut Vec<String>| {
        if word.chars().count() >= 2 {
            push(tokens, word.chars().take(MAX_TOKEN_CHARS).collect(), limit);
        }
        word.clear();
    };
    let flush_cjk = |cjk: &mut Vec<char>, tokens: &mut Vec<String>| {
        match cjk.len() {
            0 => {}
            1 => push(tokens, cjk[0].to_string(), limit),
            _ => cjk.windows(2).for_each(|pair| push(tokens, pair.iter().collect(), limit)),
        }
        cjk.clear();
    };
    for c in lower.chars() {
        if is_cjk(c) {
            flush_word(&mut word, tokens);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, tokens);
            word.push(c);
        } else {
            flush_word(&mut word, tokens);
            flush_cjk(&mut cjk, tokens);
        }
    }
    flush_word(&mut word, tokens);
    flush_cjk(&mut cjk, tokens);
}

/// The tokens an article is indexed under.
pub fn article_tokens(title: &str, summary: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    tokenize_into(title, &mut tokens, MAX_TOKENS);
    tokenize_into(summary, &mut tokens, MAX_TOKENS);
    tokens
}

/// The tokens a keyword must all match (at most 5).
pub fn keyword_tokens(keyword: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    tokenize_into(keyword, &mut tokens, 5);
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_single_letters_dropped() {
        assert_eq!(
            article_tokens("Rust & WebAssembly: a guide", ""),
            ["rust", "webassembly", "guide"]
        );
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(keyword_tokens("学习Rust语言"), ["学习", "rust", "语言"]);
        assert_eq!(keyword_tokens("爱 Rust"), ["爱", "rust"]);
        assert_eq!(keyword_tokens("编程语言"), ["编程", "程语", "语言"]);
    }

    #[test]
    fn tokens_are_distinct_and_capped() {
        let title = (0..50).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        let tokens = article_tokens(&title, "w1 w2");
        assert_eq!(tokens.len(), MAX_TOKENS);
        assert_eq!(tokens[0], "w0");
        assert_eq!(keyword_tokens("a b c d e f g h").len(), 0);
        assert_eq!(keyword_tokens("one two three four five six").len(), 5);
    }
}
