//! Logger levels that change at runtime in every instance: an override per logger is an item of
//! the table (`CONFIG` / `LOGGER#<name>`), each process re-reads them at most every refresh
//! interval and applies them through the subscriber's reload handle.

use std::{
    collections::BTreeMap,
    fmt,
    str::FromStr,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::ports::table::{s, Item, Key, Query, SortKey, Table, TableError, PK, SK};

const PARTITION: &str = "CONFIG";
const PREFIX: &str = "LOGGER#";
/// The logger every target falls back to.
pub const ROOT: &str = "ROOT";

/// A logger level as the actuator names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Everything.
    Trace,
    /// Debugging detail.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected.
    Warn,
    /// Failures.
    Error,
    /// Nothing.
    Off,
}

impl Level {
    /// Every level, most verbose first.
    pub const ALL: [Level; 6] =
        [Level::Trace, Level::Debug, Level::Info, Level::Warn, Level::Error, Level::Off];

    /// The upper-case name (`TRACE` ... `OFF`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
            Level::Off => "OFF",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(raw))
            .ok_or_else(|| format!("configuredLevel must be one of TRACE, DEBUG, INFO, WARN, ERROR, OFF, not `{raw}`"))
    }
}

/// A logger name: `ROOT`, or a tracing target such as `blog_articles` (a dotted
/// `blog_articles` names the same logger).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LoggerName(String);

impl LoggerName {
    /// Parses a name: 1-200 characters of letters, digits, `_`, `-`, `.` and `:`.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let valid = (1..=200).contains(&raw.len())
            && raw.chars().all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
        if !valid {
            return Err("logger name must be 1-200 letters, digits, `_`, `-`, `.` or `:`".into());
        }
        if raw.eq_ignore_ascii_case(ROOT) {
            return Ok(Self(ROOT.into()));
        }
        let target = raw.replace('.', "::");
        if target.split("::").any(str::is_empty) {
            return Err(format!("logger name `{raw}` has an empty segment"));
        }
        Ok(Self(target))
    }

    /// The name as a tracing target (`ROOT` for the default).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn is_root(&self) -> bool {
        self.0 == ROOT
    }

    /// Whether a directive for `target` applies to this logger.
    fn is_under(&self, target: &str) -> bool {
        self.0 == target || self.0.strip_prefix(target).is_some_and(|rest| rest.starts_with("::"))
    }
}

/// The configured and effective level of one logger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoggerLevels {
    /// Set through the actuator, if at all.
    pub configured: Option<Level>,
    /// What applies: the most specific override or start-up directive, else the root level.
    pub effective: Level,
}

/// The levels of one process: the start-up filter (`BLOG_LOG`) and the overrides last read.
pub struct LogLevels {
    base: String,
    refresh_every: Duration,
    state: Mutex<State>,
}

struct State {
    overrides: BTreeMap<LoggerName, Level>,
    refreshed: Instant,
}

impl LogLevels {
    /// Levels from the start-up filter; overrides are read at the first refresh.
    pub fn new(base: &str, refresh_every: Duration) -> Self {
        let state = State { overrides: BTreeMap::new(), refreshed: Instant::now() };
        Self { base: base.to_string(), refresh_every, state: Mutex::new(state) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the overrides are older than the refresh interval.
    pub fn refresh_due(&self) -> bool {
        self.state().refreshed.elapsed() >= self.refresh_every
    }

    /// Re-reads the overrides from the table and applies them (one Query).
    pub async fn refresh(&self, table: &dyn Table) -> Result<(), TableError> {
        self.state().refreshed = Instant::now();
        let overrides = read_overrides(table).await?;
        let changed = {
            let mut state = self.state();
            let changed = state.overrides != overrides;
            state.overrides = overrides;
            changed
        };
        if changed {
            super::apply_filter(&self.directives());
        }
        Ok(())
    }

    /// Sets (or with `None` removes) an override in the table and applies it here at once.
    pub async fn configure(
        &self,
        table: &dyn Table,
        name: &LoggerName,
        level: Option<Level>,
    ) -> Result<(), TableError> {
        let key = Key::new(PARTITION, format!("{PREFIX}{}", name.as_str()));
        match level {
            Some(level) => {
                let mut item = Item::from(std::collections::HashMap::from([
                    (PK.to_string(), s(key.pk)),
                    (SK.to_string(), s(key.sk)),
                    ("logger".to_string(), s(name.as_str())),
                    ("level".to_string(), s(level.name())),
                ]));
                item.insert("updatedAt".into(), s(chrono::Utc::now().to_rfc3339()));
                table.put(item, None).await?;
                self.state().overrides.insert(name.clone(), level);
            }
            None => {
                table.delete(&key, None).await?;
                self.state().overrides.remove(name);
            }
        }
        super::apply_filter(&self.directives());
        Ok(())
    }

    /// Configured and effective level of a logger, as this process applies them.
    pub fn levels_of(&self, name: &LoggerName) -> LoggerLevels {
        let state = self.state();
        let configured = state.overrides.get(name).copied();
        let overrides = state.overrides.iter().map(|(name, level)| (name.as_str(), *level));
        let base = parse_directives(&self.base);
        let mut root = base.iter().find(|(target, _)| target.is_empty()).map(|(_, level)| *level);
        let mut best: Option<(usize, Level)> = None;
        for (target, level) in base.iter().map(|(t, l)| (t.as_str(), *l)).chain(overrides) {
            if target == ROOT {
                root = Some(level);
            } else if !target.is_empty() && name.is_under(target) {
                // Later entries (overrides) win over the start-up filter at equal length.
                if best.is_none_or(|(length, _)| target.len() >= length) {
                    best = Some((target.len(), level));
                }
            }
        }
        let root = root.unwrap_or(Level::Error);
        let effective = if name.is_root() { root } else { best.map_or(root, |(_, level)| level) };
        LoggerLevels { configured, effective }
    }

    /// Every logger with an override, with its levels.
    pub fn configured(&self) -> Vec<(LoggerName, LoggerLevels)> {
        let names: Vec<LoggerName> = self.state().overrides.keys().cloned().collect();
        names.into_iter().map(|name| (name.clone(), self.levels_of(&name))).collect()
    }

    /// The filter this process runs with: the start-up directives, then the overrides.
    pub fn directives(&self) -> String {
        let state = self.state();
        let root = state.overrides.iter().find(|(name, _)| name.is_root()).map(|(_, level)| *level);
        let mut parts: Vec<String> = self
            .base
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .filter(|part| root.is_none() || part.contains('=') || part.contains('['))
            .map(str::to_string)
            .collect();
        if let Some(root) = root {
            parts.push(root.name().to_ascii_lowercase());
        }
        for (name, level) in state.overrides.iter().filter(|(name, _)| !name.is_root()) {
            parts.push(format!("{}={}", name.as_str(), level.name().to_ascii_lowercase()));
        }
        parts.join(",")
    }
}

/// The `target=level` and bare `level` directives of a filter string ("" = root).
fn parse_directives(filter: &str) -> Vec<(String, Level)> {
    filter
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty() && !part.contains('['))
        .filter_map(|part| match part.split_once('=') {
            Some((target, level)) => Some((target.to_string(), level.parse().ok()?)),
            None => Some((String::new(), part.parse().ok()?)),
        })
        .collect()
}

async fn read_overrides(table: &dyn Table) -> Result<BTreeMap<LoggerName, Level>, TableError> {
    let mut overrides = BTreeMap::new();
    let mut next = None;
    loop {
        let query = Query::partition(crate::ports::table::Index::Primary, PARTITION)
            .sort(SortKey::BeginsWith(PREFIX.into()))
            .start_after(next);
        let page = table.query(query).await?;
        for item in &page.items {
            let text = |attribute: &str| match item.get(attribute) {
                Some(crate::ports::table::AttributeValue::S(value)) => Some(value.clone()),
                _ => None,
            };
            let parsed = text("logger")
                .and_then(|name| LoggerName::parse(&name).ok())
                .zip(text("level").and_then(|level| level.parse().ok()));
            match parsed {
                Some((name, level)) => {
                    overrides.insert(name, level);
                }
                None => tracing::warn!(?item, "ignoring a malformed logger level item"),
            }
        }
        match page.next {
            Some(key) => next = Some(key),
            None => return Ok(overrides),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(raw: &str) -> LoggerName {
        LoggerName::parse(raw).unwrap()
    }

    #[test]
    fn levels_parse_in_any_case_and_others_are_refused() {
        assert_eq!("debug".parse::<Level>(), Ok(Level::Debug));
        assert_eq!("OFF".parse::<Level>(), Ok(Level::Off));
        assert!("VERBOSE".parse::<Level>().is_err());
    }

    #[test]
    fn dotted_and_path_names_are_the_same_logger_and_junk_is_refused() {
        assert_eq!(name("blog_articles"), name("blog_articles"));
        assert_eq!(name("root").as_str(), ROOT);
        assert!(LoggerName::parse("a b").is_err());
        assert!(LoggerName::parse("a..b").is_err());
        assert!(LoggerName::parse("").is_err());
    }

    #[test]
    fn the_most_specific_directive_gives_the_effective_level() {
        let levels =
            LogLevels::new("info,blog_auth=warn,blog_articles=warn", Duration::from_secs(30));
        levels.state().overrides.insert(name("blog_articles"), Level::Debug);
        let of = |raw: &str| levels.levels_of(&name(raw));
        assert_eq!(of("blog_articles::worker").effective, Level::Debug);
        assert_eq!(of("blog_articles").configured, Some(Level::Debug));
        assert_eq!(of("blog_auth").effective, Level::Warn);
        assert_eq!(of("blog_auth").configured, None);
        assert_eq!(of("blog_articlesx").effective, Level::Info);
        assert_eq!(of("ROOT").effective, Level::Info);
    }

    #[test]
    fn a_root_override_replaces_the_default_level_of_the_filter() {
        let levels = LogLevels::new("info,tower_http=debug", Duration::from_secs(30));
        levels.state().overrides.insert(name("ROOT"), Level::Warn);
        levels.state().overrides.insert(name("blog_auth"), Level::Trace);
        assert_eq!(levels.directives(), "tower_http=debug,warn,blog_auth=trace");
        assert_eq!(levels.levels_of(&name("anything")).effective, Level::Warn);
    }

    #[test]
    fn the_filter_enables_what_the_directives_say() {
        let filter = crate::telemetry::targets("tower_http=debug,warn,blog_auth=trace")
            .expect("directives the levels produce parse");
        let enabled = |target: &str, level| filter.would_enable(target, &level);
        assert!(enabled("blog_auth::login", tracing::Level::TRACE));
        assert!(!enabled("blog_articles", tracing::Level::INFO));
        assert!(enabled("tower_http::trace", tracing::Level::DEBUG));
        assert!(enabled("anything", tracing::Level::WARN));
        assert!(!enabled("anything", tracing::Level::INFO));
    }
}
