//! The functions as Lambda runs them: each is its built `bootstrap`, started as a separate
//! process with the environment the template gives it, polling cargo-lambda's Lambda Runtime
//! API emulator (`cargo lambda watch --only-lambda-apis`) for invocations. An instance starts
//! on the first invocation that finds every running one busy (up to a maximum), as Lambda
//! scales; an instance that exits is replaced on the next invocation; an invocation that timed
//! out (or that no instance took) recycles the function's instances, as Lambda ends the one
//! that timed out. The timeout runs from the moment an instance takes the invocation (see
//! [`crate::pickup`]).

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use anyhow::{bail, Context, Result};
use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::{
    client::legacy::{connect::HttpConnector, Client},
    rt::TokioExecutor,
};
use std::{
    io::{BufRead, BufReader, Read},
    os::unix::process::CommandExt,
    process::{Child, Command},
};

use crate::{
    lock,
    logs::Logs,
    pickup::{self, Pickups},
};

/// How long an invocation may wait for an instance to take it (starting one, or for a busy one
/// among the few the stack runs at once) before it fails: a bound on a hang, not Lambda's.
pub const PICKUP_LIMIT: Duration = Duration::from_secs(60);

/// The Lambda Runtime API emulator: `cargo lambda watch --only-lambda-apis`; it stops when
/// dropped.
pub struct RuntimeApi {
    port: u16,
    child: Child,
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RuntimeApi {
    /// Starts cargo-lambda's emulator from `workspace` (it reads the workspace's binaries) on a
    /// free port of 127.0.0.1; its own output goes to `log`.
    pub async fn start(workspace: &Path, log: &Path) -> Result<Self> {
        let program = cargo_lambda(workspace)?;
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port()?;
            let output = std::fs::File::create(log)
                .with_context(|| format!("creating {}", log.display()))?;
            let mut command = Command::new(&program);
            command
                .args(["lambda", "watch", "--only-lambda-apis", "--invoke-address", "127.0.0.1"])
                .args(["--invoke-port", &port.to_string()])
                .current_dir(workspace)
                .stdin(Stdio::null())
                .stdout(output.try_clone()?)
                .stderr(output);
            let mut child = spawn_tied(command)?;
            match wait_for_port(port, &mut child).await {
                Ok(()) => return Ok(Self { port, child }),
                Err(error) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = Some(error);
                }
            }
        }
        let tail = std::fs::read_to_string(log).unwrap_or_default();
        Err(last_error.expect("three attempts")).context(format!("cargo lambda watch: {tail}"))
    }

    /// `host:port` of the emulator.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }
}

/// `cargo-lambda` from `.tools/venv` (where `make tools` pins it), else from the `PATH`.
fn cargo_lambda(workspace: &Path) -> Result<PathBuf> {
    let pinned = workspace.join(".tools/venv/bin/cargo-lambda");
    if pinned.exists() {
        return Ok(pinned);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("cargo-lambda"))
        .find(|candidate| candidate.exists())
        .context("cargo-lambda not found: run `make tools` (it pins it into .tools/venv)")
}

/// A free port of 127.0.0.1 (free when asked; the caller binds it soon after).
pub fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

async fn wait_for_port(port: u16, child: &mut Child) -> Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("exited with {status}");
        }
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            bail!("nothing listens on port {port} after 30 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Spawns `command` so that the child dies with the thread that started it (a worker thread
/// of the stack's runtime, which lives as long as the stack).
pub fn spawn_tied(mut command: Command) -> Result<Child> {
    // SAFETY: prctl is async-signal-safe; it asks the kernel to kill the child when the
    // thread that forked it ends (the runtime's worker thread, which lives as long as the
    // stack).
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command.spawn().context("starting a process")
}

/// How a function runs: its `bootstrap`, environment, limits.
#[derive(Clone, Debug)]
pub struct FunctionConfig {
    /// Logical id in the template.
    pub logical_id: String,
    /// Workspace binary (the Runtime API emulator's function name).
    pub binary: String,
    /// The `bootstrap` to run.
    pub bootstrap: PathBuf,
    /// The environment of every instance, except the per-instance runtime variables.
    pub environment: Vec<(String, String)>,
    /// `Timeout`.
    pub timeout: Duration,
    /// Instances it may run at once.
    pub max_instances: usize,
}

/// What an invocation returned.
#[derive(Debug)]
pub enum Outcome {
    /// The function answered (its response payload).
    Answered(Bytes),
    /// The function reported an error (its error payload).
    Failed(Bytes),
}

/// Why an invocation got no outcome.
#[derive(Debug, thiserror::Error)]
pub enum InvokeError {
    /// No answer within the function's timeout.
    #[error("Task timed out after {:.2} seconds", .0.as_secs_f64())]
    TimedOut(Duration),
    /// No instance took the invocation within [`PICKUP_LIMIT`].
    #[error("no instance took the invocation within {} seconds", .0.as_secs())]
    NotTaken(Duration),
    /// Every instance exited without answering (an initialisation failure).
    #[error("Runtime exited: {0}")]
    Exited(String),
    /// The emulator could not be reached.
    #[error("the Runtime API emulator failed: {0}")]
    Runtime(String),
}

/// One function and its running instances.
pub struct Function {
    config: Mutex<FunctionConfig>,
    runtime: SocketAddr,
    relay: SocketAddr,
    pickups: Arc<Pickups>,
    pool: Arc<Mutex<Pool>>,
    logs: Logs,
    client: Client<HttpConnector, Full<Bytes>>,
}

#[derive(Default)]
struct Pool {
    instances: Vec<Instance>,
    in_flight: usize,
    started: u64,
    last_exit: Option<String>,
}

struct Instance {
    alive: Arc<AtomicBool>,
    pid: u32,
}

impl Instance {
    /// Ends the process (Lambda does not wait for anything of an instance it recycles).
    fn stop(&self) {
        if self.alive.load(Ordering::SeqCst) {
            // SAFETY: kill(2) on the pid of a child this stack started and has not reaped: the
            // watcher thread reaps it only after it has exited.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}

impl Pool {
    fn live(&self) -> usize {
        self.instances.iter().filter(|i| i.alive.load(Ordering::SeqCst)).count()
    }
}

impl Function {
    /// A function served through the emulator at `runtime` (its instances reach it through a
    /// relay of their own); its instances log into `logs`.
    pub async fn start(config: FunctionConfig, runtime: SocketAddr, logs: Logs) -> Result<Self> {
        let pickups = Arc::new(Pickups::default());
        let relay = pickup::start(runtime, pickups.clone(), config.timeout).await?;
        Ok(Self {
            config: Mutex::new(config),
            runtime,
            relay,
            pickups,
            pool: Arc::default(),
            logs,
            client: Client::builder(TokioExecutor::new()).build_http(),
        })
    }

    /// Its configuration.
    pub fn config(&self) -> FunctionConfig {
        lock(&self.config).clone()
    }

    /// Its instances' output.
    pub fn logs(&self) -> &Logs {
        &self.logs
    }

    /// Instances started so far (cold starts).
    pub fn cold_starts(&self) -> u64 {
        lock(&self.pool).started
    }

    /// Replaces the environment; running instances are recycled, so new invocations run on
    /// instances with the new one (as after a deployment).
    pub fn set_environment(&self, environment: Vec<(String, String)>) {
        lock(&self.config).environment = environment;
        self.recycle();
    }

    /// Ends every instance; the next invocation starts a new one.
    pub fn recycle(&self) {
        let mut pool = lock(&self.pool);
        for instance in &pool.instances {
            instance.stop();
        }
        pool.instances.clear();
    }

    /// Invokes the function with `payload`, starting an instance when every running one is
    /// busy.
    pub async fn invoke(&self, payload: Bytes) -> Result<Outcome, InvokeError> {
        let config = self.config();
        {
            let mut pool = lock(&self.pool);
            pool.instances.retain(|i| i.alive.load(Ordering::SeqCst));
            pool.in_flight += 1;
            if pool.in_flight > pool.instances.len() && pool.instances.len() < config.max_instances
            {
                match self.start_instance(&config, &mut pool) {
                    Ok(instance) => pool.instances.push(instance),
                    Err(error) => pool.last_exit = Some(format!("{error:#}")),
                }
            }
        }
        let answer = self.call(&config, payload).await;
        let mut pool = lock(&self.pool);
        pool.in_flight -= 1;
        if matches!(answer, Err(InvokeError::TimedOut(_) | InvokeError::NotTaken(_))) {
            drop(pool);
            self.recycle();
        }
        answer
    }

    async fn call(&self, config: &FunctionConfig, payload: Bytes) -> Result<Outcome, InvokeError> {
        let uri =
            format!("http://{}/2015-03-31/functions/{}/invocations", self.runtime, config.binary);
        let (ticket, taken) = self.pickups.expect(&payload);
        let request = axum::http::Request::post(uri)
            .header("content-type", "application/json")
            .body(Full::new(payload))
            .map_err(|e| InvokeError::Runtime(e.to_string()))?;
        let answer = self.await_answer(config, request, taken).await;
        self.pickups.forget(ticket);
        answer
    }

    /// The answer to `request`: within [`PICKUP_LIMIT`] of now until an instance takes it
    /// (`taken` resolves), then within the function's timeout.
    async fn await_answer(
        &self,
        config: &FunctionConfig,
        request: axum::http::Request<Full<Bytes>>,
        taken: tokio::sync::oneshot::Receiver<()>,
    ) -> Result<Outcome, InvokeError> {
        let response = async {
            let response = self.client.request(request).await.map_err(|e| e.to_string())?;
            let status = response.status();
            let body = response.into_body().collect().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((status, body.to_bytes()))
        };
        tokio::pin!(response, taken);
        let mut deadline = tokio::time::Instant::now() + PICKUP_LIMIT;
        let mut running = false;
        loop {
            tokio::select! {
                answer = &mut response => {
                    let (status, body) = answer.map_err(InvokeError::Runtime)?;
                    return Ok(if status.is_success() {
                        Outcome::Answered(body)
                    } else {
                        Outcome::Failed(body)
                    });
                }
                _ = &mut taken, if !running => {
                    running = true;
                    deadline = tokio::time::Instant::now() + config.timeout;
                }
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(if running {
                        InvokeError::TimedOut(config.timeout)
                    } else {
                        InvokeError::NotTaken(PICKUP_LIMIT)
                    });
                }
                _ = tokio::time::sleep(Duration::from_millis(50)) => {
                    let pool = lock(&self.pool);
                    if pool.live() == 0 {
                        let why = pool.last_exit.clone().unwrap_or_else(|| "no instance".into());
                        return Err(InvokeError::Exited(why));
                    }
                }
            }
        }
    }

    fn start_instance(&self, config: &FunctionConfig, pool: &mut Pool) -> Result<Instance> {
        pool.started += 1;
        let number = pool.started;
        let mut command = Command::new(&config.bootstrap);
        command
            .env_clear()
            .envs(config.environment.iter().map(|(k, v)| (k, v)))
            .env("AWS_LAMBDA_RUNTIME_API", format!("http://{}/.rt/{}", self.relay, config.binary))
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                format!("{}/[$LATEST]{:032x}", chrono::Utc::now().format("%Y/%m/%d"), number),
            )
            .current_dir(config.bootstrap.parent().unwrap_or(Path::new(".")))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = spawn_tied(command)
            .with_context(|| format!("starting {}", config.bootstrap.display()))?;
        let label = format!("{}#{number}", config.binary);
        let readers = [
            child.stdout.take().map(|out| collect(out, self.logs.clone(), label.clone())),
            child.stderr.take().map(|err| collect(err, self.logs.clone(), label.clone())),
        ];
        let alive = Arc::new(AtomicBool::new(true));
        let pid = child.id();
        let (watched, pool_of, logs) = (alive.clone(), self.pool.clone(), self.logs.clone());
        std::thread::spawn(move || {
            let status = child.wait().map_or_else(|e| e.to_string(), |s| s.to_string());
            for reader in readers.into_iter().flatten() {
                let _ = reader.join();
            }
            let last = logs.last_line_of(&label).unwrap_or_default();
            lock(&pool_of).last_exit = Some(format!("{label} {status}: {last}"));
            watched.store(false, Ordering::SeqCst);
        });
        Ok(Instance { alive, pid })
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        self.recycle();
    }
}

/// Reads an instance's output line by line into the function's logs, on a thread of its own.
fn collect(
    stream: impl Read + Send + 'static,
    logs: Logs,
    label: String,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            match line {
                Ok(line) => logs.push(&label, line),
                Err(_) => break,
            }
        }
    })
}
