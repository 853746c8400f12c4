//! Transactions whose writes carry names: a cancelled one reports the names of the writes whose
//! condition did not hold, so callers decide by name, and reordering or adding a write never
//! changes how a failure is read.

use super::{Table, TableError, Write};

/// The writes of one transaction, each under a name.
#[derive(Clone, Debug, Default)]
pub struct Transaction {
    writes: Vec<(&'static str, Write)>,
}

impl Transaction {
    /// No write yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `write` under `name`.
    pub fn with(mut self, name: &'static str, write: Write) -> Self {
        self.push(name, write);
        self
    }

    /// Adds `write` under `name`.
    pub fn push(&mut self, name: &'static str, write: Write) {
        self.writes.push((name, write));
    }

    /// Adds each of `writes` under `name`.
    pub fn extend(&mut self, name: &'static str, writes: impl IntoIterator<Item = Write>) {
        self.writes.extend(writes.into_iter().map(|write| (name, write)));
    }

    /// Applies the writes atomically. A cancellation is [`TableError::Refused`] with the names
    /// of the writes that failed, in the order they were added.
    pub async fn commit(self, table: &dyn Table) -> Result<(), TableError> {
        let (names, writes): (Vec<&'static str>, Vec<Write>) = self.writes.into_iter().unzip();
        match table.transact(writes).await {
            Err(TableError::TransactionCancelled { failed }) => {
                let failed = failed.iter().filter_map(|at| names.get(*at).copied()).collect();
                Err(TableError::Refused { failed })
            }
            other => other,
        }
    }
}

/// Whether `error` is a transaction refused because a write named `name` failed.
pub fn refused_by(error: &TableError, name: &str) -> bool {
    matches!(error, TableError::Refused { failed } if failed.contains(&name))
}
