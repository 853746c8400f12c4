//! One cold start: the bootstrap executed with a fresh environment against the Runtime API
//! stub, timed from just before `exec` to its first poll and to its first answer, then left to
//! serve the remaining armed invocations before its peak RSS is read and it is killed. The
//! emulators' busy time during exec → answer, as their timing proxies saw it, is taken out of
//! the answer to give the function's own part.

use std::{
    fs::File,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};
use axum::body::Bytes;

use super::{
    proxy::EmulatorClock,
    runtime::{RuntimeApi, Signal},
};

/// How long one run may take before it counts as hung.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The figures of one run.
#[derive(Clone, Debug)]
pub struct Run {
    /// From just before exec to the first `GET .../invocation/next`.
    pub first_poll: Duration,
    /// From just before exec to the first answer received.
    pub first_response: Duration,
    /// `first_response` less the time the emulators spent answering during it.
    pub first_response_own: Duration,
    /// Length of each emulator call begun during `first_response`.
    pub emulator_calls: Vec<Duration>,
    /// The answers of every invocation, in order.
    pub answers: Vec<Bytes>,
    /// Peak resident set size (VmHWM) after the last invocation, in KiB.
    pub peak_rss_kib: u64,
}

/// Kills the child when dropped, so no failed run leaves a function behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `bootstrap` once with `env` on `invocations` copies of `event`; its output goes to `log`.
/// The emulators' calls are timed on `clock`.
pub async fn once(
    api: &RuntimeApi,
    clock: &EmulatorClock,
    bootstrap: &Path,
    env: &[(String, String)],
    event: &Bytes,
    invocations: usize,
    log: &Path,
) -> Result<Run> {
    let mut signals = api.arm(vec![event.clone(); invocations]);
    let output = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let mut command = Command::new(bootstrap);
    command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(output.try_clone()?)
        .stderr(output);
    clock.reset();
    let started = Instant::now();
    let child =
        Running(command.spawn().with_context(|| format!("starting {}", bootstrap.display()))?);
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let (mut first_poll, mut first_response) = (None, None);
    let (mut polls, mut answers) = (0usize, Vec::with_capacity(invocations));
    // Done once every invocation is answered and the function polls again: it is idle.
    while !(answers.len() == invocations && polls > invocations) {
        let signal = tokio::time::timeout_at(deadline, signals.recv()).await;
        match signal {
            Ok(Some(Signal::Poll(at))) => {
                polls += 1;
                first_poll.get_or_insert(at - started);
            }
            Ok(Some(Signal::Response { at, body })) => {
                first_response.get_or_insert(at - started);
                answers.push(body);
            }
            Ok(Some(Signal::Error { body })) => {
                bail!("{} reported an error: {body} (log: {})", bootstrap.display(), log.display())
            }
            Ok(None) => bail!("the runtime API stub stopped"),
            Err(_) => bail!(
                "{} gave {} of {invocations} answers in {TIMEOUT:?} (log: {})",
                bootstrap.display(),
                answers.len(),
                log.display()
            ),
        }
    }
    let peak_rss_kib = peak_rss_kib(child.0.id())?;
    drop(child);
    let first_response = first_response.context("no answer")?;
    let busy = clock.busy_between(started, started + first_response);
    Ok(Run {
        first_poll: first_poll.context("no poll")?,
        first_response,
        first_response_own: first_response.saturating_sub(busy.total),
        emulator_calls: busy.calls,
        answers,
        peak_rss_kib,
    })
}

/// VmHWM of a live process, in KiB.
pub fn peak_rss_kib(pid: u32) -> Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .with_context(|| format!("no VmHWM in {path}"))
}
