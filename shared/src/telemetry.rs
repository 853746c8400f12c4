//! Logging set-up: tracing-subscriber with an EnvFilter (`BLOG_LOG`), plain or JSON lines.

use tracing_subscriber::{fmt, EnvFilter};

/// Installs the global subscriber (a second call is a no-op).
pub fn init(filter: &str, json: bool) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = fmt().with_env_filter(filter).with_target(true);
    let _ = if json {
        builder.json().flatten_event(true).without_time().try_init()
    } else {
        builder.try_init()
    };
}
