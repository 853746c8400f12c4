//! In-process latency of the handlers, per endpoint (criterion): a request built in memory
//! goes through the local gateway's router (routing, extractors, authentication, the handler,
//! JSON encoding) to an SQLite table held in memory, and the whole answer body is collected.
//! Excluded: the network and HTTP parsing (no socket), and storage I/O (SQLite in memory: no
//! file, no fsync; SQLite's own query work is included). The in-process worker runs as in the
//! gateway but is idle while measuring.
//!
//! `make bench-handlers` runs it (`cargo bench -p bench --bench handlers`); with
//! `BLOG_BENCH_OUT=docs/performance.md` it also writes its section of that file.

use std::{path::PathBuf, time::Duration};

use anyhow::{ensure, Context, Result};
use axum::http::Method;
use bench::{
    corpus::Corpus,
    doc::{self, machine, thousands, today, wrap},
    harness::{request, Harness},
    seed::{self, Seeder},
};
use criterion::Criterion;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

/// Published articles in the table.
const ARTICLES: usize = 1000;
/// Articles published through the API (so the worker computes their related lists).
const PUBLISHED: usize = 20;
const GROUP: &str = "handlers";

/// One benchmarked request: id, what it is, and the request.
struct Case {
    id: &'static str,
    what: String,
    method: Method,
    uri: String,
    token: Option<String>,
    body: Option<Value>,
}

fn case(id: &'static str, what: &str, method: Method, uri: String) -> Case {
    Case { id, what: what.into(), method, uri, token: None, body: None }
}

/// Seeds the table and lists the cases.
async fn setup(harness: &Harness) -> Result<Vec<Case>> {
    let (admin, admin_id) = harness.admin_login().await?;
    let corpus = Corpus::generate(ARTICLES);
    let seeder = Seeder { token: &admin, author: admin_id, concurrency: 1 };
    let seeded = seed::seed(harness, &corpus, &seeder).await?;
    let registration =
        json!({ "username": "reader", "password": "Reader12345", "email": "reader@example.com" });
    harness.call(Method::POST, "/api/v1/auth/register", None, Some(registration)).await?;
    let (reader, _) = harness.login("reader", "Reader12345").await?;
    let mut published = Vec::new();
    for spec in corpus.articles.iter().take(PUBLISHED) {
        let body = json!({ "title": format!("{} (again)", spec.title), "content": spec.markdown,
            "categoryId": seeded.category_ids[spec.category].to_string() });
        let reply = harness.call(Method::POST, "/api/v1/admin/articles", Some(&admin), Some(body));
        let id = bench::harness::id_of(&reply.await?)?;
        let uri = format!("/api/v1/admin/articles/{id}/publish");
        harness.call(Method::PUT, &uri, Some(&admin), None).await?;
        published.push(id);
    }
    // Let the worker embed them and compute their related lists.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let article = seeded.article_ids[seeded.article_ids.len() / 2];
    let (common, _) = &corpus.common_word;
    let draft = json!({ "title": "Benchmark draft", "content": corpus.articles[0].markdown,
        "categoryId": seeded.category_ids[0].to_string(),
        "tagIds": [seeded.tag_ids[0].to_string(), seeded.tag_ids[1].to_string()] });
    let list = "/api/v1/articles";
    let mut cases = vec![
        case(
            "not_found",
            "unknown route (404: routing and envelope only)",
            Method::GET,
            "/api/v1/nothing".into(),
        ),
        case(
            "article_list",
            "article list, page 1 of 10",
            Method::GET,
            format!("{list}?page=1&size=10"),
        ),
        case("article_detail", "article detail", Method::GET, format!("{list}/{article}")),
        case(
            "article_search",
            &format!("keyword search (`{common}`, common)"),
            Method::GET,
            format!("{list}?keyword={common}"),
        ),
        case(
            "article_by_category",
            "list by category",
            Method::GET,
            format!("{list}?categoryId={}", seeded.category_ids[0]),
        ),
        case(
            "article_related",
            "related articles (5)",
            Method::GET,
            format!("{list}/{}/related?limit=5", published[0]),
        ),
        case("category_tree", "category tree", Method::GET, "/api/v1/categories/tree".into()),
        case("tags", "tag list", Method::GET, "/api/v1/tags".into()),
        case("tags_hot", "hot tags", Method::GET, "/api/v1/tags/hot".into()),
        case(
            "users_me",
            "own profile (token check, cached account)",
            Method::GET,
            "/api/v1/users/me".into(),
        ),
        case("login", "login (one Argon2 verification)", Method::POST, "/api/v1/auth/login".into()),
        case(
            "article_create",
            "create a draft (Markdown rendering, one transaction)",
            Method::POST,
            "/api/v1/admin/articles".into(),
        ),
    ];
    for case in &mut cases {
        match case.id {
            "users_me" => case.token = Some(reader.clone()),
            "login" => case.body = Some(json!({ "username": "reader", "password": "Reader12345" })),
            "article_create" => {
                case.token = Some(admin.clone());
                case.body = Some(draft.clone());
            }
            _ => {}
        }
    }
    Ok(cases)
}

/// Sends the case once; returns the status.
async fn send(harness: &Harness, case: &Case) -> u16 {
    let request = request(case.method.clone(), &case.uri, case.token.as_deref(), case.body.clone())
        .expect("a valid request");
    let response = harness.router().oneshot(request).await.expect("the router answers");
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.expect("the whole body");
    std::hint::black_box(body);
    status
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// Median and 95 % confidence interval (nanoseconds) of a finished benchmark.
fn estimate(dir: &std::path::Path, id: &str) -> Result<(f64, f64, f64)> {
    let path = dir.join(GROUP).join(id).join("new/estimates.json");
    let json: Value = serde_json::from_slice(
        &std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?,
    )?;
    let number = |pointer: &str| json.pointer(pointer).and_then(Value::as_f64).context("estimate");
    Ok((
        number("/median/point_estimate")?,
        number("/median/confidence_interval/lower_bound")?,
        number("/median/confidence_interval/upper_bound")?,
    ))
}

fn section(cases: &[Case], dir: &std::path::Path) -> Result<String> {
    let mut text = String::from("## In-process latency of the handlers\n\n");
    text += &wrap(
        &format!(
            "Produced by `make bench-handlers` (`cargo bench -p bench --bench handlers`, bench \
             profile = the release profile) on {}, on {}.",
            today(),
            machine()
        ),
        "",
    );
    text += "\n";
    text += &wrap(
        &format!(
            "Method: criterion (warm-up 1 s, 50 samples over 3 s per endpoint) sends each \
             request, built in memory, through the local gateway's router (`local_gateway::app`: \
             routing, extractors, token check, the handler, JSON encoding) and collects the whole \
             body; every request runs its handler (`BLOG_ANSWER_CACHE=false`: no kept \
             answers). The table is the embedded SQLite adapter **in memory**, holding {} published \
             articles (10 categories, 30 tags) written with `store::save`, plus {PUBLISHED} \
             published through the API whose related lists the in-process worker computed before \
             the measurement. Excluded: the network and HTTP parsing (no socket) and storage I/O \
             (no file, no fsync); SQLite's own work is included. The figures are criterion's \
             median time per request with its 95 % confidence interval.",
            thousands(ARTICLES)
        ),
        "",
    );
    text += "\n| endpoint | request | median, µs | 95 % CI, µs |\n|---|---|---:|---:|\n";
    for case in cases {
        let (median, low, high) = estimate(dir, case.id)?;
        text += &format!(
            "| {} | `{} {}` | {:.1} | {:.1}-{:.1} |\n",
            case.what,
            case.method,
            case.uri,
            median / 1000.0,
            low / 1000.0,
            high / 1000.0
        );
    }
    Ok(text)
}

fn main() -> Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    let harness = runtime.block_on(Harness::in_memory())?;
    let cases = runtime.block_on(setup(&harness))?;
    for case in &cases {
        let status = runtime.block_on(send(&harness, case));
        let expected = if case.id == "not_found" { 404 } else { 200 };
        ensure!(status == expected, "{} answered {status}, not {expected}", case.uri);
    }
    let dir = target_dir().join("criterion");
    let mut criterion = Criterion::default()
        .output_directory(&dir)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .configure_from_args();
    {
        let mut group = criterion.benchmark_group(GROUP);
        for case in &cases {
            group.bench_function(case.id, |b| {
                b.to_async(&runtime).iter(|| send(&harness, case));
            });
        }
        group.finish();
    }
    criterion.final_summary();
    if let Some(out) = std::env::var_os("BLOG_BENCH_OUT") {
        doc::write_section(std::path::Path::new(&out), "handlers", &section(&cases, &dir)?)?;
        eprintln!("Wrote the handler section to {}", PathBuf::from(out).display());
    }
    Ok(())
}
