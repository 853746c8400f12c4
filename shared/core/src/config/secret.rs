//! Secret values in the configuration: where each comes from, and a wrapper that keeps them out
//! of `Debug` output (a logged `Config` shows no secret).

use std::fmt;

/// A secret value: its `Debug` shows `[redacted]`, never the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Sensitive(String);

impl Sensitive {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the one place that uses it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Sensitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where a secret comes from.
#[derive(Clone, Debug)]
pub enum SecretSource {
    /// Given directly (e.g. `BLOG_JWT_SECRET`), or read from Secrets Manager at start-up.
    Value(Sensitive),
    /// An AWS Secrets Manager secret (e.g. `BLOG_JWT_SECRET_ARN`), read once per cold start.
    SecretsManager(String),
    /// Neither given: the local gateway keeps a generated secret in its data dir (JWT only).
    Generated,
}

impl SecretSource {
    /// The source named by a value variable and an ARN variable (the value wins).
    pub fn from_pair(value: Option<String>, arn: Option<String>) -> Option<Self> {
        match (value, arn) {
            (Some(value), _) => Some(Self::Value(Sensitive::new(value))),
            (None, Some(arn)) => Some(Self::SecretsManager(arn)),
            (None, None) => None,
        }
    }

    /// The value, once given or read.
    pub fn value(&self) -> Option<&str> {
        match self {
            Self::Value(value) => Some(value.expose()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_a_secret_value() {
        let source = SecretSource::from_pair(Some("hunter2-hunter2-hunter2".into()), None);
        let shown = format!("{source:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
}
