//! The serving file: where a running `blog-stack serve` is (its API's URL, its Invoke API's
//! port, the file of its actuator token), written once it serves and removed when it stops, so
//! that `blog-stack invoke` (`make invoke`) finds it on any port.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// Where `blog-stack serve` writes it unless told otherwise (relative to the workspace).
pub const DEFAULT_PATH: &str = "target/stack/serving.json";

/// A serving stack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Serving {
    /// The front's base URL (`http://127.0.0.1:3000`).
    pub url: String,
    /// The Invoke API's port on 127.0.0.1.
    pub invoke_port: u16,
    /// The file holding the actuator's token.
    pub actuator_token_file: PathBuf,
    /// The serving process.
    pub pid: u32,
}

impl Serving {
    /// Writes it to `path` (whole or not at all: a reader never sees half of it).
    pub fn write(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let partial = path.with_extension(format!("{}.partial", self.pid));
        std::fs::write(&partial, serde_json::to_string_pretty(self)?)
            .with_context(|| format!("writing {}", partial.display()))?;
        std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))
    }

    /// The stack `path` describes; `None` when there is no such file.
    pub fn read(path: &Path) -> Result<Option<Self>> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .with_context(|| format!("reading {}", path.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// Removes `path` when it still describes the process `pid` (a later stack may have
    /// written it since).
    pub fn remove_if_own(path: &Path, pid: u32) {
        if Self::read(path).ok().flatten().is_some_and(|serving| serving.pid == pid) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_removes_its_serving_file_but_not_a_later_stacks() {
        let dir = std::env::temp_dir().join(format!("serving-{}", uuid::Uuid::new_v4()));
        let path = dir.join("serving.json");
        assert_eq!(Serving::read(&path).unwrap(), None);
        let serving = Serving {
            url: "http://127.0.0.1:3000".into(),
            invoke_port: 9000,
            actuator_token_file: "target/stack/run/x/actuator-token".into(),
            pid: 1,
        };
        serving.write(&path).unwrap();
        assert_eq!(Serving::read(&path).unwrap(), Some(serving.clone()));
        Serving::remove_if_own(&path, 2);
        assert!(path.exists(), "another process's file stays");
        Serving::remove_if_own(&path, 1);
        assert!(!path.exists());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
