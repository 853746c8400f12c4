//! Throughput and latency of the local gateway (`gateway` profile, embedded adapters) under oha,
//! against a hello-world axum server as the ceiling, on the same machine: the gateway is seeded
//! over HTTP, left to settle, then every endpoint is loaded in turn, round after round.

pub mod oha;
pub mod report;
pub mod seed;
pub mod server;

use std::{
    net::{SocketAddr, TcpListener},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Context, Result};

use self::{
    oha::{Figures, Load, Request},
    server::Server,
};
use crate::{corpus::Corpus, harness::ADMIN};

/// Name of the ceiling's row.
pub const CEILING: &str = "hello world (axum)";
/// Name of the row the target is about.
pub const DETAIL: &str = "article detail";
/// What the rows of the second gateway, which keeps no answers, add to their names.
pub const NOT_KEPT: &str = ", answers not kept";

/// What to run and how hard.
pub struct Settings {
    pub gateway: PathBuf,
    pub hello: PathBuf,
    pub oha: PathBuf,
    pub articles: usize,
    pub rounds: usize,
    pub load: Load,
    pub warmup: Duration,
    /// The gateway's data directory, kept afterwards (default: a temporary one).
    pub data_dir: Option<PathBuf>,
}

/// The runs of one endpoint.
pub struct Row {
    pub name: String,
    pub request: String,
    pub runs: Vec<Figures>,
}

/// Everything measured.
pub struct Outcome {
    pub rows: Vec<Row>,
    pub articles: usize,
    pub seeding: Duration,
    pub settling: Duration,
    pub gateway_peak_rss_kib: u64,
}

fn free_address() -> Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?)
}

/// The public reads of the gateway at `addr`, named with `suffix`.
fn reads(addr: SocketAddr, article_ids: &[u64], suffix: &str) -> Vec<(String, Request)> {
    let base = format!("http://{addr}");
    let get = |url: String| Request { method: "GET", url, url_regex: false, body: None };
    // Up to 100 articles, picked at random per request (oha draws each URL from the regex).
    let ids: Vec<String> = article_ids.iter().take(100).map(u64::to_string).collect();
    // `[.]`: oha's regex reader mangles `\.` in the host.
    let detail_regex = format!("{}/api/v1/articles/({})", base.replace('.', "[.]"), ids.join("|"));
    let name = |name: &str| format!("{name}{suffix}");
    vec![
        (name("article list"), get(format!("{base}/api/v1/articles?page=1&size=10"))),
        (name(DETAIL), Request { method: "GET", url: detail_regex, url_regex: true, body: None }),
        (name("category tree"), get(format!("{base}/api/v1/categories/tree"))),
    ]
}

/// The endpoints: the ceiling, the gateway's reads and login, then the same reads of the
/// gateway that keeps no answers.
fn endpoints(
    hello: SocketAddr,
    gateway: SocketAddr,
    not_kept: SocketAddr,
    article_ids: &[u64],
) -> Vec<(String, Request)> {
    let base = format!("http://{gateway}");
    let login = serde_json::json!({ "username": ADMIN.0, "password": ADMIN.1 }).to_string();
    let mut endpoints = vec![(
        CEILING.to_string(),
        Request { method: "GET", url: format!("http://{hello}/"), url_regex: false, body: None },
    )];
    endpoints.extend(reads(gateway, article_ids, ""));
    let login = Request {
        method: "POST",
        url: format!("{base}/api/v1/auth/login"),
        url_regex: false,
        body: Some(login),
    };
    endpoints.push(("login".to_string(), login));
    endpoints.extend(reads(not_kept, article_ids, NOT_KEPT));
    endpoints
}

/// A short description of a request for the table.
fn describe(request: &Request) -> String {
    let path = request.url.splitn(4, '/').nth(3).map(|p| format!("/{p}")).unwrap_or_default();
    let path = path.replace("[.]", ".");
    if request.url_regex {
        let prefix = path.split('(').next().unwrap_or_default();
        let articles = request.url.matches('|').count() + 1;
        format!("{} {prefix}{{id}} ({articles} articles at random)", request.method)
    } else {
        format!("{} {path}", request.method)
    }
}

/// Seeds the gateway, then loads every endpoint `rounds` times in turn.
pub async fn measure(settings: &Settings) -> Result<Outcome> {
    let dir = tempfile::tempdir()?;
    let data_dir = settings.data_dir.clone().unwrap_or_else(|| dir.path().join("data"));
    let (hello_addr, gateway_addr) = (free_address()?, free_address()?);
    let hello = Server::start(
        &settings.hello,
        &[("HELLO_ADDR", hello_addr.to_string())],
        hello_addr,
        &dir.path().join("hello.log"),
    )?;
    let gateway_env = [
        ("BLOG_STORE", "embedded".to_string()),
        ("BLOG_DATA_DIR", data_dir.display().to_string()),
        ("BLOG_HOST", gateway_addr.ip().to_string()),
        ("BLOG_PORT", gateway_addr.port().to_string()),
        ("BLOG_ADMIN_USERNAME", ADMIN.0.to_string()),
        ("BLOG_ADMIN_PASSWORD", ADMIN.1.to_string()),
        ("BLOG_ADMIN_EMAIL", ADMIN.2.to_string()),
        // The login row measures password checks under load, all from this one address: the
        // throttle's five unresolved attempts per address would refuse most of them with 429.
        ("BLOG_LOGIN_MAX_FAILURES", "100000".to_string()),
        ("BLOG_LOGIN_MAX_FAILURES_PER_NAME", "100000".to_string()),
    ];
    let log = dir.path().join("gateway.log");
    let gateway = Server::start(&settings.gateway, &gateway_env, gateway_addr, &log)?;
    let api = seed::Api::new(&format!("http://{gateway_addr}"))?;
    let token = api.admin_token().await?;
    eprintln!("Seeding {} articles over HTTP...", settings.articles);
    let seeded = seed::seed(&api, &Corpus::generate(settings.articles), &token).await?;
    eprintln!("Seeded in {:.1} s; waiting for the gateway to settle...", seeded.took.as_secs_f64());
    let settling = gateway.settle(Duration::from_secs(900))?;
    // A second gateway on the same data, keeping no answers: what the handlers cost each time.
    let not_kept_addr = free_address()?;
    let mut not_kept_env: Vec<_> = gateway_env
        .iter()
        .filter(|(name, _)| !name.starts_with("BLOG_ADMIN_") && *name != "BLOG_PORT")
        .cloned()
        .collect();
    not_kept_env.push(("BLOG_PORT", not_kept_addr.port().to_string()));
    not_kept_env.push(("BLOG_ANSWER_CACHE", "false".to_string()));
    let not_kept_log = dir.path().join("gateway-not-kept.log");
    let not_kept = Server::start(&settings.gateway, &not_kept_env, not_kept_addr, &not_kept_log)?;
    let endpoints = endpoints(hello_addr, gateway_addr, not_kept_addr, &seeded.article_ids);
    let warmup = Load { duration: settings.warmup, ..settings.load.clone() };
    for (name, request) in &endpoints {
        eprintln!("  warm-up: {name}");
        // Its figures do not count; a slow endpoint may not even answer within a short warm-up.
        if let Err(error) = run_blocking(settings, request, &warmup).await {
            eprintln!("  warm-up of {name}: {error:#}");
        }
    }
    let mut rows: Vec<Row> = endpoints
        .iter()
        .map(|(name, request)| Row {
            name: name.clone(),
            request: describe(request),
            runs: Vec::new(),
        })
        .collect();
    for round in 1..=settings.rounds {
        for ((name, request), row) in endpoints.iter().zip(&mut rows) {
            let figures = run_blocking(settings, request, &settings.load)
                .await
                .with_context(|| format!("{name}, round {round}"))?;
            eprintln!("  round {round}: {name}: {:.0} requests/s", figures.requests_per_sec);
            row.runs.push(figures);
        }
    }
    let gateway_peak_rss_kib = gateway.peak_rss_kib()?;
    drop((gateway, not_kept, hello));
    Ok(Outcome {
        rows,
        articles: settings.articles,
        seeding: seeded.took,
        settling,
        gateway_peak_rss_kib,
    })
}

async fn run_blocking(settings: &Settings, request: &Request, load: &Load) -> Result<Figures> {
    let (oha, request, load) = (settings.oha.clone(), request.clone(), load.clone());
    tokio::task::spawn_blocking(move || oha::run(&oha, &request, &load)).await?
}
