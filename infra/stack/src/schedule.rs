//! EventBridge Scheduler's `rate(...)` schedules (SAM's `ScheduleV2` events): the function is
//! invoked with the schedule's `Input` once per period, the first time one period after the
//! stack starts, whether or not the previous invocation has ended (the scheduler invokes
//! asynchronously, so runs overlap when one lasts longer than the period). The period can be
//! shortened for tests.

use std::{sync::Arc, time::Duration};

use anyhow::{bail, Context, Result};
use axum::body::Bytes;

use crate::functions::{Function, Outcome};

/// The period of `rate(<n> <unit>)`.
pub fn rate(expression: &str) -> Result<Duration> {
    let inner = expression
        .strip_prefix("rate(")
        .and_then(|rest| rest.strip_suffix(')'))
        .with_context(|| format!("{expression}: the stack runs rate() schedules only"))?;
    let (amount, unit) = inner.trim().split_once(' ').context("rate(<value> <unit>)")?;
    let amount: u64 = amount.parse().context("the rate's value")?;
    let seconds = match unit.trim() {
        "minute" | "minutes" => 60,
        "hour" | "hours" => 3600,
        "day" | "days" => 86_400,
        other => bail!("rate unit {other}"),
    };
    if amount == 0 {
        bail!("a rate of 0");
    }
    Ok(Duration::from_secs(amount * seconds))
}

/// Invokes `function` with `input` every `period` for as long as the runtime runs, each
/// invocation on its own (a long one does not delay the next).
pub fn spawn(function: Arc<Function>, input: String, period: Duration) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let (function, input) = (function.clone(), Bytes::from(input.clone()));
            tokio::spawn(async move {
                let name = function.config().binary;
                match function.invoke(input).await {
                    Ok(Outcome::Answered(_)) => {}
                    Ok(Outcome::Failed(error)) => {
                        eprintln!(
                            "[stack] scheduled {name} failed: {}",
                            String::from_utf8_lossy(&error)
                        )
                    }
                    Err(error) => eprintln!("[stack] scheduled {name}: {error}"),
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_eventbridge_writes_them() {
        assert_eq!(rate("rate(5 minutes)").unwrap(), Duration::from_secs(300));
        assert_eq!(rate("rate(1 hour)").unwrap(), Duration::from_secs(3600));
        assert!(rate("cron(0 12 * * ? *)").is_err());
        assert!(rate("rate(0 minutes)").is_err());
    }
}
