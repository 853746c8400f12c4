//! Measurements at the blog's expected size (10,000 articles, or `BLOG_SEARCH_MEASURE_ARTICLES`),
//! not run by default (`make bench-search` runs them at 1,000 and 10,000):
//!
//! ```text
//! cargo test -p blog-search --release --test engine -- --ignored --nocapture measure_ten_thousand_articles
//! ```
//!
//! It prints the bundle's size, the build time, the load time in a fresh process (it runs
//! this test binary again for `load_a_bundle_in_a_fresh_process`), and the latencies of
//! warm text, semantic and hybrid searches and of `related`.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use blog_search::{Article, Mode, Query, SearchIndex};

use crate::support::Random;

/// Articles measured unless `BLOG_SEARCH_MEASURE_ARTICLES` says how many.
const ARTICLES: usize = 10_000;

fn articles_measured() -> usize {
    std::env::var("BLOG_SEARCH_MEASURE_ARTICLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ARTICLES)
}
const DIMS: usize = 512;
const BUNDLE_PATH_VARIABLE: &str = "BLOG_SEARCH_MEASURE_BUNDLE";

const COMMON_HAN: &str = "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从数据系统安全管理分布式向量检索性能优化设计模式算法网络服务器接口缓存并发线程内存编译语言框架测试部署容器日志监控";
const ENGLISH: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "that",
    "with",
    "on",
    "as",
    "it",
    "by",
    "this",
    "be",
    "are",
    "from",
    "or",
    "an",
    "we",
    "can",
    "how",
    "when",
    "which",
    "rust",
    "search",
    "index",
    "query",
    "tantivy",
    "lambda",
    "dynamodb",
    "serverless",
    "performance",
    "memory",
    "async",
    "runtime",
    "compiler",
    "vector",
    "embedding",
    "database",
    "network",
    "latency",
    "cache",
    "thread",
    "server",
    "client",
    "request",
    "response",
    "error",
    "design",
    "system",
    "storage",
    "bundle",
    "token",
    "parser",
    "markdown",
    "article",
    "comment",
    "feed",
    "deploy",
    "container",
    "kubernetes",
    "python",
    "javascript",
    "typescript",
    "golang",
    "postgres",
    "benchmark",
    "profile",
    "allocation",
    "ownership",
    "borrow",
    "lifetime",
    "trait",
    "generic",
];
const SYLLABLES: &[&str] = &[
    "ka", "lo", "ri", "ten", "mar", "sel", "vo", "quin", "dra", "pel", "tor", "mi", "zen", "fra",
    "gul", "nes", "bri", "cat", "dom", "ex", "hal", "jur", "lem", "nov", "par", "ros", "sti",
    "vel",
];

fn english_word(random: &mut Random) -> String {
    if random.below(3) > 0 {
        return ENGLISH[zipf(random, ENGLISH.len())].to_string();
    }
    let rank = zipf(random, 20_000);
    let mut word = String::new();
    let mut seed = rank + 7;
    for _ in 0..2 + rank % 3 {
        word.push_str(SYLLABLES[seed % SYLLABLES.len()]);
        seed /= SYLLABLES.len();
        seed += rank;
    }
    word
}

/// A rank in `0..size`, small ranks far more likely (log-uniform, roughly Zipf).
fn zipf(random: &mut Random, size: usize) -> usize {
    let u = random.below(1_000_000) as f64 / 1_000_000.0;
    (((size as f64).ln() * u).exp() as usize).saturating_sub(1).min(size - 1)
}

fn english(random: &mut Random, words: usize) -> String {
    (0..words).map(|_| english_word(random)).collect::<Vec<_>>().join(" ")
}

fn chinese(random: &mut Random, chars: usize) -> String {
    let han: Vec<char> = COMMON_HAN.chars().collect();
    let mut text = String::new();
    for count in 1..=chars {
        text.push(han[zipf(random, han.len())]);
        if count % (8 + random.below(12)) == 0 {
            text.push(if random.below(4) == 0 { '。' } else { '，' });
        }
    }
    text
}

fn synthetic_articles(random: &mut Random) -> Vec<Article> {
    (0..articles_measured())
        .map(|n| {
            let (title, summary, body) = if n % 2 == 0 {
                (chinese(random, 20), chinese(random, 150), chinese(random, 2_000))
            } else {
                (english(random, 8), english(random, 50), english(random, 600))
            };
            Article {
                id: format!("{}", 1_000_000_000_000_000_000u64 + n as u64),
                title,
                summary,
                body,
                category_id: Some(format!("c{}", n % 12)),
                category_name: Some(format!("category {}", n % 12)),
                tag_ids: vec![format!("t{}", n % 40), format!("t{}", (n * 7) % 40)],
                tag_names: vec![english_word(random), english_word(random)],
                published_at: 1_600_000_000_000 + n as i64 * 60_000,
                pinned: n % 500 == 0,
                embedding: Some(random.vector(DIMS)),
            }
        })
        .collect()
}

fn text_queries(random: &mut Random, articles: &[Article]) -> Vec<(&'static str, String)> {
    let mut queries = Vec::new();
    for _ in 0..100 {
        queries.push(("english word", english_word(random)));
    }
    for _ in 0..60 {
        queries.push((
            "two english words",
            format!("{} {}", english_word(random), english_word(random)),
        ));
    }
    for _ in 0..80 {
        let source: Vec<char> =
            articles[random.below(articles.len() / 2) * 2].body.chars().collect();
        let length = 2 + random.below(3);
        let start = random.below(source.len() - length);
        let run: String =
            source[start..start + length].iter().filter(|c| !matches!(c, '，' | '。')).collect();
        queries.push(("chinese run", run));
    }
    for _ in 0..60 {
        let word = english_word(random);
        let cut = word.chars().count().clamp(2, 3 + random.below(3));
        queries.push(("prefix", word.chars().take(cut).collect()));
    }
    for _ in 0..20 {
        let mut word: Vec<char> = ENGLISH[24 + random.below(ENGLISH.len() - 24)].chars().collect();
        let at = random.below(word.len());
        word[at] = 'x';
        queries.push(("typo", word.into_iter().collect()));
    }
    queries
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort_unstable();
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn report(label: &str, times: &mut [Duration]) {
    let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
    println!("{label:<28} n={:<4} p50 {p50:>10.3?}  p99 {p99:>10.3?}", times.len());
}

fn timed<T>(run: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = run();
    (value, start.elapsed())
}

#[test]
#[ignore = "measures 10,000 articles; run in release with --ignored --nocapture"]
fn measure_ten_thousand_articles() {
    let mut random = Random::new(2024);
    let articles = synthetic_articles(&mut random);
    let text_bytes: usize =
        articles.iter().map(|a| a.title.len() + a.summary.len() + a.body.len()).sum();
    let count = articles.len();
    println!("{count} articles, {:.1} MB of text, {DIMS}-dim vectors", text_bytes as f64 / 1e6);

    let mut index = SearchIndex::new().unwrap();
    let ((), build) = timed(|| index.upsert(articles.clone()).unwrap());
    println!("build (one upsert)           {build:.2?}");
    let (bundle, bundling) = timed(|| index.to_bundle().unwrap());
    println!(
        "bundle                       {} bytes ({:.1} MB), written in {bundling:.2?}",
        bundle.len(),
        bundle.len() as f64 / 1e6
    );

    let path: PathBuf = std::env::temp_dir().join("blog-search-measure.bundle");
    std::fs::write(&path, &bundle).unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "measure::load_a_bundle_in_a_fresh_process", "--nocapture"])
        .env(BUNDLE_PATH_VARIABLE, &path)
        .output()
        .unwrap();
    let child = String::from_utf8_lossy(&output.stdout);
    child
        .lines()
        .filter(|line| line.starts_with("fresh process"))
        .for_each(|line| println!("{line}"));
    assert!(output.status.success(), "{child}");
    std::fs::remove_file(&path).ok();

    let queries = text_queries(&mut random, &articles);
    for (_, text) in queries.iter().take(50) {
        index.search(&Query::new(text.as_str())).unwrap();
    }
    let mut all = Vec::new();
    let mut matched = 0;
    for class in ["english word", "two english words", "chinese run", "prefix", "typo"] {
        let mut times = Vec::new();
        for (_, text) in queries.iter().filter(|(c, _)| *c == class) {
            let (results, time) = timed(|| index.search(&Query::new(text.as_str())).unwrap());
            matched += usize::from(results.total > 0);
            times.push(time);
        }
        all.extend_from_slice(&times);
        report(&format!("text: {class}"), &mut times);
    }
    report("text: all", &mut all);
    println!("  ({matched} of {} text queries matched something)", queries.len());

    let mut semantic = Vec::new();
    let mut hybrid = Vec::new();
    for (_, text) in queries.iter().take(200) {
        let vector = random.vector(DIMS);
        let query = Query { mode: Mode::Semantic(vector.clone()), ..Query::default() };
        semantic.push(timed(|| index.search(&query).unwrap()).1);
        let query = Query { mode: Mode::Hybrid(vector), ..Query::new(text.as_str()) };
        hybrid.push(timed(|| index.search(&query).unwrap()).1);
    }
    report("semantic", &mut semantic);
    report("hybrid", &mut hybrid);
    let mut related = Vec::new();
    for _ in 0..200 {
        let id = &articles[random.below(count)].id;
        related.push(timed(|| index.related(id, 5)).1);
    }
    report("related (k = 5)", &mut related);

    let mut changes = Vec::new();
    for n in 0..30 {
        let mut edited = articles[random.below(count)].clone();
        edited.title = format!("{} edited {n}", edited.title);
        changes.push(timed(|| index.upsert([edited]).unwrap()).1);
    }
    report("upsert of one article", &mut changes);
    println!("  (slowest {:.2?})", changes.iter().max().unwrap());
    let (_, removal) = timed(|| index.remove([articles[0].id.as_str()]).unwrap());
    println!("remove of one article        {removal:.2?}");
    let (bundle, bundling) = timed(|| index.to_bundle().unwrap());
    println!("bundle after the changes     {} bytes, written in {bundling:.2?}", bundle.len());
}

#[test]
#[ignore = "run by measure_ten_thousand_articles in a fresh process"]
fn load_a_bundle_in_a_fresh_process() {
    let Ok(path) = std::env::var(BUNDLE_PATH_VARIABLE) else { return };
    let (bytes, read) = timed(|| std::fs::read(&path).unwrap());
    let (index, load) = timed(|| SearchIndex::from_bundle(&bytes).unwrap());
    let (_, first) = timed(|| index.search(&Query::new("rust")).unwrap());
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| status.lines().find(|l| l.starts_with("VmRSS")).map(str::to_owned))
        .unwrap_or_default();
    println!("fresh process: read file {read:.2?}, from_bundle {load:.2?}, first search {first:.2?}, {rss}");
    assert_eq!(index.len(), articles_measured());
}
