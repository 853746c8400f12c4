//! `coldstart`: cold start, peak RSS and size of every Lambda function's release `bootstrap`
//! against the hello-world lambda_http function, on DynamoDB Local and moto. `make bench` builds
//! the packages (`make package-x86_64`) and runs it inside `with-emulators.sh`:
//!
//! ```text
//! coldstart --lambda-dir target/lambda/x86_64 --out docs/performance.md
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bench::{
    coldstart::{
        self,
        fixtures::Fixtures,
        proxy::{EmulatorClock, Proxy},
        report, Answer, Plan, Subject,
    },
    doc,
    harness::{ADMIN, JWT_SECRET},
};
use clap::Parser;

/// The command documented as the origin of the figures.
const COMMAND: &str = "make bench-coldstart";

/// Each function, the sample event it is started with, what it answers, whether it has S3.
const FUNCTIONS: &[(&str, &str, Answer, bool)] = &[
    ("auth", "auth/login.json", Answer::Http200, false),
    ("users", "users/get-me.json", Answer::Http200, false),
    ("categories", "categories/tree.json", Answer::Http200, false),
    ("tags", "tags/list.json", Answer::Http200, false),
    ("articles", "articles/detail.json", Answer::Http200, true),
    ("admin-articles", "admin-articles/list.json", Answer::Http200, false),
    ("comments", "comments/tree.json", Answer::Http200, false),
    ("admin-comments", "admin-comments/list.json", Answer::Http200, false),
    ("files", "files/presigned.json", Answer::Http200, true),
    ("ops", "ops/liveness.json", Answer::Http200, true),
    ("worker", "worker/sqs-batch.json", Answer::SqsBatch, true),
    ("outbox-sweep", "outbox-sweep/scheduled.json", Answer::Sweep, false),
];
/// The baseline and its event.
const HELLO: (&str, &str) = ("hello-lambda", "articles/list.json");
/// The floor of a function that reads the table (the baseline plus one GetItem) and its event.
const FLOOR: (&str, &str) = ("hello-dynamodb", "articles/list.json");

/// Cold start, memory and size of the Lambda functions.
#[derive(Parser)]
struct Args {
    /// Directory holding `<function>/bootstrap` (cargo-lambda's `--lambda-dir`).
    #[arg(long, default_value = "target/lambda/x86_64")]
    lambda_dir: PathBuf,
    /// Directory holding the arm64 packages, whose sizes are reported too when present.
    #[arg(long, default_value = "target/lambda/arm64")]
    arm64_dir: PathBuf,
    /// Functions to measure (default: all), comma-separated.
    #[arg(long, value_delimiter = ',')]
    functions: Vec<String>,
    /// Measured rounds (each starts every binary once). At 9, a few slow rounds of a busy
    /// machine could move the hello world's median, and with it every ratio.
    #[arg(long, default_value_t = 15)]
    rounds: usize,
    /// Invocations per run before the peak RSS is read.
    #[arg(long, default_value_t = 5)]
    invocations: usize,
    /// The sample events.
    #[arg(long, default_value = "events")]
    events_dir: PathBuf,
    /// How the binaries were built (noted in the section).
    #[arg(long, default_value = "`make package-x86_64` (cargo-lambda, release profile, x86_64)")]
    build: String,
    /// Markdown file whose cold-start section receives the table.
    #[arg(long)]
    out: Option<PathBuf>,
    /// DynamoDB Local endpoint (`with-emulators.sh` exports it).
    #[arg(long, env = "BLOG_TEST_DYNAMODB_ENDPOINT")]
    endpoint: String,
    /// SQS endpoint of moto (`with-emulators.sh` exports it).
    #[arg(long, env = "BLOG_TEST_SQS_ENDPOINT")]
    sqs_endpoint: String,
    /// S3 endpoint of s3s-fs (`with-emulators.sh` exports it).
    #[arg(long, env = "BLOG_TEST_S3_ENDPOINT", default_value = "http://127.0.0.1:9")]
    s3_endpoint: String,
}

/// The system's CA bundle, as the template names it (Amazon Linux), or as Debian names it.
const CA_BUNDLES: [&str; 2] =
    ["/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/certs/ca-certificates.crt"];

/// Where the functions reach the emulators: DynamoDB Local and moto's SQS through the timing
/// proxies, S3 (the search index's bucket: the worker's event reads and writes it) directly.
struct Endpoints {
    dynamodb: String,
    sqs: String,
    s3: String,
}

/// The environment Lambda and the template give a function (see template.yaml).
fn environment(name: &str, endpoints: &Endpoints, fixtures: &Fixtures) -> Vec<(String, String)> {
    let mut env: Vec<(&str, String)> = vec![
        ("PATH", "/usr/local/bin:/usr/bin:/bin".into()),
        ("TZ", ":UTC".into()),
        ("_HANDLER", "bootstrap".into()),
        ("AWS_LAMBDA_FUNCTION_NAME", name.into()),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".into()),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128".into()),
        ("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}")),
        ("AWS_LAMBDA_LOG_STREAM_NAME", "bench".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_DEFAULT_REGION", "us-east-1".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ("BLOG_STORE", "dynamodb".into()),
        ("BLOG_DYNAMODB_ENDPOINT", endpoints.dynamodb.clone()),
        ("BLOG_TABLE_NAME", fixtures.table_name.clone()),
        ("BLOG_JWT_SECRET", JWT_SECRET.into()),
        ("BLOG_EVENTS_QUEUE_URL", fixtures.queue_url.clone()),
        ("BLOG_SQS_ENDPOINT", endpoints.sqs.clone()),
        ("BLOG_BUCKET_NAME", fixtures.bucket.clone()),
        ("BLOG_S3_ENDPOINT", endpoints.s3.clone()),
    ];
    // As the template: the SDK clients on the compiled-in Amazon roots (TrustStore=aws, the
    // default), the system bundle named for everything else.
    env.push(("BLOG_AWS_TRUST_STORE", "aws".into()));
    if let Some(bundle) = CA_BUNDLES.iter().find(|path| Path::new(path).is_file()) {
        env.push(("SSL_CERT_FILE", bundle.to_string()));
    }
    if name == "ops" {
        // The template hands the ops function its actuator token from Secrets Manager; here a
        // value (a Secrets Manager read at its cold start is not part of the comparison).
        env.push(("BLOG_ACTUATOR_TOKEN", "bench-actuator-token-0123".into()));
    }
    if name == "auth" {
        env.extend([
            ("BLOG_ADMIN_USERNAME", ADMIN.0.into()),
            ("BLOG_ADMIN_PASSWORD", ADMIN.1.into()),
            ("BLOG_ADMIN_EMAIL", ADMIN.2.into()),
        ]);
    }
    env.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Output of a `cargo tree` query (stdout only; "nothing to print" goes to stderr).
fn cargo_tree(args: &[&str]) -> Result<String> {
    let output = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .arg("tree")
        .args(args)
        .output()
        .context("running cargo tree")?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S%3f");
    eprintln!("Seeding the functions' table...");
    let fixtures = Fixtures::seed(
        &args.endpoint,
        &args.sqs_endpoint,
        &args.s3_endpoint,
        &format!("coldstart-{stamp}"),
    )
    .await?;
    // The queue URL stays moto's own: the SQS client sends it in the body, to the proxy.
    let (dynamodb, sqs) =
        (Proxy::start(&args.endpoint).await?, Proxy::start(&args.sqs_endpoint).await?);
    let endpoints = Endpoints {
        dynamodb: dynamodb.address(),
        sqs: sqs.address(),
        s3: args.s3_endpoint.clone(),
    };
    let clock = EmulatorClock::new(vec![dynamodb, sqs]);
    let chosen = FUNCTIONS
        .iter()
        .filter(|(name, ..)| args.functions.is_empty() || args.functions.iter().any(|f| f == name));
    let mut subjects = Vec::new();
    let references =
        [(HELLO.0, HELLO.1, Answer::Http200, false), (FLOOR.0, FLOOR.1, Answer::Http200, false)];
    let all = references.iter().chain(chosen);
    for &(name, event_file, answer, with_s3) in all {
        subjects.push(Subject {
            name: name.to_string(),
            bootstrap: args.lambda_dir.join(name).join("bootstrap"),
            arm64_bootstrap: args.arm64_dir.join(name).join("bootstrap"),
            event_file: format!("events/{event_file}"),
            event: fixtures.event(&args.events_dir.join(event_file))?,
            env: environment(name, &endpoints, &fixtures),
            answer,
            with_s3,
        });
    }
    let logs = tempfile::tempdir()?;
    let plan = Plan { rounds: args.rounds, invocations: args.invocations };
    eprintln!("Measuring {} binaries, {} rounds...", subjects.len(), plan.rounds);
    let outcomes = coldstart::measure(&subjects, plan, &clock, logs.path()).await?;
    let ring_tree =
        cargo_tree(&["-i", "ring", "--workspace", "--all-features", "--target", "all"])?;
    let aws_lc = cargo_tree(&[
        "-i",
        "aws-lc-rs",
        "--workspace",
        "-e",
        "normal",
        "--depth",
        "1",
        "--prefix",
        "none",
    ])?;
    let dependents: Vec<&str> = aws_lc.lines().skip(1).map(str::trim).collect();
    let context = report::Context {
        command: COMMAND,
        plan,
        hello: HELLO.0,
        floor: FLOOR.0,
        build: &args.build,
        ring_tree: &ring_tree,
        aws_lc_dependents: &dependents.join(", "),
    };
    let section = report::section(&outcomes, &context);
    println!("{section}");
    if let Some(out) = &args.out {
        doc::write_section(out, "coldstart", &section)?;
        eprintln!("Wrote the cold-start section to {}", out.display());
    }
    Ok(())
}
