//! Observability of every process: logging whose levels change at runtime, in-process metrics,
//! their export (the table's cluster-wide totals and CloudWatch Embedded Metric Format in
//! Lambda), readings of the process, and the HTTP layer that records requests.

pub mod emf;
pub mod layer;
pub mod levels;
pub mod metrics;
pub mod process;
pub mod redact;
pub mod store;
pub mod table;
pub mod targets;

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Mutex, OnceLock,
    },
    time::{Duration, Instant},
};

use tracing_subscriber::{
    filter::Targets, fmt, layer::SubscriberExt, reload, util::SubscriberInitExt, Layer, Registry,
};

use crate::{
    config::{Config, MetricsStore},
    ports::table::{Table, TableError},
};

use self::{
    levels::LogLevels,
    metrics::{SeriesKey, Stats},
    process::ProcessProbe,
    store::MetricsView,
};

static FILTER: OnceLock<reload::Handle<Targets, Registry>> = OnceLock::new();

/// The filter of `directives` (`target=level` and bare `level`, comma-separated): tracing's
/// `Targets`, which needs no regular-expression engine, unlike `EnvFilter`.
fn targets(directives: &str) -> Result<Targets, tracing_subscriber::filter::ParseError> {
    directives.parse()
}

/// Targets whose events are never logged beyond a level, whatever the filter an operator sets
/// (`BLOG_LOG`, the actuator): at TRACE the Lambda runtime dumps every raw event it receives,
/// request body included (a password typed in the login field, a body base64-encoded beyond
/// the reach of redaction), and the response prelude it sends; and the AWS SDK's orchestrator
/// dumps every request and answer body (table items: a login in a marker's key, an account's
/// password hash).
pub const CAPPED: &[(&str, tracing::Level)] = &[
    ("lambda_runtime", tracing::Level::DEBUG),
    ("lambda_runtime_api_client", tracing::Level::DEBUG),
    ("lambda_http", tracing::Level::DEBUG),
    ("aws_smithy_runtime::client::orchestrator", tracing::Level::DEBUG),
];

/// The fixed filter of [`CAPPED`]: everything else passes, to the reloadable filter's choice.
pub fn capped() -> Targets {
    Targets::new().with_default(tracing::Level::TRACE).with_targets(CAPPED.iter().copied())
}

/// Installs the global subscriber with a reloadable filter (a second call is a no-op), under
/// the fixed caps of [`CAPPED`].
pub fn init(filter: &str, json: bool) {
    let filter =
        targets(filter).unwrap_or_else(|_| Targets::new().with_default(tracing::Level::INFO));
    let (filter, handle) = reload::Layer::new(filter);
    // Every line is redacted on its way out (see `redact`).
    let writer = redact::RedactingStdout;
    let output = if json {
        fmt::layer()
            .json()
            .flatten_event(true)
            .without_time()
            .with_target(true)
            .with_writer(writer)
            .boxed()
    } else {
        // Colours only for a terminal: a file or a pipe gets plain text.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
        fmt::layer().with_target(true).with_ansi(ansi).with_writer(writer).boxed()
    };
    let subscriber = tracing_subscriber::registry().with(filter).with(capped()).with(output);
    if subscriber.try_init().is_ok() {
        let _ = FILTER.set(handle);
    }
}

/// Replaces the filter of the global subscriber (when [`init`] installed it).
pub(crate) fn apply_filter(directives: &str) {
    let Some(handle) = FILTER.get() else { return };
    match targets(directives) {
        Ok(filter) => {
            if let Err(error) = handle.reload(filter) {
                tracing::warn!(%error, "log filter not replaced");
            }
        }
        Err(error) => tracing::warn!(%error, directives, "invalid log filter"),
    }
}

/// The observability state of one process (one Lambda instance, or the local gateway).
pub struct Telemetry {
    /// Timers and counters.
    pub registry: metrics::Registry,
    /// Memory, threads and CPU readings.
    pub probe: ProcessProbe,
    /// Logger levels.
    pub levels: LogLevels,
    function: String,
    instance: String,
    store: MetricsStore,
    export_every: Duration,
    exported: Mutex<Instant>,
    warm: AtomicBool,
}

impl Telemetry {
    /// The state of a process configured by `config`.
    pub fn new(config: &Config) -> Self {
        Self {
            registry: metrics::Registry::default(),
            probe: ProcessProbe::default(),
            levels: LogLevels::new(&config.log, config.log_levels_refresh),
            function: config.function.clone(),
            instance: uuid::Uuid::new_v4().simple().to_string(),
            store: config.metrics_store,
            export_every: config.metrics_export_interval,
            exported: Mutex::new(Instant::now()),
            warm: AtomicBool::new(false),
        }
    }

    /// The function (area) this process serves, e.g. `articles`; `gateway` locally.
    pub fn function(&self) -> &str {
        &self.function
    }

    /// Whether this is the first call of the instance (true once).
    pub fn cold_start(&self) -> bool {
        !self.warm.swap(true, Ordering::Relaxed)
    }

    /// Records one served HTTP request as `http.server.requests`.
    pub fn record_request(&self, method: &str, uri: &str, status: u16, elapsed: Duration) {
        let status_text = status.to_string();
        let tags = [
            ("method", method),
            ("uri", uri),
            ("status", status_text.as_str()),
            ("outcome", outcome(status)),
        ];
        self.registry.time("http.server.requests", &tags, elapsed);
    }

    /// Gauge readings of this process now.
    pub fn gauges(&self) -> Vec<(SeriesKey, f64)> {
        let reading = self.probe.read();
        let gauge = |name: &str, value: f64| (SeriesKey::new(name, &[]), value);
        vec![
            gauge("jvm.memory.used", reading.resident_bytes),
            gauge("jvm.threads.live", reading.threads),
            gauge("jdbc.connections.active", self.registry.table_calls_in_flight() as f64),
            gauge("system.cpu.usage", reading.system_cpu_usage),
            gauge("process.uptime", reading.uptime_seconds),
        ]
    }

    /// The metrics the actuator serves: this process's own, or (table store) the whole
    /// service's totals after adding this process's latest figures.
    pub async fn view(&self, table: &dyn Table) -> Result<MetricsView, TableError> {
        match self.store {
            MetricsStore::Process => {
                Ok(MetricsView { series: self.registry.snapshot(), gauges: self.gauges() })
            }
            MetricsStore::Table => {
                self.export(table).await?;
                store::read(table).await
            }
        }
    }

    /// Adds this process's figures to the table's totals (table store only).
    pub async fn export(&self, table: &dyn Table) -> Result<(), TableError> {
        if self.store != MetricsStore::Table {
            return Ok(());
        }
        *self.exported.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Instant::now();
        let gauges = self.gauges();
        store::export(table, &self.registry, &self.function, &self.instance, &gauges).await
    }

    /// Exports when the export interval has passed; failures are logged, figures kept.
    pub async fn export_if_due(&self, table: &dyn Table) {
        let due = self.store == MetricsStore::Table
            && self.exported.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).elapsed()
                >= self.export_every;
        if due {
            if let Err(error) = self.export(table).await {
                tracing::warn!(%error, "metrics not exported; kept for the next export");
            }
        }
    }

    /// Re-reads logger levels when they are due (at most one Query per refresh interval).
    pub async fn refresh_levels_if_due(&self, table: &dyn Table) {
        if self.levels.refresh_due() {
            if let Err(error) = self.levels.refresh(table).await {
                tracing::warn!(%error, "logger levels not refreshed");
            }
        }
    }

    /// Keeps levels and exported metrics current in a long-running process (the local
    /// gateway); Lambda functions do the same work inside their invocations instead.
    pub async fn run_background(&self, table: &dyn Table) {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            self.refresh_levels_if_due(table).await;
            self.export_if_due(table).await;
        }
    }

    /// Figures of one series (for tests and reports).
    pub fn series(&self, name: &str) -> Vec<(SeriesKey, Stats)> {
        self.registry.snapshot().into_iter().filter(|(key, _)| key.name == name).collect()
    }
}

/// Spring's outcome tag of a status code.
pub fn outcome(status: u16) -> &'static str {
    match status {
        100..=199 => "INFORMATIONAL",
        200..=299 => "SUCCESS",
        300..=399 => "REDIRECTION",
        400..=499 => "CLIENT_ERROR",
        500..=599 => "SERVER_ERROR",
        _ => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::{fmt, layer::SubscriberExt};

    use super::*;

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_lambda_runtimes_raw_event_dump_is_never_logged_even_at_trace() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::registry()
            .with(targets("trace").unwrap())
            .with(capped())
            .with(fmt::layer().with_writer(move || writer.clone()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::trace!(target: "lambda_runtime::layers::api_response",
                body = "{\"username\":\"typed-password\"}", "raw JSON event received from Lambda");
            tracing::trace!(target: "lambda_runtime::requests", "metadata prelude");
            tracing::trace!(target: "aws_smithy_runtime::client::orchestrator::http",
                response = "USERNAME#typed-password", "read HTTP response body");
            tracing::trace!(target: "aws_smithy_runtime::client::retries", "retry quota");
            tracing::debug!(target: "lambda_runtime::runtime", "polling for the next event");
            tracing::trace!(target: "blog_articles", "the service's own trace");
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(!log.contains("typed-password") && !log.contains("prelude"), "{log}");
        assert!(log.contains("polling for the next event"), "DEBUG passes: {log}");
        assert!(log.contains("the service's own trace"), "{log}");
        assert!(log.contains("retry quota"), "the rest of the SDK at TRACE: {log}");
    }
}
