//! The throughput section of docs/performance.md.

use std::fmt::Write as _;

use super::{Outcome, Settings, CEILING, DETAIL};
use crate::doc::{machine, median, thousands, today, verdict, wrap};

/// Article detail must reach at least this share of the ceiling's throughput.
pub const MIN_SHARE: f64 = 0.5;

/// The generated section.
pub fn section(outcome: &Outcome, settings: &Settings, command: &str) -> String {
    let rps = |name: &str| {
        outcome
            .rows
            .iter()
            .find(|row| row.name == name)
            .map(|row| median(row.runs.iter().map(|f| f.requests_per_sec)))
            .unwrap_or(f64::NAN)
    };
    let ceiling = rps(CEILING);
    let share = rps(DETAIL) / ceiling;
    let load = &settings.load;
    let mut text = String::from("## Throughput and latency of the local gateway\n\n");
    text += &wrap(
        &format!(
            "Produced by `{command}` on {}, on {}; load generator oha (pinned in \
             `infra/emulators/install.sh`), the servers and oha sharing the machine's cores.",
            today(),
            machine()
        ),
        "",
    );
    text += "\n";
    text += &wrap(
        &format!(
            "Method: the `blog-gateway` built with the `gateway` profile (`cargo build \
             --profile gateway -p local-gateway`: the release profile at `opt-level = 3`, with \
             mimalloc as its allocator; embedded adapters: SQLite table in a fresh data \
             directory on disk, in-process queue and worker, local embedder) is seeded over \
             HTTP with {} articles (10 categories, 30 tags; each article created then published \
             by the administrator, in {:.0} s), then left until its CPU use stays under 5 % of \
             a core for 2 s ({:.0} s, while its worker computes embeddings and related \
             articles). Each endpoint then gets a {} s warm-up, and {} rounds of `oha -c {} -z \
             {}s` each, the endpoints in turn within a round; the hello-world axum server \
             (`infra/bench/hello-lambda`, binary `hello-axum`, same profile and allocator) \
             answering a fixed JSON body is the ceiling. The gateway keeps the answers of \
             public reads while its table is unchanged (docs/decisions.md, \
             \"Architecture\"); the rows ending in \"answers not kept\" come from a second gateway on the same \
             data directory started with `BLOG_ANSWER_CACHE=false`, whose handlers run on \
             every request. Every answer must be a 200. Figures are medians of the rounds (min-max for the \
             throughput). The gateway's peak RSS over the whole run was {:.0} MiB.",
            thousands(outcome.articles),
            outcome.seeding.as_secs_f64(),
            outcome.settling.as_secs_f64(),
            settings.warmup.as_secs(),
            settings.rounds,
            load.connections,
            load.duration.as_secs(),
            outcome.gateway_peak_rss_kib as f64 / 1024.0,
        ),
        "",
    );
    text += "\n| endpoint | request | requests/s | share of ceiling | p50, ms | p99, ms |\n\
             |---|---|---:|---:|---:|---:|\n";
    for row in &outcome.rows {
        let values: Vec<f64> = row.runs.iter().map(|f| f.requests_per_sec).collect();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(0.0, f64::max);
        let rps = median(values);
        let p50 = median(row.runs.iter().map(|f| f.p50_ms));
        let p99 = median(row.runs.iter().map(|f| f.p99_ms));
        let _ = writeln!(
            text,
            "| {} | `{}` | {rps:.0} ({min:.0}-{max:.0}) | {:.0} % | {p50:.2} | {p99:.2} |",
            row.name,
            row.request,
            rps / ceiling * 100.0
        );
    }
    let _ = write!(
        text,
        "\n| target | measured | verdict |\n|---|---|---|\n| article detail ≥ {:.0} % of the \
         ceiling | {:.0} % | {} |\n",
        MIN_SHARE * 100.0,
        share * 100.0,
        verdict(share >= MIN_SHARE)
    );
    text
}
