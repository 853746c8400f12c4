//! One run of the load generator oha (pinned in infra/emulators/install.sh) and the figures of
//! its JSON output.

use std::{path::Path, process::Command, time::Duration};

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// What to load, and how.
#[derive(Clone, Debug)]
pub struct Load {
    /// Concurrent connections.
    pub connections: usize,
    /// Length of the run.
    pub duration: Duration,
}

/// One request shape: method, URL (a regex of URLs when `url_regex`), JSON body.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: &'static str,
    pub url: String,
    pub url_regex: bool,
    pub body: Option<String>,
}

/// The figures of one run.
#[derive(Clone, Copy, Debug)]
pub struct Figures {
    pub requests_per_sec: f64,
    /// Latency percentiles, milliseconds.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Answers received (all 200, or the run fails).
    pub answers: u64,
}

/// Runs `oha` once and checks that every answer was a 200.
pub fn run(oha: &Path, request: &Request, load: &Load) -> Result<Figures> {
    let mut command = Command::new(oha);
    command
        .args(["--no-tui", "--output-format", "json"])
        .args(["-c", &load.connections.to_string()])
        .args(["-z", &format!("{}s", load.duration.as_secs())])
        .args(["-m", request.method]);
    if let Some(body) = &request.body {
        command.args(["-d", body, "-T", "application/json"]);
    }
    if request.url_regex {
        command.arg("--rand-regex-url");
    }
    command.arg(&request.url);
    let output = command.output().with_context(|| format!("running {}", oha.display()))?;
    if !output.status.success() {
        bail!("oha failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let json: Value = serde_json::from_slice(&output.stdout).context("oha's JSON output")?;
    figures(&json).with_context(|| format!("{} {}", request.method, request.url))
}

/// The figures of oha's JSON output; any answer but 200, or any error other than the requests
/// cut off by the end of the run, fails.
pub fn figures(json: &Value) -> Result<Figures> {
    let statuses = json["statusCodeDistribution"].as_object().context("no status codes")?;
    let mut answers = 0;
    for (status, count) in statuses {
        let count = count.as_u64().unwrap_or(0);
        if status != "200" && count > 0 {
            bail!("{count} answers with status {status}");
        }
        answers += count;
    }
    if answers == 0 {
        bail!("no answer at all");
    }
    if let Some(errors) = json["errorDistribution"].as_object() {
        let real: Vec<String> = errors
            .iter()
            .filter(|(error, _)| !error.contains("deadline"))
            .map(|(error, count)| format!("{count} × {error}"))
            .collect();
        if !real.is_empty() {
            bail!("request errors: {}", real.join("; "));
        }
    }
    let seconds = |pointer: &str| {
        json.pointer(pointer).and_then(Value::as_f64).with_context(|| format!("no {pointer}"))
    };
    Ok(Figures {
        requests_per_sec: seconds("/summary/requestsPerSec")?,
        p50_ms: seconds("/latencyPercentiles/p50")? * 1000.0,
        p99_ms: seconds("/latencyPercentiles/p99")? * 1000.0,
        answers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn output(statuses: Value, errors: Value) -> Value {
        json!({
            "summary": { "requestsPerSec": 1234.5 },
            "latencyPercentiles": { "p50": 0.002, "p99": 0.010 },
            "statusCodeDistribution": statuses,
            "errorDistribution": errors,
        })
    }

    #[test]
    fn the_figures_come_in_requests_per_second_and_milliseconds() {
        let figures = figures(&output(json!({"200": 500}), json!({}))).unwrap();
        assert_eq!(figures.requests_per_sec, 1234.5);
        assert_eq!((figures.p50_ms, figures.p99_ms, figures.answers), (2.0, 10.0, 500));
    }

    #[test]
    fn an_answer_other_than_200_fails_the_run() {
        let error = figures(&output(json!({"200": 5, "500": 1}), json!({}))).unwrap_err();
        assert!(error.to_string().contains("status 500"), "{error}");
    }

    #[test]
    fn requests_cut_off_by_the_end_of_the_run_are_not_errors() {
        let errors = json!({"aborted due to deadline": 12});
        assert!(figures(&output(json!({"200": 5}), errors)).is_ok());
        let refused = json!({"connection refused": 1});
        assert!(figures(&output(json!({"200": 5}), refused)).is_err());
    }
}
