//! `blog-stack invoke` (`make invoke`): a sample event of `events/` sent to a function of the
//! running stack with `cargo lambda invoke` (cargo-lambda from `.tools/venv`, as `make
//! emulator-tools` installs it) through the stack's Invoke API ([`crate::invoke_api`]), its
//! placeholders rendered first ([`crate::render`]): each from the variable of its name when
//! set, else the tokens by logins through the stack's API and the actuator's token from the
//! file the stack wrote; an id only a variable gives. A placeholder left without a value
//! stops it before anything is asked of the stack (exit status 2). The stack is found by the
//! serving file it wrote ([`crate::serving`]), unless `--url` and `--invoke-port` say where.

use std::{
    collections::BTreeMap,
    net::{Ipv4Addr, SocketAddr, TcpStream},
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::{Context, Result};
use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::{
    client::legacy::{connect::HttpConnector, Client},
    rt::TokioExecutor,
};
use serde_json::{json, Value};

use crate::{
    invoke_api::DEFAULT_PORT,
    render::{self, Source, Unfilled},
    serving::{self, Serving},
};

/// The exit status when a placeholder has no value (nothing was invoked).
pub const UNFILLED_STATUS: i32 = 2;

/// How long a login through the API may take.
const LOGIN_LIMIT: Duration = Duration::from_secs(60);

/// What to invoke, and where.
#[derive(clap::Args, Clone, Debug)]
pub struct InvokeArgs {
    /// The function: its binary (`users`) or its logical id (`UsersFunction`).
    pub function: String,
    /// The event, e.g. `events/users/get-me.json`.
    pub event: PathBuf,
    /// The stack's API, for the logins (default: the serving file's, else
    /// http://127.0.0.1:3000).
    #[arg(long)]
    pub url: Option<String>,
    /// The port of the stack's Invoke API on 127.0.0.1 (default: the serving file's, else 9000).
    #[arg(long, env = "BLOG_STACK_INVOKE_PORT")]
    pub invoke_port: Option<u16>,
    /// The serving file of the running stack (relative to the workspace).
    #[arg(long, env = "BLOG_STACK_SERVING_FILE", default_value = serving::DEFAULT_PATH)]
    pub serving_file: PathBuf,
}

/// Renders the event and invokes the function with cargo-lambda, which prints the answer:
/// its exit status, [`UNFILLED_STATUS`], or 1 when no stack serves (said why).
pub async fn run(workspace: &Path, args: &InvokeArgs) -> Result<i32> {
    let text = std::fs::read_to_string(&args.event)
        .with_context(|| format!("reading {}", args.event.display()))?;
    let wanted = render::placeholders(&text);
    let mut values: BTreeMap<String, String> = wanted
        .iter()
        .filter_map(|name| {
            Some((name.clone(), std::env::var(name).ok().filter(|v| !v.is_empty())?))
        })
        .collect();
    // Those only a variable gives are refused before the stack is asked for anything.
    let given_only: Vec<String> = wanted
        .iter()
        .filter(|name| !values.contains_key(*name))
        .filter(|name| matches!(render::source(name), Some(Source::Given(_)) | None))
        .cloned()
        .collect();
    if !given_only.is_empty() {
        return Ok(refuse(&args.event, &Unfilled(given_only)));
    }
    let Some(target) = Target::locate(workspace, args)? else {
        return Ok(1);
    };
    target.fill(workspace, &wanted, &mut values).await?;
    let rendered = match render::render_event(&text, &values) {
        Ok(rendered) => rendered,
        Err(unfilled) => return Ok(refuse(&args.event, &unfilled)),
    };
    let file = rendered_path(workspace, &args.event);
    write_private(&file, &rendered)?;
    let program = crate::runtime_api::cargo_lambda(workspace)?;
    let port = target.invoke_port.to_string();
    let mut command = std::process::Command::new(&program);
    command.args(["lambda", "invoke", "--invoke-address", "127.0.0.1", "--invoke-port", &port]);
    command.arg(&args.function).arg("--data-file").arg(&file);
    let shown = |path: &Path| path.strip_prefix(workspace).unwrap_or(path).display().to_string();
    eprintln!(
        "[invoke] {} lambda invoke --invoke-address 127.0.0.1 --invoke-port {port} {} \
         --data-file {}",
        shown(&program),
        args.function,
        shown(&file)
    );
    let status = command.status().with_context(|| format!("running {}", program.display()))?;
    Ok(status.code().unwrap_or(1))
}

fn refuse(event: &Path, unfilled: &Unfilled) -> i32 {
    eprintln!(
        "[invoke] {}: placeholders without a value (nothing was invoked):\n{unfilled}",
        event.display()
    );
    UNFILLED_STATUS
}

/// The running stack.
struct Target {
    url: String,
    invoke_port: u16,
    actuator_token_file: Option<PathBuf>,
}

impl Target {
    /// The stack the arguments and the serving file name, once its Invoke API answers; `None`
    /// (said why) when none does.
    fn locate(workspace: &Path, args: &InvokeArgs) -> Result<Option<Self>> {
        let file = workspace.join(&args.serving_file);
        let serving = Serving::read(&file)?;
        let invoke_port = args.invoke_port.filter(|port| *port != 0);
        let invoke_port =
            invoke_port.or(serving.as_ref().map(|s| s.invoke_port)).unwrap_or(DEFAULT_PORT);
        // The serving file's token is the stack's only when it is the stack invoked.
        let serving = serving.filter(|s| s.invoke_port == invoke_port);
        let url = args.url.clone().or(serving.as_ref().map(|s| s.url.clone()));
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, invoke_port));
        if TcpStream::connect_timeout(&address, Duration::from_secs(2)).is_err() {
            let why = match Serving::read(&file)? {
                Some(_) => format!("{} is left from a stack that stopped", file.display()),
                None => format!("no {}", file.display()),
            };
            eprintln!(
                "[invoke] no stack serves the Lambda Invoke API on {address} ({why}): start \
                 `make stack` first (or give INVOKE_PORT= and URL= of a running one)"
            );
            return Ok(None);
        }
        Ok(Some(Self {
            url: url.unwrap_or_else(|| "http://127.0.0.1:3000".into()),
            invoke_port,
            actuator_token_file: serving.map(|s| s.actuator_token_file),
        }))
    }

    /// Fills the `wanted` placeholders no variable gave that the stack can answer.
    async fn fill(
        &self,
        workspace: &Path,
        wanted: &std::collections::BTreeSet<String>,
        values: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        let needs = |source: Source, values: &BTreeMap<String, String>| {
            let unfilled = |name: &&String| !values.contains_key(*name);
            wanted.iter().filter(unfilled).any(|name| render::source(name) == Some(source))
        };
        let api = Api::new(&self.url);
        if needs(Source::Administrator, values) {
            let username = variable("BLOG_ADMIN_USERNAME", "admin");
            let password = variable("BLOG_ADMIN_PASSWORD", "Admin12345");
            let body = json!({"username": username, "password": password}).to_string();
            let (status, login) = api.post("/api/v1/auth/login", body).await?;
            let token = login["data"]["token"].as_str().with_context(|| {
                format!(
                    "the administrator's login as {username} answered {status} {login}: \
                     BLOG_ADMIN_USERNAME and BLOG_ADMIN_PASSWORD are the stack's administrator"
                )
            })?;
            values.entry("ADMIN_TOKEN".into()).or_insert_with(|| token.into());
        }
        if needs(Source::SampleUser, values) {
            // A second registration answers 400 (the name is taken): the login tells.
            let register = sample_body(workspace, "auth/register.json")?;
            let (_, registered) = api.post("/api/v1/auth/register", register).await?;
            let (status, login) =
                api.post("/api/v1/auth/login", sample_body(workspace, "auth/login.json")?).await?;
            let data = &login["data"];
            let token = data["token"].as_str().with_context(|| {
                format!(
                    "event_user's login answered {status} {login} (its registration: \
                     {registered}; users/update-user.json disables it, users/delete-user.json \
                     deletes it)"
                )
            })?;
            let id = match &data["user"]["id"] {
                Value::String(id) => id.clone(),
                other => other.to_string(),
            };
            values.entry("USER_TOKEN".into()).or_insert_with(|| token.into());
            values.entry("USER_ID".into()).or_insert(id);
        }
        if needs(Source::Actuator, values) {
            let token = self
                .actuator_token_file
                .as_ref()
                .and_then(|file| std::fs::read_to_string(workspace.join(file)).ok());
            if let Some(token) = token {
                values.insert("ACTUATOR_TOKEN".into(), token.trim().to_string());
            }
        }
        Ok(())
    }
}

fn variable(name: &str, default: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.into())
}

/// The `body` of the sample `file` of `events/`.
fn sample_body(workspace: &Path, file: &str) -> Result<String> {
    let path = workspace.join("events").join(file);
    let sample: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
        .with_context(|| format!("reading {}", path.display()))?;
    sample["body"].as_str().map(String::from).with_context(|| format!("{file} has no body"))
}

/// Where the rendered `event` goes: target/stack/invoke/, under its path in `events/`.
fn rendered_path(workspace: &Path, event: &Path) -> PathBuf {
    let events = workspace.join("events");
    let absolute = std::fs::canonicalize(event).unwrap_or_else(|_| event.to_path_buf());
    let relative = absolute.strip_prefix(&events).map(Path::to_path_buf);
    let relative = relative.unwrap_or_else(|_| event.file_name().unwrap_or_default().into());
    workspace.join("target/stack/invoke").join(relative)
}

/// Writes `contents` to a file only its owner can read (a rendered event holds tokens), whole
/// or not at all.
fn write_private(path: &Path, contents: &str) -> Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension(format!("{}.partial", std::process::id()));
    let _ = std::fs::remove_file(&partial);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        .with_context(|| format!("writing {}", partial.display()))?;
    file.write_all(contents.as_bytes())?;
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))
}

/// The stack's API, for the logins.
struct Api {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

impl Api {
    fn new(base: &str) -> Self {
        let base = base.trim_end_matches('/').to_string();
        Self { client: Client::builder(TokioExecutor::new()).build_http(), base }
    }

    /// POSTs the JSON `body` to `path`: the answer's status and body (`null` when not JSON).
    async fn post(&self, path: &str, body: String) -> Result<(u16, Value)> {
        let url = format!("{}{path}", self.base);
        let request = axum::http::Request::post(&url)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))?;
        let answer = async {
            let response = self.client.request(request).await?;
            let status = response.status().as_u16();
            let body = response.into_body().collect().await?.to_bytes();
            Ok::<_, anyhow::Error>((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
        };
        tokio::time::timeout(LOGIN_LIMIT, answer)
            .await
            .with_context(|| format!("POST {url}: no answer within {LOGIN_LIMIT:?}"))?
            .with_context(|| format!("POST {url} (the stack's API)"))
    }
}
