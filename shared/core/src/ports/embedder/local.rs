//! [`Embedder`] that needs no network and no model: feature hashing of the text's n-grams.
//!
//! The text is lower-cased and split into words (Unicode letters and digits; anything else,
//! apostrophes included, separates words). One-character words and about 300 English stop words
//! (function words and topic-neutral ones such as "first", "make" or "week") are dropped, and
//! English words lose their plural, `-ing` and `-ed` endings ("tomatoes" is "tomato"). Three kinds of features
//! come out of what remains:
//!
//! - words, and in CJK scripts (written without spaces) pairs of adjacent characters;
//! - pairs of consecutive words;
//! - character 4-grams of each word padded with `<` and `>` (so that "telescope" and
//!   "telescopic" share most of theirs), and in CJK scripts single characters.
//!
//! Each feature weighs `1 + ln(tf)` (sublinear term frequency) and goes into one of `dimensions`
//! buckets, with a sign, both from a fixed 64-bit hash (FNV-1a, then MurmurHash3's finaliser):
//! deterministic across runs, builds and platforms. Each kind fills its own block, normalised,
//! then weighted by [`SHARES`] so that every kind keeps its share of the similarity whatever the
//! text's length; the sum is L2-normalised. There is no inverse document frequency (it needs a
//! corpus): the stop words stand in for it.
//!
//! Hashing costs precision: two texts with nothing in common come out about `1/sqrt(dimensions)`
//! (one standard deviation) from orthogonal, ±0.06 at 256 dimensions, ±0.03 at 1024. Short texts
//! with few words in common need the higher dimensions to rank reliably.
//!
//! Any change to the above changes the vectors: bump [`MODEL_ID`] with it.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::{normalize, Embedder};

/// Model id of the vectors of this embedder.
pub const MODEL_ID: &str = "local-hashed-ngrams-v1";
/// Dimensions of [`LocalEmbedder::default`].
pub const DEFAULT_DIMENSIONS: usize = 256;
/// Share of the squared norm of each feature kind: words, word pairs, character n-grams. Cosine
/// similarity comes out as roughly the same mix of the per-kind similarities.
pub const SHARES: [f64; 3] = [0.5, 0.1, 0.4];

const WORD: usize = 0;
const WORD_PAIR: usize = 1;
const CHAR_GRAM: usize = 2;

/// English words too common to say anything about a topic, as written (before stemming).
/// Sorted (binary search).
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "able", "about", "above", "across", "actually", "after", "again", "against", "ago", "all",
    "almost", "along", "already", "also", "although", "always", "am", "among", "an", "and",
    "another", "any", "anyone", "anything", "are", "aren", "around", "as", "at", "away", "back",
    "be", "became", "because", "become", "becomes", "been", "before", "behind", "being", "below",
    "best", "better", "between", "beyond", "big", "both", "but", "by", "can", "cannot", "could",
    "day", "days", "did", "didn", "do", "does", "doesn", "doing", "don", "done", "down", "during",
    "each", "easily", "eight", "either", "else", "end", "enough", "etc", "even", "ever", "every",
    "everyone", "everything", "few", "fifth", "first", "five", "for", "four", "from", "further",
    "get", "gets", "getting", "give", "given", "gives", "go", "goes", "going", "gone", "good",
    "got", "great", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
    "himself", "his", "how", "however", "hundred", "hundreds", "if", "in", "instead", "into", "is",
    "isn", "it", "its", "itself", "just", "keep", "keeps", "kind", "last", "least", "less", "let",
    "lets", "like", "little", "ll", "long", "lot", "lots", "made", "make", "makes", "making",
    "many", "may", "maybe", "me", "might", "million", "month", "months", "more", "most", "mostly",
    "much", "must", "my", "myself", "need", "needs", "never", "new", "next", "nine", "no", "none",
    "nor", "not", "nothing", "now", "of", "off", "often", "on", "once", "one", "ones", "only",
    "onto", "or", "other", "others", "our", "ours", "ourselves", "out", "over", "own", "part",
    "per", "perhaps", "quite", "rather", "re", "really", "roughly", "said", "same", "say", "says",
    "second", "see", "seen", "seven", "several", "she", "should", "simply", "since", "six", "so",
    "some", "someone", "something", "sometimes", "soon", "still", "such", "sure", "take", "takes",
    "ten", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
    "these", "they", "thing", "things", "third", "this", "those", "though", "three", "through",
    "thus", "time", "times", "to", "together", "too", "took", "toward", "towards", "two", "under",
    "unless", "until", "up", "upon", "us", "use", "used", "uses", "using", "usually", "ve", "very",
    "via", "want", "wants", "was", "wasn", "way", "ways", "we", "week", "weeks", "well", "went",
    "were", "what", "whatever", "when", "where", "whether", "which", "while", "who", "whole",
    "whom", "whose", "why", "will", "with", "within", "without", "won", "would", "year", "years",
    "yet", "you", "your", "yours", "yourself",
];

/// The local adapter of the [`Embedder`] port (see the module documentation). Cheap to clone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalEmbedder {
    dimensions: usize,
}

impl Default for LocalEmbedder {
    fn default() -> Self {
        Self::new(DEFAULT_DIMENSIONS)
    }
}

impl LocalEmbedder {
    /// An embedder of `dimensions`-long vectors. Panics when `dimensions` is 0.
    pub fn new(dimensions: usize) -> Self {
        assert!(dimensions > 0, "an embedding needs at least one dimension");
        Self { dimensions }
    }

    /// The embedding of `text`, synchronously (it cannot fail): L2-normalised, or all zeros
    /// when nothing is left of the text once punctuation and stop words are dropped.
    pub fn embed_sync(&self, text: &str) -> Vec<f32> {
        let features = Features::of(text);
        let mut sum = vec![0f64; self.dimensions];
        let mut block = vec![0f64; self.dimensions];
        for (kind, counts) in features.0.iter().enumerate() {
            block.fill(0.0);
            for (&hash, &tf) in counts {
                let sign = if hash >> 63 == 1 { -1.0 } else { 1.0 };
                block[(hash % self.dimensions as u64) as usize] +=
                    sign * (1.0 + f64::from(tf).ln());
            }
            let norm = block.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                let scale = SHARES[kind].sqrt() / norm;
                sum.iter_mut().zip(&block).for_each(|(s, b)| *s += b * scale);
            }
        }
        let mut vector: Vec<f32> = sum.into_iter().map(|x| x as f32).collect();
        normalize(&mut vector);
        vector
    }
}

#[async_trait]
impl Embedder for LocalEmbedder {
    async fn embed(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        Ok(self.embed_sync(text))
    }

    fn model_id(&self) -> &str {
        MODEL_ID
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }
}

/// Term frequencies by feature hash, per kind (ordered maps: the sums, hence the vectors, do not
/// depend on a hash map's iteration order).
#[derive(Default)]
struct Features([BTreeMap<u64, u32>; 3]);

impl Features {
    fn of(text: &str) -> Self {
        let mut features = Self::default();
        let mut previous: Option<String> = None;
        let mut segment = String::new();
        let mut segment_is_cjk = false;
        for c in text.chars().chain([' ']) {
            let cjk = is_cjk(c);
            let in_word = cjk || c.is_alphanumeric();
            if !segment.is_empty() && (!in_word || cjk != segment_is_cjk) {
                if segment_is_cjk {
                    features.cjk(&segment);
                    previous = None;
                } else {
                    features.word(&segment, &mut previous);
                }
                segment.clear();
            }
            if in_word {
                segment_is_cjk = cjk;
                segment.extend(c.to_lowercase());
            }
        }
        features
    }

    fn add(&mut self, kind: usize, hash: u64) {
        *self.0[kind].entry(hash).or_default() += 1;
    }

    /// A lower-cased word; `previous` is the content word before it, if any.
    fn word(&mut self, word: &str, previous: &mut Option<String>) {
        if word.chars().nth(1).is_none() || STOP_WORDS.binary_search(&word).is_ok() {
            return;
        }
        let stem = stem(word);
        self.add(WORD, Hash::new(WORD).str(&stem).finish());
        if let Some(previous) = previous.as_deref() {
            self.add(WORD_PAIR, Hash::new(WORD_PAIR).str(previous).str(&stem).finish());
        }
        if stem.chars().any(char::is_alphabetic) {
            let padded: Vec<char> = ['<'].into_iter().chain(stem.chars()).chain(['>']).collect();
            for gram in padded.windows(4) {
                self.add(CHAR_GRAM, Hash::new(CHAR_GRAM).chars(gram).finish());
            }
        }
        *previous = Some(stem);
    }

    /// A run of CJK characters: adjacent pairs stand for words (a lone character for itself),
    /// single characters for character n-grams.
    fn cjk(&mut self, run: &str) {
        let chars: Vec<char> = run.chars().collect();
        for c in &chars {
            self.add(CHAR_GRAM, Hash::new(CHAR_GRAM).chars(&[*c]).finish());
        }
        if chars.len() == 1 {
            self.add(WORD, Hash::new(WORD).chars(&chars).finish());
        }
        for pair in chars.windows(2) {
            self.add(WORD, Hash::new(WORD).chars(pair).finish());
        }
    }
}

/// A light English stemmer for lower-case ASCII words of four letters or more (other words are
/// left alone): plural `-s`/`-es`/`-ies`, then `-ing`/`-ed` (when a vowel stays before them, and
/// undoubling a final consonant), then a final `-y` after a consonant becomes `i` and a final `e`
/// goes. "tomatoes" and "tomato" give "tomato"; "moving", "moved", "moves" and "move" give "mov";
/// "galaxies" and "galaxy" give "galaxi".
fn stem(word: &str) -> String {
    let mut w = word.as_bytes().to_vec();
    if w.len() < 4 || !w.iter().all(u8::is_ascii_lowercase) {
        return word.to_owned();
    }
    let is_vowel = |c: u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u');
    if w.ends_with(b"sses") || w.ends_with(b"ies") {
        w.truncate(w.len() - 2);
    } else if w.ends_with(b"s") && !(w.ends_with(b"ss") || w.ends_with(b"us") || w.ends_with(b"is"))
    {
        w.pop();
    }
    for suffix in [&b"ing"[..], b"ed"] {
        let stem = w.len().saturating_sub(suffix.len());
        if w.ends_with(suffix) && stem >= 3 && w[..stem].iter().any(|&c| is_vowel(c) || c == b'y') {
            w.truncate(stem);
            let n = w.len();
            if w[n - 1] == w[n - 2]
                && !is_vowel(w[n - 1])
                && !matches!(w[n - 1], b'l' | b's' | b'z')
            {
                w.pop();
            }
            break;
        }
    }
    let n = w.len();
    if n >= 3 && w[n - 1] == b'y' && !is_vowel(w[n - 2]) {
        w[n - 1] = b'i';
    } else if n >= 4 && w[n - 1] == b'e' {
        w.pop();
    }
    String::from_utf8(w).unwrap_or_else(|_| word.to_owned())
}

/// Han, kana and Hangul: scripts whose words are not (reliably) separated by spaces.
fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3040..=0x30FF // Hiragana, Katakana
            | 0x3400..=0x4DBF // CJK Unified Ideographs Extension A
            | 0x4E00..=0x9FFF // CJK Unified Ideographs
            | 0xAC00..=0xD7AF // Hangul Syllables
            | 0xF900..=0xFAFF // CJK Compatibility Ideographs
            | 0x20000..=0x3134F // CJK Unified Ideographs Extensions B to G
    )
}

/// FNV-1a 64 over a feature kind and its parts (separated by 0xFF, which UTF-8 never uses), then
/// MurmurHash3's 64-bit finaliser so that every output bit depends on every input bit.
struct Hash(u64);

impl Hash {
    fn new(kind: usize) -> Self {
        Self(0xcbf2_9ce4_8422_2325).bytes(&[kind as u8])
    }

    fn bytes(mut self, bytes: &[u8]) -> Self {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    fn str(self, part: &str) -> Self {
        self.bytes(&[0xFF]).bytes(part.as_bytes())
    }

    fn chars(self, chars: &[char]) -> Self {
        chars
            .iter()
            .fold(self.bytes(&[0xFF]), |hash, c| hash.bytes(c.encode_utf8(&mut [0; 4]).as_bytes()))
    }

    fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;
