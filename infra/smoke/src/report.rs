//! The smoke test's output: one line per check, `ok   <what> (<how long>)` or
//! `FAIL <what>: <why>`.

use std::{
    future::Future,
    io::Write,
    time::{Duration, Instant},
};

/// Where the lines go, and how many checks failed.
pub struct Report<'a> {
    out: &'a mut dyn Write,
    failures: usize,
}

/// A check failed (its line is printed already).
#[derive(Debug)]
pub struct Failed;

/// `how long`: milliseconds under 10 s, else seconds with one decimal.
pub fn format_duration(elapsed: Duration) -> String {
    if elapsed < Duration::from_secs(10) {
        format!("{} ms", elapsed.as_millis())
    } else {
        format!("{:.1} s", elapsed.as_secs_f64())
    }
}

impl<'a> Report<'a> {
    /// A report writing to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        Report { out, failures: 0 }
    }

    /// Failed checks so far.
    pub fn failures(&self) -> usize {
        self.failures
    }

    /// Runs `check` and prints its line: `what` followed by the detail it answers, or why it
    /// failed.
    pub async fn check<F>(&mut self, what: &str, check: F) -> Result<(), Failed>
    where
        F: Future<Output = anyhow::Result<String>>,
    {
        let started = Instant::now();
        match check.await {
            Ok(detail) => {
                self.ok(what, &detail, started.elapsed());
                Ok(())
            }
            Err(error) => {
                self.fail(what, &format!("{error:#}"));
                Err(Failed)
            }
        }
    }

    /// Prints a passed check.
    pub fn ok(&mut self, what: &str, detail: &str, elapsed: Duration) {
        let what = if detail.is_empty() { what.to_string() } else { format!("{what}: {detail}") };
        self.line(&format!("ok   {what} ({})", format_duration(elapsed)));
    }

    /// Prints a failed check and counts it.
    pub fn fail(&mut self, what: &str, why: &str) {
        self.failures += 1;
        self.line(&format!("FAIL {what}: {why}"));
    }

    fn line(&mut self, line: &str) {
        // A closed standard output must not stop the clean-up.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_milliseconds_then_seconds() {
        assert_eq!(format_duration(Duration::from_micros(1500)), "1 ms");
        assert_eq!(format_duration(Duration::from_millis(9999)), "9999 ms");
        assert_eq!(format_duration(Duration::from_millis(12_340)), "12.3 s");
    }

    #[tokio::test]
    async fn each_check_prints_one_line_and_failures_are_counted() {
        let mut out = Vec::new();
        let mut report = Report::new(&mut out);
        assert!(report.check("health", async { Ok("UP".to_string()) }).await.is_ok());
        assert!(report.check("login", async { Ok(String::new()) }).await.is_ok());
        let failed = report
            .check("upload", async {
                Err(anyhow::anyhow!("HTTP 403").context("PUT to the upload URL"))
            })
            .await;
        assert!(failed.is_err());
        assert_eq!(report.failures(), 1);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("ok   health: UP (") && lines[0].ends_with(" ms)"));
        assert!(lines[1].starts_with("ok   login ("), "{}", lines[1]);
        assert_eq!(lines[2], "FAIL upload: PUT to the upload URL: HTTP 403");
    }
}
