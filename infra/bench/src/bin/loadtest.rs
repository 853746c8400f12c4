//! `loadtest`: throughput and latency of the local gateway (`gateway` profile) on the embedded
//! adapters under oha, against a hello-world axum server as the ceiling. `make bench` builds
//! both and runs it:
//!
//! ```text
//! loadtest --gateway target/package/gateway/blog-gateway \
//!   --hello target/package/gateway/hello-axum --oha .tools/cargo/bin/oha --out docs/performance.md
//! ```

use std::{path::PathBuf, time::Duration};

use anyhow::Result;
use bench::{
    doc,
    load::{self, oha::Load, report, Settings},
};
use clap::Parser;

/// The command documented as the origin of the figures.
const COMMAND: &str = "make bench-load";

/// Throughput and latency of the local gateway.
#[derive(Parser)]
struct Args {
    /// The gateway binary (`gateway` profile).
    #[arg(long, default_value = "target/package/gateway/blog-gateway")]
    gateway: PathBuf,
    /// The hello-world axum server (`gateway` profile).
    #[arg(long, default_value = "target/package/gateway/hello-axum")]
    hello: PathBuf,
    /// The load generator.
    #[arg(long, default_value = ".tools/cargo/bin/oha")]
    oha: PathBuf,
    /// Articles seeded over HTTP before the measurement.
    #[arg(long, default_value_t = 1000)]
    articles: usize,
    /// Rounds (each loads every endpoint once).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Concurrent connections.
    #[arg(long, default_value_t = 50)]
    connections: usize,
    /// Seconds per run.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Seconds of warm-up per endpoint.
    #[arg(long, default_value_t = 3)]
    warmup: u64,
    /// The gateway's data directory, kept afterwards for a closer look (default: a temporary
    /// one). It must not hold data yet.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Markdown file whose throughput section receives the table.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let settings = Settings {
        gateway: args.gateway,
        hello: args.hello,
        oha: args.oha,
        articles: args.articles,
        rounds: args.rounds,
        load: Load { connections: args.connections, duration: Duration::from_secs(args.seconds) },
        warmup: Duration::from_secs(args.warmup),
        data_dir: args.data_dir,
    };
    let outcome = load::measure(&settings).await?;
    let section = report::section(&outcome, &settings, COMMAND);
    println!("{section}");
    if let Some(out) = &args.out {
        doc::write_section(out, "load", &section)?;
        eprintln!("Wrote the throughput section to {}", out.display());
    }
    Ok(())
}
