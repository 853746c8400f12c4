//! A deterministic, blog-like corpus: the taxonomy to create and the articles to seed.
//!
//! Popularity is skewed the way real blogs are (Zipf-like): a few categories, tags and topic
//! words are common, most are not; a pool of rare words gives keyword searches that match a
//! handful of articles. The same seed always yields the same corpus.

use std::collections::HashMap;

use rand::{rngs::StdRng, Rng, SeedableRng};

/// Seed of the random generator (fixed, so runs are comparable).
const SEED: u64 = 0x5eed_b10c;

/// Topic words, most popular first (drawn with Zipf weights).
#[rustfmt::skip]
const TOPICS: [&str; 96] = [
    "rust", "serverless", "dynamodb", "lambda", "async", "testing", "performance", "database",
    "api", "security", "caching", "tokio", "design", "deployment", "observability",
    "kubernetes", "python", "typescript", "react", "postgres", "indexing", "latency", "queues",
    "events", "streams", "memory", "ownership", "traits", "generics", "macros", "errors",
    "logging", "tracing", "metrics", "alerts", "pipelines", "terraform", "cloudformation",
    "containers", "networking", "http", "grpc", "graphql", "json", "schemas", "migrations",
    "backups", "storage", "compression", "encryption", "tokens", "sessions", "passwords",
    "markdown", "search", "ranking", "embeddings", "vectors", "pagination", "consistency",
    "transactions", "partitions", "sharding", "replication", "failover", "benchmarks",
    "profiling", "allocators", "threads", "channels", "actors", "futures", "webassembly",
    "compilers", "parsers", "linters", "formatters", "editors", "terminals", "shells", "git",
    "reviews", "refactoring", "architecture", "microservices", "monoliths", "budgets",
    "billing", "capacity", "throttling", "retries", "idempotency", "timeouts", "deadlines",
    "scheduling", "cron",
];

/// Words that few articles mention.
#[rustfmt::skip]
const RARE_WORDS: [&str; 40] = [
    "zeppelin", "quokka", "obsidian", "marzipan", "fjord", "kumquat", "tundra", "origami",
    "saffron", "glacier", "nebula", "walrus", "papyrus", "lagoon", "cobalt", "juniper",
    "mosaic", "pelican", "quartz", "sequoia", "tambourine", "umbra", "vortex", "wombat",
    "xylophone", "yodel", "zircon", "bonsai", "cactus", "dolmen", "ember", "falcon", "gondola",
    "harpoon", "igloo", "jasmine", "kiwano", "lantern", "mangrove", "narwhal",
];

/// Filler words of the article bodies.
#[rustfmt::skip]
const FILLER: [&str; 24] = [
    "the", "a", "with", "when", "then", "we", "our", "this", "that", "each", "every", "only",
    "after", "before", "because", "while", "it", "is", "was", "works", "fails", "changes",
    "improves", "needs",
];

const TITLE_TEMPLATES: [&str; 8] = [
    "{a} and {b} in practice",
    "Understanding {a}",
    "A guide to {a} with {b}",
    "Why {a} beats {b}",
    "{a}: lessons from production",
    "Debugging {a} on {b}",
    "Notes on {a}",
    "From {a} to {b}",
];

const SUMMARY_TEMPLATES: [&str; 4] = [
    "This article looks at {a}, {b} and {c}, with notes on {d}.",
    "How we approached {a} and {b}; what {c} taught us about {d}.",
    "A walk through {a}, covering {b}, {c} and {d}.",
    "Practical advice on {a} and {b}, plus a short detour into {c} and {d}.",
];

/// A category to create: name, slug and the index of its parent among earlier categories.
pub struct CategorySpec {
    pub name: String,
    pub slug: String,
    pub parent: Option<usize>,
}

/// A tag to create.
pub struct TagSpec {
    pub name: String,
    pub slug: String,
    pub color: String,
}

/// One article to seed, with its category and tags as indexes into the taxonomy specs.
pub struct ArticleSpec {
    pub title: String,
    pub summary: String,
    pub markdown: String,
    pub category: usize,
    pub tags: Vec<usize>,
    pub is_top: bool,
}

/// The whole corpus, with the search keywords chosen from it.
pub struct Corpus {
    pub categories: Vec<CategorySpec>,
    pub tags: Vec<TagSpec>,
    pub articles: Vec<ArticleSpec>,
    /// The most frequent topic word and how many articles it is indexed for.
    pub common_word: (String, usize),
    /// The least frequent rare word that occurs at all, and its article count.
    pub rare_word: (String, usize),
}

/// Picks indexes in `0..len` with probability proportional to `1 / (rank + 1)`.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(len: usize) -> Self {
        let cumulative = (0..len)
            .scan(0.0, |total, rank| {
                *total += 1.0 / (rank as f64 + 1.0);
                Some(*total)
            })
            .collect();
        Self { cumulative }
    }

    fn sample(&self, rng: &mut StdRng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let point = rng.random::<f64>() * total;
        self.cumulative.partition_point(|c| *c < point).min(self.cumulative.len() - 1)
    }

    /// Up to `count` distinct indexes.
    fn distinct(&self, rng: &mut StdRng, count: usize) -> Vec<usize> {
        let mut picked = Vec::with_capacity(count);
        for _ in 0..count * 4 {
            if picked.len() == count {
                break;
            }
            let index = self.sample(rng);
            if !picked.contains(&index) {
                picked.push(index);
            }
        }
        picked
    }
}

fn fill(template: &str, words: &[&str]) -> String {
    ["{a}", "{b}", "{c}", "{d}"]
        .iter()
        .zip(words)
        .fold(template.to_string(), |text, (slot, word)| text.replace(slot, word))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A Markdown body: a heading per section, a few paragraphs of 40-70 words, one code block.
fn markdown(rng: &mut StdRng, topics: &Zipf) -> String {
    let mut text = String::new();
    let sections = rng.random_range(2..=3);
    for section in 0..sections {
        let heading = TOPICS[topics.sample(rng)];
        text.push_str(&format!("## {} {}\n\n", capitalised(heading), section + 1));
        for _ in 0..rng.random_range(1..=2) {
            let words: Vec<&str> = (0..rng.random_range(40..=70))
                .map(|_| match rng.random_bool(0.4) {
                    true => TOPICS[topics.sample(rng)],
                    false => FILLER[rng.random_range(0..FILLER.len())],
                })
                .collect();
            text.push_str(&capitalised(&words.join(" ")));
            text.push_str(".\n\n");
        }
    }
    text.push_str("```rust\nfn main() {\n    println!(\"hello, blog\");\n}\n```\n");
    text
}

/// The distinct lower-case words of `text` (the corpus's words are ASCII).
fn distinct_words(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl Corpus {
    /// `articles` articles over 10 categories (4 roots, 6 children) and 30 tags.
    pub fn generate(articles: usize) -> Corpus {
        let mut rng = StdRng::seed_from_u64(SEED);
        let roots = ["Engineering", "Cloud", "Data", "Culture"];
        let children = [
            ("Rust", 0),
            ("Web", 0),
            ("Serverless", 1),
            ("Operations", 1),
            ("Databases", 2),
            ("Search", 2),
        ];
        let categories = roots
            .iter()
            .map(|name| (*name, None))
            .chain(children.iter().map(|(name, parent)| (*name, Some(*parent))))
            .map(|(name, parent)| CategorySpec {
                name: name.to_string(),
                slug: name.to_lowercase(),
                parent,
            })
            .collect::<Vec<_>>();
        let tags = TOPICS[..30]
            .iter()
            .enumerate()
            .map(|(i, word)| TagSpec {
                name: capitalised(word),
                slug: format!("tag-{word}"),
                color: format!("#{:06X}", (i as u32 * 0x2F5A3B) & 0xFF_FFFF),
            })
            .collect::<Vec<_>>();
        let (topics, category_pick, tag_pick) =
            (Zipf::new(TOPICS.len()), Zipf::new(categories.len()), Zipf::new(tags.len()));
        let mut frequency: HashMap<String, usize> = HashMap::new();
        let articles = (0..articles)
            .map(|_| {
                let words: Vec<&str> = (0..4).map(|_| TOPICS[topics.sample(&mut rng)]).collect();
                let title = TITLE_TEMPLATES[rng.random_range(0..TITLE_TEMPLATES.len())];
                let title = capitalised(&fill(title, &words[..2]));
                let summary = SUMMARY_TEMPLATES[rng.random_range(0..SUMMARY_TEMPLATES.len())];
                let mut summary = fill(summary, &[words[2], words[0], words[3], words[1]]);
                if rng.random_ratio(1, 20) {
                    let rare = RARE_WORDS[rng.random_range(0..RARE_WORDS.len())];
                    summary.push_str(&format!(" Bonus: a word about {rare}."));
                }
                for word in distinct_words(&format!("{title} {summary}")) {
                    *frequency.entry(word).or_default() += 1;
                }
                let tag_count = rng.random_range(0..=3);
                ArticleSpec {
                    title,
                    summary,
                    markdown: markdown(&mut rng, &topics),
                    category: category_pick.sample(&mut rng),
                    tags: tag_pick.distinct(&mut rng, tag_count),
                    is_top: rng.random_ratio(1, 200),
                }
            })
            .collect();
        let count = |word: &str| frequency.get(word).copied().unwrap_or(0);
        let common = TOPICS.iter().copied().max_by_key(|w| count(w)).unwrap_or(TOPICS[0]);
        let rare = RARE_WORDS
            .iter()
            .copied()
            .filter(|w| count(w) > 0)
            .min_by_key(|w| count(w))
            .unwrap_or(RARE_WORDS[0]);
        Corpus {
            categories,
            tags,
            articles,
            common_word: (common.to_string(), count(common)),
            rare_word: (rare.to_string(), count(rare)),
        }
    }
}
