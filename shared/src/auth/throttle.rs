//! Login throttling: after `max` failed logins for one account (or one unknown login name)
//! within the window, further attempts are refused until the window passes; a successful login
//! resets it. The counter is a TTL item `LOGINFAIL#<login>` whose `expiresAt` ends the window.

use crate::{
    config::Config,
    ports::table::{
        n, now_epoch_seconds, s, AttributeValue, Condition, Item, Key, Table, TableError, Update,
    },
};

fn key(login: &str) -> Key {
    Key::new(format!("LOGINFAIL#{}", login.to_lowercase()), "LOGINFAIL")
}

fn number(item: &Item, attribute: &str) -> i64 {
    match item.get(attribute) {
        Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
        _ => 0,
    }
}

/// The failure window of a login, as read before its password is checked.
#[derive(Debug, PartialEq, Eq)]
pub enum Window {
    /// No failure is counted: a successful login has nothing to reset.
    Clear,
    /// Failures are counted: fewer than the limit, or the window ends this second.
    Counting,
    /// Locked out for this many more seconds.
    Locked(u64),
}

/// Reads the failure window of `login` (one GetItem).
pub async fn window(table: &dyn Table, config: &Config, login: &str) -> Result<Window, TableError> {
    let Some(item) = table.get(&key(login)).await? else {
        return Ok(Window::Clear);
    };
    if number(&item, "failures") < i64::from(config.login_max_failures) {
        return Ok(Window::Counting);
    }
    let wait = number(&item, crate::ports::table::TTL) - now_epoch_seconds();
    Ok(if wait > 0 { Window::Locked(wait as u64) } else { Window::Counting })
}

/// Counts one failed login for `login`, opening a new window when none is running.
pub async fn record_failure(
    table: &dyn Table,
    config: &Config,
    login: &str,
) -> Result<(), TableError> {
    let key = key(login);
    for _ in 0..3 {
        let counted =
            table.update(&key, Update::new().add("failures", 1), Some(Condition::Exists)).await;
        match counted {
            Ok(_) => return Ok(()),
            Err(TableError::ConditionFailed) => {}
            Err(other) => return Err(other),
        }
        let mut window = Item::default();
        window.insert("pk".into(), s(&key.pk));
        window.insert("sk".into(), s(&key.sk));
        window.insert("failures".into(), n(1));
        let ends = now_epoch_seconds() + config.login_window.as_secs() as i64;
        window.insert(crate::ports::table::TTL.into(), n(ends));
        match table.put(window, Some(Condition::NotExists)).await {
            Ok(()) => return Ok(()),
            Err(TableError::ConditionFailed) => continue,
            Err(other) => return Err(other),
        }
    }
    Err(TableError::Backend(anyhow::anyhow!("login throttle counter kept changing")))
}

/// Ends the window after a successful login, when failures were counted as it began (a
/// failure counted meanwhile, by someone else's attempt, is left to expire).
pub async fn reset(table: &dyn Table, login: &str, window: &Window) -> Result<(), TableError> {
    if *window == Window::Clear {
        return Ok(());
    }
    table.delete(&key(login), None).await.map(|_| ())
}
