//! Cold start of every Lambda function's release `bootstrap` against a hello-world lambda_http
//! function built the same way: exec → first poll of the Runtime API and exec → first answer
//! (medians of several runs, interleaved so every binary sees the same machine), the peak RSS
//! after a few invocations, and the size of each binary. The functions reach the emulators
//! through timing proxies, so the answer is also given without the emulators' service time.

pub mod fixtures;
pub mod proxy;
pub mod report;
pub mod run;
pub mod runtime;

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
};

use anyhow::{bail, Context, Result};
use axum::body::Bytes;

use self::{proxy::EmulatorClock, run::Run, runtime::RuntimeApi};

/// What a function's answers must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An API Gateway payload 2.0 response with status 200.
    Http200,
    /// An SQS batch response (`batchItemFailures`).
    SqsBatch,
    /// The outbox sweep's count of re-sent events (`delivered`).
    Sweep,
}

/// One binary under measurement.
pub struct Subject {
    /// Binary (and Lambda function) name.
    pub name: String,
    /// Its `bootstrap`.
    pub bootstrap: PathBuf,
    /// Its arm64 `bootstrap` (the template's default architecture), sized only: this machine
    /// cannot run it.
    pub arm64_bootstrap: PathBuf,
    /// The event file it is invoked with (relative to the repository), and the event itself.
    pub event_file: String,
    pub event: Bytes,
    /// Its environment.
    pub env: Vec<(String, String)>,
    /// What its answers must look like.
    pub answer: Answer,
    /// Whether it links the S3 SDK (the 10 MB size target excludes those).
    pub with_s3: bool,
}

/// Everything measured for one subject.
pub struct Outcome {
    pub name: String,
    pub event_file: String,
    pub with_s3: bool,
    pub size_bytes: u64,
    /// Size of the arm64 package, when built.
    pub arm64_size_bytes: Option<u64>,
    pub runs: Vec<Run>,
}

/// How many times, with how many invocations each.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Measured rounds (every subject once per round); one unmeasured warm-up round precedes.
    pub rounds: usize,
    /// Invocations per run (the first is the cold one; the peak RSS is read after the last).
    pub invocations: usize,
}

/// Runs every subject `plan.rounds` times, round-robin, after a warm-up round; `clock` times
/// the emulators behind the subjects' endpoints.
pub async fn measure(
    subjects: &[Subject],
    plan: Plan,
    clock: &EmulatorClock,
    logs: &Path,
) -> Result<Vec<Outcome>> {
    let api = RuntimeApi::start().await?;
    let mut outcomes: Vec<Outcome> = subjects
        .iter()
        .map(|s| {
            let size_bytes = std::fs::metadata(&s.bootstrap)
                .with_context(|| format!("{} missing", s.bootstrap.display()))?
                .len();
            Ok(Outcome {
                name: s.name.clone(),
                event_file: s.event_file.clone(),
                with_s3: s.with_s3,
                size_bytes,
                arm64_size_bytes: std::fs::metadata(&s.arm64_bootstrap).ok().map(|m| m.len()),
                runs: Vec::with_capacity(plan.rounds),
            })
        })
        .collect::<Result<_>>()?;
    for round in 0..=plan.rounds {
        for (subject, outcome) in subjects.iter().zip(&mut outcomes) {
            let mut env = subject.env.clone();
            env.push(("AWS_LAMBDA_RUNTIME_API".into(), api.address()));
            let log = logs.join(format!("{}.log", subject.name));
            let (bootstrap, event) = (&subject.bootstrap, &subject.event);
            let run = run::once(&api, clock, bootstrap, &env, event, plan.invocations, &log)
                .await
                .with_context(|| format!("{} (round {round})", subject.name))?;
            for answer in &run.answers {
                check(subject, answer)?;
            }
            if round > 0 {
                outcome.runs.push(run);
            }
        }
        eprintln!(
            "  round {round} of {} done{}",
            plan.rounds,
            if round == 0 { " (warm-up)" } else { "" }
        );
    }
    Ok(outcomes)
}

/// Serves `app` on an ephemeral port of 127.0.0.1 until the runtime stops; `what` names it in
/// the message printed if it stops early.
pub(crate) async fn serve_locally(app: axum::Router, what: &'static str) -> Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr().with_context(|| format!("{what} address"))?;
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("{what} stopped: {error}");
        }
    });
    Ok(addr)
}

/// Fails unless `answer` is what the subject must answer.
fn check(subject: &Subject, answer: &Bytes) -> Result<()> {
    let json: serde_json::Value = serde_json::from_slice(answer)
        .with_context(|| format!("{} answered non-JSON: {answer:?}", subject.name))?;
    let ok = match subject.answer {
        Answer::Http200 => json["statusCode"] == 200,
        // The sample batch's second record is poison: only it fails.
        Answer::SqsBatch => json["batchItemFailures"].as_array().is_some_and(|f| f.len() == 1),
        Answer::Sweep => json["delivered"].is_u64(),
    };
    if !ok {
        bail!("{} answered {json} to {}", subject.name, subject.event_file);
    }
    Ok(())
}
