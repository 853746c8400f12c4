//! The cold-start section of docs/performance.md.

use std::{fmt::Write as _, time::Duration};

use super::{Outcome, Plan};
use crate::doc::{machine, median, today, verdict, wrap};

/// Cold start (poll and first answer) at most this many times the hello world's.
pub const MAX_RATIO: f64 = 1.5;
/// Stripped size limit of the functions without S3.
pub const MAX_SIZE_BYTES: u64 = 10_000_000;
/// Peak RSS limit: half of the 128 MB a function gets, "a wide margin".
pub const MAX_RSS_KIB: u64 = 64 * 1024;

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Median, minimum and maximum in milliseconds of one figure of the runs.
fn spread(outcome: &Outcome, pick: fn(&super::run::Run) -> Duration) -> (f64, f64, f64) {
    let values: Vec<f64> = outcome.runs.iter().map(|r| ms(pick(r))).collect();
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(0.0, f64::max);
    (median(values), min, max)
}

fn first_poll(run: &super::run::Run) -> Duration {
    run.first_poll
}

fn first_response(run: &super::run::Run) -> Duration {
    run.first_response
}

fn first_response_own(run: &super::run::Run) -> Duration {
    run.first_response_own
}

/// The median length of the emulator calls made during exec → answer, in words.
fn per_call(outcomes: &[Outcome]) -> String {
    let calls: Vec<f64> = outcomes
        .iter()
        .flat_map(|o| &o.runs)
        .flat_map(|r| &r.emulator_calls)
        .map(|&d| ms(d))
        .collect();
    match calls.len() {
        0 => "not measured here (no function made a call)".to_string(),
        count => format!("a median of {:.2} ms per call here ({count} calls)", median(calls)),
    }
}

/// Settings of the run, noted in the section.
pub struct Context<'a> {
    pub command: &'a str,
    pub plan: Plan,
    /// Which binary is the baseline.
    pub hello: &'a str,
    /// Which binary is the floor of a function that reads the table: the baseline plus one
    /// SDK call.
    pub floor: &'a str,
    /// How the binaries were built.
    pub build: &'a str,
    /// What `cargo tree -i ring` printed, and what depends on aws-lc-rs.
    pub ring_tree: &'a str,
    pub aws_lc_dependents: &'a str,
}

/// The generated section.
pub fn section(outcomes: &[Outcome], context: &Context) -> String {
    let hello = outcomes.iter().find(|o| o.name == context.hello);
    let (hello_poll, hello_answer, hello_own) = hello
        .map(|h| {
            (spread(h, first_poll).0, spread(h, first_response).0, spread(h, first_response_own).0)
        })
        .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
    let floor_own = outcomes
        .iter()
        .find(|o| o.name == context.floor)
        .map_or(f64::NAN, |f| spread(f, first_response_own).0);
    let Plan { rounds, invocations } = context.plan;
    let mut text = String::from("## Cold start, memory and size of the Lambda functions\n\n");
    text += &wrap(
        &format!(
            "Produced by `{}` on {}, on {}. Binaries: {}.",
            context.command,
            today(),
            machine(),
            context.build
        ),
        "",
    );
    text += "\n";
    text += &wrap(
        &format!(
            "Method: the bench serves a stub of the Lambda Runtime API on 127.0.0.1 and starts \
             each `bootstrap` with a clean environment holding only what Lambda and the \
             template set (`AWS_LAMBDA_RUNTIME_API` pointing at the stub, the function's \
             `BLOG_*` settings with `BLOG_JWT_SECRET` given directly, so no Secrets Manager \
             read is in the figures, static test credentials, the SDK clients on the \
             compiled-in Amazon Trust Services roots as under the template's default \
             `TrustStore=aws`, `SSL_CERT_FILE` naming the system bundle) and an invocation \
             already waiting, the event file named in the table with its placeholders filled in. \
             *exec → poll* is the time from just before `exec` to the function's first `GET \
             /2018-06-01/runtime/invocation/next`, i.e. its initialisation (configuration, AWS \
             SDK clients; the auth function's administrator check runs at its first request, so \
             it counts in the answer); *exec → answer* adds the \
             first invocation (its DynamoDB calls go to DynamoDB Local on this machine, the \
             worker's to moto too). The functions reach DynamoDB Local and moto through a \
             timing proxy in the bench process (one extra loopback hop, counted in the raw \
             figures and in the function's own time); *answer without emulator time* is exec → \
             answer less the emulator time, the union of the intervals from the proxy having a \
             whole request to its having the whole response, within exec → answer. It isolates \
             what the function controls from the emulators' service time, {}. Each run serves \
             {invocations} invocations, then the peak resident set (`VmHWM` of \
             /proc/PID/status) is read and the process killed. After \
             one unmeasured warm-up round, {rounds} rounds each start every binary once in \
             turn; figures are medians (min-max) of the {rounds} runs, peak RSS the largest. \
             Ratios are to the hello-world lambda_http function `{}` (`infra/bench/hello-lambda`, \
             same profile and build command). `{}` (`infra/bench/hello-dynamodb`) is the floor \
             of a function that reads the table: the same hello world on tokio's current-thread \
             runtime, as the functions run, making one `GetItem` per request through \
             aws-sdk-dynamodb on the functions' own SDK configuration, and none of the blog's \
             code. The last ratio compares each answer without emulator time to the floor's: \
             what a function's own code costs beyond one SDK call.",
            per_call(outcomes),
            context.hello,
            context.floor
        ),
        "",
    );
    text += "\n| function | event | exec → poll, ms | ratio | exec → answer, ms | ratio \
             | answer without emulator time, ms | ratio | to the floor | peak RSS, MiB \
             | size, MB | arm64 size, MB | verdicts |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for outcome in outcomes {
        let (poll, poll_min, poll_max) = spread(outcome, first_poll);
        let (answer, answer_min, answer_max) = spread(outcome, first_response);
        let (own, own_min, own_max) = spread(outcome, first_response_own);
        let rss = outcome.runs.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0);
        let (poll_ratio, answer_ratio) = (poll / hello_poll, answer / hello_answer);
        let (own_ratio, floor_ratio) = (own / hello_own, own / floor_own);
        let verdicts = if outcome.name == context.hello {
            "baseline".to_string()
        } else if outcome.name == context.floor {
            "reference: one GetItem".to_string()
        } else {
            let fits = |bytes: u64| verdict(bytes <= MAX_SIZE_BYTES);
            let size = match (outcome.with_s3, outcome.arm64_size_bytes) {
                (true, _) => "size: n/a (S3)".to_string(),
                (false, None) => format!("size: {}", fits(outcome.size_bytes)),
                (false, Some(arm64)) => {
                    format!("size: {} arm64, {} x86_64", fits(arm64), fits(outcome.size_bytes))
                }
            };
            format!(
                "poll: {}, answer: {}, answer (own): {}, RSS: {}, {size}",
                verdict(poll_ratio <= MAX_RATIO),
                verdict(answer_ratio <= MAX_RATIO),
                verdict(own_ratio <= MAX_RATIO),
                verdict(rss <= MAX_RSS_KIB),
            )
        };
        let _ = writeln!(
            text,
            "| `{}` | `{}` | {poll:.2} ({poll_min:.2}-{poll_max:.2}) | {poll_ratio:.2}× | \
             {answer:.2} ({answer_min:.2}-{answer_max:.2}) | {answer_ratio:.2}× | \
             {own:.2} ({own_min:.2}-{own_max:.2}) | {own_ratio:.2}× | {floor_ratio:.2}× | \
             {:.1} | {:.2} | {} | \
             {verdicts} |",
            outcome.name,
            outcome.event_file,
            rss as f64 / 1024.0,
            outcome.size_bytes as f64 / 1e6,
            outcome.arm64_size_bytes.map_or("-".to_string(), |b| format!("{:.2}", b as f64 / 1e6)),
        );
    }
    text += "\n";
    text += &wrap(
        &format!(
            "Targets: exec → poll and exec → answer each at most {MAX_RATIO}× the hello world's; \
             peak RSS at most {} MiB (half of the 128 MB of the smallest Lambda size); stripped \
             size at most {} MB for the functions without S3 (the release profile strips \
             symbols), on arm64 (the template's default architecture, `make package-arm64`) and \
             on x86_64, each judged on its own. `answer (own)` judges the answer without \
             emulator time by the same ratio; the raw `answer` stays the target.",
            MAX_RSS_KIB / 1024,
            MAX_SIZE_BYTES / 1_000_000
        ),
        "",
    );
    text += "\n";
    let ring_linked = context.ring_tree.contains("ring v");
    let ring = if ring_linked {
        "**ring is linked** (`cargo tree -i ring --workspace --all-features --target all` below)"
    } else {
        "ring is in no dependency graph of the workspace (`cargo tree -i ring --workspace \
         --all-features --target all` prints nothing)"
    };
    text += &wrap(
        &format!(
            "One crypto library: {ring}; the AWS SDK's HTTPS client, rustls and jsonwebtoken all \
             use aws-lc-rs (`cargo tree -i aws-lc-rs --workspace -e normal --depth 1`: {}).",
            context.aws_lc_dependents
        ),
        "",
    );
    if ring_linked {
        let _ = write!(text, "\n```text\n{}\n```\n", context.ring_tree.trim());
    }
    text
}
