//! The measurements: every endpoint run [`RUNS`] times through the router, with the table calls
//! by operation and the capacity DynamoDB reported for each run; the medians are kept.

use anyhow::{ensure, Result};
use axum::http::Method;
use blog_api::ports::table::metered::CallCounts;
use serde_json::{json, Value};

use crate::{
    corpus::Corpus,
    doc::median,
    harness::{id_of, Harness, Sample},
    seed::Seeded,
};

/// Runs per endpoint.
pub const RUNS: usize = 5;
/// The row of the related articles of a published article the worker has handled.
pub const RELATED: &str = "GET /api/v1/articles/{id}/related?limit=5 (after the worker)";

/// The median figures of one endpoint.
pub struct Measurement {
    /// Method, path and what the parameters select.
    pub endpoint: String,
    /// Median calls of each operation.
    pub calls: CallCounts,
    /// Whether the calls differed between runs (they should not).
    pub calls_vary: bool,
    /// Fewest and most round trips of a run (`CallCounts::round_trips`).
    pub round_trips: (u64, u64),
    /// Median requests the adapter sent (more than the calls when it retried).
    pub requests: u64,
    /// Median items written by transactions.
    pub transact_items: u64,
    /// Median read capacity units.
    pub read_units: f64,
    /// Median write capacity units.
    pub write_units: f64,
    /// Median messages sent to the event queue (SQS SendMessage calls).
    pub sends: u64,
    /// Median texts embedded (Bedrock InvokeModel calls with the Bedrock embedder).
    pub embeds: u64,
}

/// The medians of the samples of one endpoint.
pub fn summarise(endpoint: String, samples: &[Sample]) -> Measurement {
    let calls = |pick: fn(&CallCounts) -> u64| median(samples.iter().map(|s| pick(&s.calls)));
    Measurement {
        endpoint,
        calls: CallCounts {
            get: calls(|c| c.get),
            get_many: calls(|c| c.get_many),
            put: calls(|c| c.put),
            update: calls(|c| c.update),
            delete: calls(|c| c.delete),
            query: calls(|c| c.query),
            scan: calls(|c| c.scan),
            transact: calls(|c| c.transact),
            transact_items: calls(|c| c.transact_items),
            round_trips: calls(|c| c.round_trips),
            items_read: calls(|c| c.items_read),
        },
        calls_vary: samples.iter().any(|s| {
            CallCounts { round_trips: 0, items_read: 0, ..s.calls }
                != CallCounts { round_trips: 0, items_read: 0, ..samples[0].calls }
        }),
        round_trips: (
            samples.iter().map(|s| s.calls.round_trips).min().unwrap_or(0),
            samples.iter().map(|s| s.calls.round_trips).max().unwrap_or(0),
        ),
        requests: median(samples.iter().map(|s| s.usage.calls)),
        transact_items: median(samples.iter().map(|s| s.calls.transact_items)),
        read_units: median(samples.iter().map(|s| s.usage.read_units)),
        write_units: median(samples.iter().map(|s| s.usage.write_units)),
        sends: median(samples.iter().map(|s| s.sends)),
        embeds: median(samples.iter().map(|s| s.embeds)),
    }
}

/// Resets the meters, sends one request (which must answer 200) and samples the meters.
pub async fn metered_call(
    harness: &Harness,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Result<(Value, Sample)> {
    harness.reset();
    let reply = harness.call(method, uri, token, body).await?;
    Ok((reply, harness.sample()))
}

/// How many of the corpus's articles carry each category or tag index.
fn usage_counts(
    corpus: &Corpus,
    len: usize,
    of: impl Fn(&crate::corpus::ArticleSpec) -> Vec<usize>,
) -> Vec<usize> {
    let mut counts = vec![0; len];
    corpus.articles.iter().flat_map(of).for_each(|i| counts[i] += 1);
    counts
}

fn matches(count: usize) -> String {
    match count {
        1 => "1 match".into(),
        n => format!("{n} matches"),
    }
}

fn most_used(counts: &[usize]) -> (usize, usize) {
    counts.iter().copied().enumerate().max_by_key(|(_, count)| *count).unwrap_or((0, 0))
}

/// The public reads, each run [`RUNS`] times.
pub async fn reads(
    harness: &Harness,
    corpus: &Corpus,
    seeded: &Seeded,
) -> Result<Vec<Measurement>> {
    ensure!(!seeded.article_ids.is_empty(), "no article was seeded");
    let article = seeded.article_ids[seeded.article_ids.len() / 2];
    let categories = usage_counts(corpus, seeded.category_ids.len(), |a| vec![a.category]);
    let (category, in_category) = most_used(&categories);
    let category_slug = &corpus.categories[category].slug;
    let category = seeded.category_ids[category];
    let (tag, with_tag) =
        most_used(&usage_counts(corpus, seeded.tag_ids.len(), |a| a.tags.clone()));
    let tag_slug = &corpus.tags[tag].slug;
    let tag = seeded.tag_ids[tag];
    let published = seeded.article_ids.len();
    let (common, common_matches) = &corpus.common_word;
    let (rare, rare_matches) = &corpus.rare_word;
    let list = "/api/v1/articles";
    let endpoints: Vec<(String, String)> = vec![
        ("GET /api/v1/articles/{id}".into(), format!("{list}/{article}")),
        (format!("GET {list}?page=1&size=10"), format!("{list}?page=1&size=10")),
        (format!("GET {list}?page=10&size=10"), format!("{list}?page=10&size=10")),
        (format!("GET {list}?page=1&size=100"), format!("{list}?page=1&size=100")),
        (
            format!("GET {list}?categoryId= (largest, {in_category} articles)"),
            format!("{list}?categoryId={category}"),
        ),
        (
            format!("GET {list}?categoryId=&size=100 (same)"),
            format!("{list}?categoryId={category}&size=100"),
        ),
        (
            format!("GET {list}?tagId= (largest, {with_tag} articles)"),
            format!("{list}?tagId={tag}"),
        ),
        (
            format!("GET {list}?keyword={common} (common, {})", matches(*common_matches)),
            format!("{list}?keyword={common}"),
        ),
        (
            format!("GET {list}?keyword={rare} (rare, {})", matches(*rare_matches)),
            format!("{list}?keyword={rare}"),
        ),
        ("GET /api/v1/categories/tree".into(), "/api/v1/categories/tree".into()),
        ("GET /api/v1/tags".into(), "/api/v1/tags".into()),
        ("GET /api/v1/tags/hot".into(), "/api/v1/tags/hot".into()),
        ("GET /api/v1/feeds/rss.xml (20 items)".into(), "/api/v1/feeds/rss.xml".into()),
        ("GET /api/v1/feeds/atom.xml (20 items)".into(), "/api/v1/feeds/atom.xml".into()),
        (
            format!(
                "GET /api/v1/feeds/categories/{{slug}}/rss.xml (largest, {in_category} articles)"
            ),
            format!("/api/v1/feeds/categories/{category_slug}/rss.xml"),
        ),
        (
            format!("GET /api/v1/feeds/tags/{{slug}}/atom.xml (largest, {with_tag} articles)"),
            format!("/api/v1/feeds/tags/{tag_slug}/atom.xml"),
        ),
        (
            format!("GET /api/v1/sitemap.xml (one file: {published} articles and the taxonomy, from the sitemap's pages)"),
            "/api/v1/sitemap.xml".into(),
        ),
        ("GET /api/v1/sitemaps/pages.xml".into(), "/api/v1/sitemaps/pages.xml".into()),
        (
            "GET /api/v1/sitemaps/articles-0.xml (ids 1-50,000)".into(),
            "/api/v1/sitemaps/articles-0.xml".into(),
        ),
    ];
    let mut measurements = Vec::new();
    for (endpoint, uri) in endpoints {
        let mut samples = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            samples.push(metered_call(harness, Method::GET, &uri, None, None).await?.1);
        }
        measurements.push(summarise(endpoint, &samples));
    }
    Ok(measurements)
}

/// An article body as the admin UI would send it.
fn article_input(run: usize, category: u64, tags: &[u64], corpus: &Corpus) -> Value {
    let spec = &corpus.articles[run % corpus.articles.len()];
    json!({
        "title": format!("{} (draft {run})", spec.title),
        "summary": spec.summary,
        "content": spec.markdown,
        "categoryId": category.to_string(),
        "tagIds": tags.iter().map(u64::to_string).collect::<Vec<_>>(),
    })
}

/// The administration writes: create, update, publish and archive, [`RUNS`] articles each.
pub async fn writes(
    harness: &Harness,
    corpus: &Corpus,
    seeded: &Seeded,
    token: &str,
) -> Result<Vec<Measurement>> {
    let admin = "/api/v1/admin/articles";
    let category = seeded.category_ids[seeded.category_ids.len() - 1];
    let tags = &seeded.tag_ids[..2.min(seeded.tag_ids.len())];
    // Warm the cache of the token holder's status, as a busy admin session would have it.
    harness.call(Method::GET, &format!("{admin}?page=1&size=1"), Some(token), None).await?;
    let (mut ids, mut created, mut updated) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..RUNS {
        let body = article_input(run, category, tags, corpus);
        let (reply, sample) =
            metered_call(harness, Method::POST, admin, Some(token), Some(body.clone())).await?;
        let id = id_of(&reply)?;
        created.push(sample);
        let mut changed = body;
        changed["title"] = json!(format!("{} (edited)", changed["title"].as_str().unwrap_or("")));
        let uri = format!("{admin}/{id}");
        let (_, sample) =
            metered_call(harness, Method::PUT, &uri, Some(token), Some(changed)).await?;
        updated.push(sample);
        ids.push(id);
    }
    let mut republished = Vec::with_capacity(RUNS);
    for (run, id) in seeded.article_ids.iter().rev().take(RUNS).enumerate() {
        let body = article_input(run + RUNS, category, tags, corpus);
        let uri = format!("{admin}/{id}");
        republished
            .push(metered_call(harness, Method::PUT, &uri, Some(token), Some(body)).await?.1);
    }
    let mut measurements = vec![
        summarise(format!("POST {admin} (draft, 1 category, 2 tags)"), &created),
        summarise(format!("PUT {admin}/{{id}} (draft)"), &updated),
        summarise(
            format!("PUT {admin}/{{id}} (published: new title, category, tags)"),
            &republished,
        ),
    ];
    let publish = status_changes(harness, &ids, "publish", token).await?;
    // The events of the republished and the published articles, handled before any is archived.
    let events = republished.iter().chain(&publish).map(|s| s.sends).sum::<u64>();
    let worker = crate::pipeline::worker_events(harness, events as usize).await?;
    let related_uri = format!("/api/v1/articles/{}/related?limit=5", ids[0]);
    let mut related = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        related.push(metered_call(harness, Method::GET, &related_uri, None, None).await?.1);
    }
    let archive = status_changes(harness, &ids, "archive", token).await?;
    measurements.push(summarise(format!("PUT {admin}/{{id}}/publish"), &publish));
    measurements.push(summarise(format!("PUT {admin}/{{id}}/archive"), &archive));
    measurements.push(worker);
    measurements.push(summarise(RELATED.into(), &related));
    Ok(measurements)
}

/// `PUT /api/v1/admin/articles/{id}/<action>` on each article, metered.
async fn status_changes(
    harness: &Harness,
    ids: &[u64],
    action: &str,
    token: &str,
) -> Result<Vec<Sample>> {
    let mut samples = Vec::with_capacity(ids.len());
    for id in ids {
        let uri = format!("/api/v1/admin/articles/{id}/{action}");
        samples.push(metered_call(harness, Method::PUT, &uri, Some(token), None).await?.1);
    }
    Ok(samples)
}
