//! `blog-smoke`: the post-deploy smoke test of the blog API (see the library's documentation).
//! Exits 0 when every check and the clean-up passed, 1 otherwise, 2 on bad arguments.

use std::{process::ExitCode, time::Duration};

use blog_smoke::Options;
use clap::Parser;

#[derive(Parser)]
#[command(
    about = "Smoke test of a deployed blog API: one line per check, non-zero exit on failure"
)]
struct Cli {
    /// Base URL of the API: the stack's ApiUrl output, or http://127.0.0.1:3000.
    #[arg(long, env = "URL")]
    url: String,
    /// The administrator's user name (AdminUsername in AWS).
    #[arg(long, env = "BLOG_ADMIN_USERNAME")]
    admin_username: String,
    /// The administrator's password (in AWS the value of the AdminPasswordSecret).
    #[arg(long, env = "BLOG_ADMIN_PASSWORD", hide_env_values = true)]
    admin_password: String,
    /// Bearer token of /actuator, when the API has one (ActuatorToken in AWS).
    #[arg(long, env = "BLOG_ACTUATOR_TOKEN", hide_env_values = true)]
    actuator_token: Option<String>,
    /// Limit of each HTTP request, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// How long to wait for the worker's related lists, in seconds.
    #[arg(long, default_value_t = 90)]
    related_timeout: u64,
    /// How long to wait for the actuator's request count to grow, in seconds.
    #[arg(long, default_value_t = 30)]
    metrics_timeout: u64,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let options = Options {
        url: cli.url,
        admin_username: cli.admin_username,
        admin_password: cli.admin_password,
        actuator_token: cli.actuator_token.filter(|token| !token.is_empty()),
        request_timeout: Duration::from_secs(cli.timeout),
        related_timeout: Duration::from_secs(cli.related_timeout),
        metrics_timeout: Duration::from_secs(cli.metrics_timeout),
    };
    println!("[smoke] {}", options.url);
    let started = std::time::Instant::now();
    let passed = blog_smoke::run(&options, &mut std::io::stdout()).await;
    let took = blog_smoke::report::format_duration(started.elapsed());
    if passed {
        println!("[smoke] passed in {took}");
        ExitCode::SUCCESS
    } else {
        println!("[smoke] FAILED after {took}");
        ExitCode::FAILURE
    }
}
