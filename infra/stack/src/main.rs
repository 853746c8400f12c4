//! `blog-stack`: builds the functions (debug, one cargo invocation), serves the stack
//! template.yaml describes (`make stack`), invokes its functions with a sample event (`make
//! invoke`), and writes the IAM report.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Stdio,
    sync::Arc,
    time::Duration,
};

use anyhow::{bail, Context, Result};
use blog_stack::{
    clients::Emulators, invoke, invoke_api, report, serving, template::Template, Stack,
    StackOptions,
};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "The stack as template.yaml deploys it, on this machine")]
struct Cli {
    /// The repository root.
    #[arg(long, default_value = ".")]
    workspace: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build every function of the template into target/stack/<binary>/bootstrap (debug
    /// profile), in one cargo invocation with the features of the functions together.
    Build {
        /// With the test build's features instead (`cargo build --workspace --bins --tests
        /// --benches --all-features`, which also builds every other binary of the workspace):
        /// after that build (`make test`), only the binaries compile. The functions then also
        /// hold the test helpers (`test-support`) and the adapters no function configures.
        #[arg(long)]
        test_features: bool,
    },
    /// Serve the stack on BLOG_HOST:BLOG_PORT until Ctrl-C (needs the emulators:
    /// infra/emulators/with-emulators.sh).
    Serve {
        /// A parameter value, `Name=Value` (repeatable); the others keep their defaults.
        #[arg(long = "parameter", value_parser = parse_pair)]
        parameters: Vec<(String, String)>,
        /// Run every schedule this often, in seconds, instead of its rate.
        #[arg(long, env = "BLOG_STACK_SCHEDULE_SECONDS")]
        schedule_seconds: Option<u64>,
        /// Instances a function may run at once.
        #[arg(long, default_value_t = 4)]
        max_instances: usize,
        /// The Lambda Invoke API's port on 127.0.0.1 and ::1 (0: a free one); by default 9000,
        /// cargo-lambda's, or a free one when that is taken.
        #[arg(long, env = "BLOG_STACK_INVOKE_PORT")]
        invoke_port: Option<u16>,
        /// Where to write the serving file `blog-stack invoke` reads (relative to the
        /// workspace).
        #[arg(long, env = "BLOG_STACK_SERVING_FILE", default_value = serving::DEFAULT_PATH)]
        serving_file: PathBuf,
        /// Use the resources the request files of this folder name, created beforehand, instead
        /// of creating the template's (`make localstack`: infra/localstack/resources, which
        /// LocalStack's ready hook creates).
        #[arg(long)]
        existing: Option<PathBuf>,
    },
    /// Invoke a function of the running stack with an event, its placeholders rendered first,
    /// through cargo-lambda (`make invoke`); exit status 2 when a placeholder has no value.
    Invoke(invoke::InvokeArgs),
    /// Write docs/iam.md from the rows the stack tests saved.
    IamReport {
        /// Where the tests saved their rows.
        #[arg(long, default_value = "target/stack/iam")]
        rows: PathBuf,
        /// The document to write.
        #[arg(long, default_value = "docs/iam.md")]
        out: PathBuf,
    },
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| format!("{text} is not Name=Value"))
}

#[tokio::main]
async fn main() -> Result<()> {
    let cli = Cli::parse();
    let workspace = std::fs::canonicalize(&cli.workspace)?;
    let template = Template::load(&workspace.join("template.yaml"))?;
    match cli.command {
        Command::Build { test_features } => build(&workspace, &template, test_features),
        Command::Serve {
            parameters,
            schedule_seconds,
            max_instances,
            invoke_port,
            serving_file,
            existing,
        } => {
            let serving_file = workspace.join(serving_file);
            let existing = match existing {
                Some(dir) => blog_stack::existing::localstack_names(&workspace.join(dir))?,
                None => BTreeMap::new(),
            };
            let ports = (invoke_port, serving_file);
            serve(workspace, parameters, schedule_seconds, max_instances, ports, existing).await
        }
        Command::Invoke(args) => std::process::exit(invoke::run(&workspace, &args).await?),
        Command::IamReport { rows, out } => {
            let rows = report::load_rows(&workspace.join(rows))?;
            let text = report::render(&template, &rows, "make iam-report")?;
            std::fs::write(workspace.join(&out), text)?;
            println!("[stack] wrote {} ({} rows)", out.display(), rows.len());
            Ok(())
        }
    }
}

/// Builds every function of the template in one cargo invocation, then copies each executable
/// to target/stack/<binary>/bootstrap. The library crates are compiled once, with the features
/// of all the functions together (each binary links only what its `main` reaches; the adapters
/// a function never constructs are the only difference from its own package, docs/testing.md),
/// or with the test build's features (`test_features`), which reuses what that build compiled.
fn build(workspace: &Path, template: &Template, test_features: bool) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut binaries: Vec<String> = template.functions()?.into_iter().map(|f| f.binary).collect();
    binaries.sort();
    binaries.dedup();
    let started = std::time::Instant::now();
    let mut command = std::process::Command::new(&cargo);
    command.args(["build", "--message-format=json-render-diagnostics"]);
    if test_features {
        command.args(["--workspace", "--bins", "--tests", "--benches", "--all-features"]);
    } else {
        command.arg("--bins");
        for binary in &binaries {
            command.args(["-p", binary]);
        }
    }
    let output = command
        .current_dir(workspace)
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo build of the functions")?;
    if !output.status.success() {
        bail!("cargo build of the functions failed");
    }
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .filter(|message: &serde_json::Value| message["reason"] == "compiler-artifact")
        .collect();
    for binary in &binaries {
        let executable = messages
            .iter()
            .filter(|message| message["target"]["name"] == binary.as_str())
            .filter(|message| message["target"]["kind"][0] == "bin")
            .filter(|message| message["profile"]["test"] == false)
            .find_map(|message| message["executable"].as_str().map(PathBuf::from))
            .with_context(|| format!("cargo built no executable {binary}"))?;
        let target = workspace.join("target/stack").join(binary);
        std::fs::create_dir_all(&target)?;
        std::fs::copy(&executable, target.join("bootstrap"))
            .with_context(|| format!("copying {}", executable.display()))?;
    }
    println!("[stack] built {} functions in {:.0?}", binaries.len(), started.elapsed());
    Ok(())
}

async fn serve(
    workspace: PathBuf,
    parameters: Vec<(String, String)>,
    schedule_seconds: Option<u64>,
    max_instances: usize,
    (invoke_port, serving_file): (Option<u16>, PathBuf),
    existing: BTreeMap<String, String>,
) -> Result<()> {
    let host = std::env::var("BLOG_HOST").unwrap_or_else(|_| "127.0.0.1".into());
    let port = std::env::var("BLOG_PORT").unwrap_or_else(|_| "3000".into());
    let listen: SocketAddr = format!("{host}:{port}").parse().context("BLOG_HOST/BLOG_PORT")?;
    let mut overrides: BTreeMap<String, String> = parameters.into_iter().collect();
    let mut secret_values = BTreeMap::new();
    // The administrator of `make dev`: the same BLOG_ADMIN_* variables, as the template's
    // parameters and the value of its generated password secret.
    if let (Ok(username), Ok(email)) =
        (std::env::var("BLOG_ADMIN_USERNAME"), std::env::var("BLOG_ADMIN_EMAIL"))
    {
        overrides.entry("AdminUsername".into()).or_insert(username);
        overrides.entry("AdminEmail".into()).or_insert(email);
        if let Ok(password) = std::env::var("BLOG_ADMIN_PASSWORD") {
            secret_values.insert("AdminPasswordSecret".to_string(), password);
        }
    }
    // The actuator's token, as the ActuatorToken parameter would give it (else generated).
    if let Ok(token) = std::env::var("BLOG_ACTUATOR_TOKEN") {
        secret_values.insert("ActuatorTokenSecret".to_string(), token);
    }
    let name = format!("blog-{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
    let options = StackOptions {
        template: workspace.join("template.yaml"),
        functions_dir: workspace.join("target/stack"),
        state_dir: workspace.join("target/stack/run").join(&name),
        workspace,
        name,
        parameters: overrides,
        secret_values,
        listen,
        schedule_period: schedule_seconds.map(Duration::from_secs),
        visibility_timeout: None,
        existing,
        event_sources_enabled: true,
        max_instances,
        aws_latency: Duration::ZERO,
        echo: true,
        emulators: Emulators::from_env()?,
    };
    // Bound first: the ports the stack draws for its processes are never the Invoke API's.
    let invoke = invoke_api::bind(invoke_port).await?;
    let stack = Arc::new(Stack::start(options).await?);
    println!("[stack] serving the API on {} through the function binaries", stack.url());
    for (logical_id, binary) in stack.function_names() {
        println!("[stack]   {logical_id:22} target/stack/{binary}/bootstrap");
    }
    for (logical_id, kind) in stack.not_emulated() {
        println!("[stack]   not emulated: {logical_id} ({kind})");
    }
    let token_file = stack.options().state_dir.join("actuator-token");
    write_private(&token_file, &stack.secret_value("ActuatorTokenSecret").await?)?;
    println!(
        "[stack] /actuator (but its probes) needs `Authorization: Bearer <token>`: the token is in \
         {} (BLOG_ACTUATOR_TOKEN chooses it)",
        token_file.display()
    );
    let invoke_port = invoke.port();
    if let Some(note) = &invoke.note {
        println!("[stack] {note}");
    }
    println!(
        "[stack] the Lambda Invoke API on port {invoke_port} of {}: `cargo lambda invoke \
         --invoke-address 127.0.0.1 --invoke-port {invoke_port} <binary> --data-file <event>`, \
         or `make invoke FUNCTION=<binary> EVENT=<event>` (placeholders rendered)",
        invoke.addresses().join(", ")
    );
    invoke_api::serve(invoke, &stack);
    let serving = serving::Serving {
        url: stack.url().to_string(),
        invoke_port,
        actuator_token_file: token_file,
        pid: std::process::id(),
    };
    serving.write(&serving_file)?;
    println!(
        "[stack] function logs in {}; Ctrl-C stops everything",
        stack.options().state_dir.display()
    );
    tokio::signal::ctrl_c().await?;
    let violations = stack.iam_violations();
    for violation in &violations {
        eprintln!("[stack] IAM: {violation}");
    }
    serving::Serving::remove_if_own(&serving_file, serving.pid);
    println!("[stack] stopped ({} AWS actions the template does not grant)", violations.len());
    Ok(())
}

/// Writes `contents` to a new file only its owner can read.
fn write_private(path: &std::path::Path, contents: &str) -> Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    file.write_all(contents.as_bytes())?;
    Ok(())
}
