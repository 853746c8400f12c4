//! The functions as Lambda runs them: each is its built `bootstrap`, started as a separate
//! process with the environment the template gives it, polling cargo-lambda's Lambda Runtime
//! API emulator (`cargo lambda watch --only-lambda-apis`) for invocations. An instance starts
//! on the first invocation that finds every running one busy (up to a maximum), as Lambda
//! scales; an instance that exits is replaced on the next invocation; the instance whose
//! invocation timed out is ended, as Lambda ends it; an invocation that no instance took
//! recycles the function's instances, and a recycled instance that runs an invocation finishes
//! it first. The timeout runs from the moment an instance takes the invocation (see
//! [`crate::relay`]).

use std::{
    io::{BufRead, BufReader, Read},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context, Result};
use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::{
    client::legacy::{connect::HttpConnector, Client},
    rt::TokioExecutor,
};

use crate::{
    lock,
    logs::Logs,
    pickup::Pickups,
    relay::{self, Instance, Roster},
    runtime_api::{spawn_tied, RuntimeApi},
};

/// How long an invocation may wait for an instance to take it (starting one, or for a busy one
/// among the few the stack runs at once) before it fails: a bound on a hang, not Lambda's.
pub const PICKUP_LIMIT: Duration = Duration::from_secs(60);

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
    roster: Arc<Roster>,
    pool: Arc<Mutex<Pool>>,
    logs: Logs,
    client: Client<HttpConnector, Full<Bytes>>,
}

#[derive(Default)]
struct Pool {
    /// Instances whose process runs, retired ones finishing an invocation among them.
    instances: Vec<Arc<Instance>>,
    in_flight: usize,
    started: u64,
    /// How the last instance that was not retired ended.
    last_exit: Option<String>,
}

impl Pool {
    fn serving(&self) -> usize {
        self.instances.iter().filter(|i| i.is_serving()).count()
    }
}

impl Function {
    /// A function served through the emulator `runtime` (its instances reach it through a
    /// relay of their own); its instances log into `logs`.
    pub async fn start(config: FunctionConfig, runtime: &RuntimeApi, logs: Logs) -> Result<Self> {
        let invocations = runtime.invocations(&config.binary)?;
        let pickups = invocations.pickups.clone();
        let roster = Arc::new(Roster::default());
        let relay = relay::start(invocations, roster.clone(), config.timeout).await?;
        Ok(Self {
            config: Mutex::new(config),
            runtime: runtime.address(),
            relay,
            pickups,
            roster,
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

    /// Retires every instance (one running an invocation finishes it first); the next
    /// invocation starts a new one.
    pub fn recycle(&self) {
        let mut pool = lock(&self.pool);
        for instance in &pool.instances {
            instance.retire();
        }
        pool.last_exit = None;
    }

    /// Invokes the function with `payload`, starting an instance when every running one is
    /// busy.
    pub async fn invoke(&self, payload: Bytes) -> Result<Outcome, InvokeError> {
        let config = self.config();
        {
            let mut pool = lock(&self.pool);
            pool.in_flight += 1;
            self.scale(&config, &mut pool);
        }
        let answer = self.call(&config, payload).await;
        let mut pool = lock(&self.pool);
        pool.in_flight -= 1;
        if matches!(answer, Err(InvokeError::NotTaken(_))) {
            drop(pool);
            self.recycle();
        }
        answer
    }

    /// Starts an instance when more invocations wait or run than instances serve (up to the
    /// maximum), as Lambda scales.
    fn scale(&self, config: &FunctionConfig, pool: &mut Pool) {
        pool.instances.retain(|i| i.is_alive());
        let serving = pool.serving();
        if pool.in_flight > serving && serving < config.max_instances {
            match self.start_instance(config, pool) {
                Ok(instance) => pool.instances.push(instance),
                Err(error) => pool.last_exit = Some(format!("{error:#}")),
            }
        }
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
    /// (`taken` resolves with it), then within the function's timeout, after which that
    /// instance is ended, as Lambda ends it.
    async fn await_answer(
        &self,
        config: &FunctionConfig,
        request: axum::http::Request<Full<Bytes>>,
        taken: tokio::sync::oneshot::Receiver<Arc<Instance>>,
    ) -> Result<Outcome, InvokeError> {
        let response = async {
            let response = self.client.request(request).await.map_err(|e| e.to_string())?;
            let status = response.status();
            let body = response.into_body().collect().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((status, body.to_bytes()))
        };
        tokio::pin!(response, taken);
        let mut deadline = tokio::time::Instant::now() + PICKUP_LIMIT;
        let mut runner: Option<Arc<Instance>> = None;
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
                Ok(instance) = &mut taken, if runner.is_none() => {
                    runner = Some(instance);
                    deadline = tokio::time::Instant::now() + config.timeout;
                }
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(match runner {
                        Some(instance) => {
                            instance.end();
                            InvokeError::TimedOut(config.timeout)
                        }
                        None => InvokeError::NotTaken(PICKUP_LIMIT),
                    });
                }
                _ = tokio::time::sleep(Duration::from_millis(50)) => {
                    // The instance that took it ended; or none serves while it waits: the last
                    // one failed (an initialisation failure), or all were retired and a new one
                    // takes it.
                    let mut pool = lock(&self.pool);
                    pool.instances.retain(|i| i.is_alive());
                    if runner.as_ref().is_some_and(|instance| !instance.is_alive()) {
                        let why = pool.last_exit.clone();
                        return Err(InvokeError::Exited(why.unwrap_or_else(|| "ended".into())));
                    }
                    if runner.is_none() && pool.serving() == 0 {
                        if let Some(why) = pool.last_exit.clone() {
                            return Err(InvokeError::Exited(why));
                        }
                        self.scale(config, &mut pool);
                    }
                }
            }
        }
    }

    fn start_instance(&self, config: &FunctionConfig, pool: &mut Pool) -> Result<Arc<Instance>> {
        pool.started += 1;
        let number = pool.started;
        let mut command = Command::new(&config.bootstrap);
        command
            .env_clear()
            .envs(config.environment.iter().map(|(k, v)| (k, v)))
            .env("AWS_LAMBDA_RUNTIME_API", relay::instance_api(self.relay, number, &config.binary))
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                format!("{}/[$LATEST]{:032x}", chrono::Utc::now().format("%Y/%m/%d"), number),
            )
            .current_dir(config.bootstrap.parent().unwrap_or(Path::new(".")))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // On the roster before it can ask the relay for anything.
        let mut roster = lock(&self.roster);
        let mut child = spawn_tied(command)
            .with_context(|| format!("starting {}", config.bootstrap.display()))?;
        let instance = Arc::new(Instance::new(child.id()));
        roster.insert(number, instance.clone());
        drop(roster);
        let label = format!("{}#{number}", config.binary);
        let readers = [
            child.stdout.take().map(|out| collect(out, self.logs.clone(), label.clone())),
            child.stderr.take().map(|err| collect(err, self.logs.clone(), label.clone())),
        ];
        let (watched, roster, pool_of, logs) =
            (instance.clone(), self.roster.clone(), self.pool.clone(), self.logs.clone());
        std::thread::spawn(move || {
            let status = child.wait().map_or_else(|e| e.to_string(), |s| s.to_string());
            for reader in readers.into_iter().flatten() {
                let _ = reader.join();
            }
            if watched.is_serving() {
                let last = logs.last_line_of(&label).unwrap_or_default();
                lock(&pool_of).last_exit = Some(format!("{label} {status}: {last}"));
            }
            watched.exited();
            lock(&roster).remove(&number);
        });
        Ok(instance)
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
