//! A function's `Timeout` runs from the moment an instance takes the invocation, as in Lambda:
//! a slow initialisation does not time the invocation out, a slow handler does, and the
//! deadline the instance is told is that moment plus the timeout. The instances here are a
//! small Runtime API client in Python, so that their timings are exact. A recycled function
//! (a deployment, a rotated secret) loses no invocation, waiting or running.

use std::{os::unix::fs::PermissionsExt, path::Path, time::Duration};

use axum::body::Bytes;
use blog_stack::{
    functions::{Function, FunctionConfig, InvokeError, Outcome},
    logs::Logs,
    runtime_api::RuntimeApi,
};

/// Sleeps `INIT_SECONDS`, then answers each invocation after `WORK_SECONDS` with the deadline
/// and the request id it was given.
const RUNTIME_CLIENT: &str = r#"#!/usr/bin/env python3
import json, os, time, urllib.request
time.sleep(float(os.environ["INIT_SECONDS"]))
api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"].removeprefix("http://")
while True:
    with urllib.request.urlopen(api + "/2018-06-01/runtime/invocation/next") as event:
        request_id = event.headers["Lambda-Runtime-Aws-Request-Id"]
        deadline = int(event.headers["Lambda-Runtime-Deadline-Ms"])
        event.read()
    time.sleep(float(os.environ["WORK_SECONDS"]))
    answer = json.dumps({"deadline": deadline, "answered": int(time.time() * 1000)}).encode()
    urllib.request.urlopen(urllib.request.Request(
        api + "/2018-06-01/runtime/invocation/" + request_id + "/response", data=answer)).read()
"#;

async fn function(
    dir: &Path,
    runtime: &RuntimeApi,
    init: f64,
    work: f64,
    timeout: u64,
) -> Function {
    let bootstrap = dir.join("bootstrap");
    std::fs::write(&bootstrap, RUNTIME_CLIENT).unwrap();
    std::fs::set_permissions(&bootstrap, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = FunctionConfig {
        logical_id: "ArticlesFunction".into(),
        // The emulator serves the workspace's binaries by name.
        binary: "articles".into(),
        bootstrap,
        environment: vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("INIT_SECONDS".into(), init.to_string()),
            ("WORK_SECONDS".into(), work.to_string()),
        ],
        timeout: Duration::from_secs(timeout),
        max_instances: 1,
    };
    Function::start(config, runtime, Logs::new(None, false).unwrap()).await.unwrap()
}

/// cargo-lambda's Runtime API emulator, logging into `dir`.
async fn emulator(dir: &Path) -> RuntimeApi {
    RuntimeApi::start(&blog_stack::testing::workspace(), &dir.join("rt.log")).await.unwrap()
}

fn answer(outcome: Result<Outcome, InvokeError>) -> serde_json::Value {
    match outcome {
        Ok(Outcome::Answered(body)) => serde_json::from_slice(&body).unwrap(),
        other => panic!("an answer, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs cargo-lambda (make tools); make test runs it"]
async fn the_timeout_runs_from_the_moment_an_instance_takes_the_invocation() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = emulator(dir.path()).await;

    // Four seconds of initialisation, a two-second timeout: the invocation is answered.
    let slow_start = function(dir.path(), &runtime, 4.0, 0.0, 2).await;
    let answered = answer(slow_start.invoke(Bytes::from_static(b"{}")).await);
    let (deadline, at) =
        (answered["deadline"].as_i64().unwrap(), answered["answered"].as_i64().unwrap());
    assert!(deadline > at && deadline - at <= 2_000, "deadline {deadline}, answered at {at}");
    drop(slow_start);

    // A handler of three seconds with a one-second timeout times out.
    let slow_handler = function(dir.path(), &runtime, 0.0, 3.0, 1).await;
    match slow_handler.invoke(Bytes::from_static(b"{}")).await {
        Err(InvokeError::TimedOut(timeout)) => assert_eq!(timeout, Duration::from_secs(1)),
        other => panic!("a timeout, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs cargo-lambda (make tools); make test runs it"]
async fn an_invocation_made_as_the_instances_are_recycled_is_answered() {
    // Recycled as its instance asks for its next invocation, at different moments after the
    // last answer: the emulator must not hand the next invocation to the poll of an instance
    // that has ended.
    let dir = tempfile::tempdir().unwrap();
    let runtime = emulator(dir.path()).await;
    let idle = function(dir.path(), &runtime, 0.0, 0.0, 5).await;
    for round in 0..30u64 {
        answer(idle.invoke(Bytes::from(format!("{{\"round\":{round}}}"))).await);
        tokio::time::sleep(Duration::from_millis(round % 3 * 60)).await;
        idle.recycle();
    }
    assert_eq!(idle.cold_starts(), 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs cargo-lambda (make tools); make test runs it"]
async fn an_invocation_running_or_waiting_when_its_function_is_recycled_is_answered() {
    // Half a second of work: recycled before, while and after an instance takes it, as a
    // deployment recycles a function, the invocation is answered (a busy instance finishes it,
    // as Lambda lets it; a waiting one goes to a new instance).
    let dir = tempfile::tempdir().unwrap();
    let runtime = emulator(dir.path()).await;
    let busy = std::sync::Arc::new(function(dir.path(), &runtime, 0.0, 0.5, 5).await);
    for delay in [0, 10, 100, 300, 600] {
        let running = tokio::spawn({
            let busy = busy.clone();
            async move { busy.invoke(Bytes::from(format!("{{\"delay\":{delay}}}"))).await }
        });
        tokio::time::sleep(Duration::from_millis(delay)).await;
        busy.recycle();
        answer(running.await.unwrap());
    }
}
