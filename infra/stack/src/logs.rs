//! What the functions print, as CloudWatch Logs would keep it: every line of every instance,
//! labelled `<binary>#<instance>`, kept in memory (the tests read it), appended to a file per
//! function when the stack has a log directory, and echoed to the terminal by `make stack`.

use std::{
    collections::VecDeque,
    io::Write,
    path::PathBuf,
    sync::{Arc, Mutex, PoisonError},
};

/// Lines kept in memory per function (the oldest go first).
const KEPT: usize = 20_000;

/// One function's log lines; clones share them.
#[derive(Clone)]
pub struct Logs {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    lines: VecDeque<(String, String)>,
    file: Option<std::fs::File>,
    echo: bool,
}

impl Logs {
    /// Logs written to `file` (when given) and echoed to standard output with `echo`.
    pub fn new(file: Option<PathBuf>, echo: bool) -> std::io::Result<Self> {
        let file = match file {
            Some(path) => Some(std::fs::OpenOptions::new().create(true).append(true).open(path)?),
            None => None,
        };
        let inner = Inner { lines: VecDeque::new(), file, echo };
        Ok(Self { inner: Arc::new(Mutex::new(inner)) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a line printed by the instance `label`.
    pub fn push(&self, label: &str, line: String) {
        let mut inner = self.lock();
        if inner.echo {
            println!("[{label}] {line}");
        }
        if let Some(file) = inner.file.as_mut() {
            let _ = writeln!(file, "[{label}] {line}");
        }
        if inner.lines.len() == KEPT {
            inner.lines.pop_front();
        }
        inner.lines.push_back((label.to_string(), line));
    }

    /// Every kept line, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.lock().lines.iter().map(|(_, line)| line.clone()).collect()
    }

    /// The last line the instance `label` printed.
    pub fn last_line_of(&self, label: &str) -> Option<String> {
        self.lock().lines.iter().rev().find(|(l, _)| l == label).map(|(_, line)| line.clone())
    }
}
