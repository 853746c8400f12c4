//! `capacity`: DynamoDB calls and consumed capacity, SQS sends and embeddings per endpoint, on
//! DynamoDB Local and moto, at several numbers of published articles. `make bench` runs it
//! inside `with-emulators.sh`:
//!
//! ```text
//! capacity --articles 1000,10000 --out docs/performance.md
//! ```
//!
//! For each size: a fresh table, seeded (taxonomy through the admin API, articles through
//! `store::save`), then every endpoint measured through the gateway's router (the comment trees
//! on three of them, `bench::comments`); a Markdown table
//! per size goes to stdout and, with `--out`, into its section of that file.

use std::{path::PathBuf, time::Instant};

use anyhow::{Context, Result};
use bench::{corpus::Corpus, doc, harness::Harness, measure, report, report::SizeReport, seed};
use blog_api::ports::events::sqs::SqsQueue;
use clap::Parser;

/// The command documented as the origin of the figures.
const COMMAND: &str = "make bench-capacity";

/// DynamoDB calls and capacity per endpoint at several corpus sizes.
#[derive(Parser)]
struct Args {
    /// Numbers of published articles to measure at, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1000, 10000])]
    articles: Vec<usize>,
    /// Markdown file whose capacity section receives the tables.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Articles written at a time while seeding.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// DynamoDB Local endpoint (`with-emulators.sh` exports it).
    #[arg(long, env = "BLOG_TEST_DYNAMODB_ENDPOINT")]
    endpoint: String,
    /// SQS endpoint of moto (`with-emulators.sh` exports it).
    #[arg(long, env = "BLOG_TEST_SQS_ENDPOINT")]
    sqs_endpoint: String,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    let mut reports = Vec::new();
    for &articles in &args.articles {
        let report = measure_size(&args, articles)
            .await
            .with_context(|| format!("benchmark at {articles} articles"))?;
        println!(
            "\n### {} published articles (seeded in {:.1} s)\n\n{}",
            doc::thousands(articles),
            report.seeding.as_secs_f64(),
            report::table(&report.measurements)
        );
        reports.push(report);
    }
    let total = started.elapsed();
    println!("Total bench time: {:.1} s", total.as_secs_f64());
    if let Some(out) = &args.out {
        doc::write_section(out, "capacity", &report::section(&reports, COMMAND, total))?;
        println!("Wrote the tables to {}", out.display());
    }
    Ok(())
}

/// Seeds a fresh table with `articles` published articles and measures every endpoint.
async fn measure_size(args: &Args, articles: usize) -> Result<SizeReport> {
    let corpus = Corpus::generate(articles);
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S%3f");
    let name = format!("bench-{articles}-{stamp}");
    let sqs = SqsQueue::connect_for_tests(&args.sqs_endpoint, &name).await?;
    let harness = Harness::dynamodb(&args.endpoint, &name, sqs).await?;
    let (token, admin_id) = harness.admin_login().await?;
    eprintln!("Seeding {articles} articles...");
    let seeder = seed::Seeder { token: &token, author: admin_id, concurrency: args.concurrency };
    let seeded = seed::seed(&harness, &corpus, &seeder).await?;
    eprintln!(
        "Seeded {} articles in {:.1} s; measuring...",
        seeded.article_ids.len(),
        seeded.articles_time.as_secs_f64()
    );
    let mut measurements = measure::reads(&harness, &corpus, &seeded).await?;
    measurements.extend(measure::writes(&harness, &corpus, &seeded, &token).await?);
    let commented = &seeded.article_ids[..5.min(seeded.article_ids.len())];
    measurements.extend(bench::comments::measure(&harness, commented, &token).await?);
    let pinned = corpus.articles.iter().filter(|a| a.is_top).count();
    Ok(SizeReport {
        articles,
        seeding: seeded.articles_time,
        corpus_note: format!(
            "{pinned} of them pinned (`isTop`). The filter rows use the category and the tag with \
             the most articles; the keyword rows the most frequent topic word and the least \
             frequent rare word."
        ),
        measurements,
    })
}
