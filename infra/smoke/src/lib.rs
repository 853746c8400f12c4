//! `blog-smoke`: the post-deploy smoke test of the blog API (`make smoke URL=…`).
//!
//! Against a deployed stack's `ApiUrl` (or a local `make dev` / `make stack`) it checks, in
//! order, printing one line per check: health; the administrator's login; a fresh user's
//! registration and login; an article created, published and read publicly; a second one on
//! the same topic, until the worker's related list of one names the other; a file uploaded
//! with a plain PUT, confirmed and read back; the request count of the actuator's metrics
//! growing. It stops at the first failure, then removes what it created (the file, the
//! articles, the user) and reports each removal as a check of its own.

mod checks;
mod cleanup;
mod client;
mod fixtures;
pub mod report;

use std::{io::Write, time::Duration};

use checks::Smoke;
use report::{Failed, Report};

/// What to test and how long to wait.
#[derive(Clone, Debug)]
pub struct Options {
    /// Base URL of the API (a stack's `ApiUrl`, or `http://127.0.0.1:3000`).
    pub url: String,
    /// The administrator's user name.
    pub admin_username: String,
    /// The administrator's password.
    pub admin_password: String,
    /// Bearer token of `/actuator` when the API requires one.
    pub actuator_token: Option<String>,
    /// Limit of each HTTP request.
    pub request_timeout: Duration,
    /// How long to wait for the worker's related lists.
    pub related_timeout: Duration,
    /// How long to wait for the request count to grow.
    pub metrics_timeout: Duration,
}

async fn checks(smoke: &mut Smoke<'_>, report: &mut Report<'_>) -> Result<(), Failed> {
    report.check("health", smoke.health()).await?;
    // The administrator first: without it nothing created afterwards could be removed.
    report.check("administrator login", smoke.admin_login()).await?;
    report.check("register a user", smoke.register()).await?;
    report.check("user login", smoke.user_login()).await?;
    report.check("article published and read", smoke.article()).await?;
    report.check("related articles from the worker", smoke.related()).await?;
    report.check("file upload round trip", smoke.file_round_trip()).await?;
    report.check("actuator metrics", smoke.metrics()).await
}

/// Runs every check, then the clean-up, writing one line each to `out`; `true` when all
/// passed. Ctrl-C stops the checks and goes on to the clean-up; a second one stops that too,
/// naming what is left behind.
pub async fn run(options: &Options, out: &mut dyn Write) -> bool {
    let mut report = Report::new(out);
    let api = match client::Api::new(&options.url, options.request_timeout) {
        Ok(api) => api,
        Err(error) => {
            report.fail("configuration", &format!("{error:#}"));
            return false;
        }
    };
    let mut smoke = Smoke::new(api, options);
    let interrupted = tokio::select! {
        _ = checks(&mut smoke, &mut report) => false,
        Ok(()) = tokio::signal::ctrl_c() => true,
    };
    if interrupted {
        report.fail("checks", "interrupted (Ctrl-C); cleaning up");
    }
    let cleanup_interrupted = tokio::select! {
        _ = smoke.clean_up(&mut report) => false,
        Ok(()) = tokio::signal::ctrl_c() => true,
    };
    if cleanup_interrupted {
        let left = smoke.leftovers().join(", ");
        report.fail("clean-up", &format!("interrupted; may be left behind: {left}"));
    }
    report.failures() == 0
}
