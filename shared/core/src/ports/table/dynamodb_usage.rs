//! Requests and capacity consumed through a `DynamoTable`, which the capacity bench reports
//! (`make bench-capacity`). Counted only with the feature `test-support`; elsewhere (the
//! functions, the gateway) [`Usage`] counts nothing.

use aws_sdk_dynamodb::types::ConsumedCapacity;

#[cfg(feature = "test-support")]
pub use counting::{TableUsage, Usage};

/// Counts nothing.
#[cfg(not(feature = "test-support"))]
#[derive(Clone, Default)]
pub struct Usage;

#[cfg(not(feature = "test-support"))]
impl Usage {
    /// Nothing counted.
    pub fn new() -> Self {
        Usage
    }

    /// A request was sent.
    pub fn called(&self) {}

    /// DynamoDB reported `capacity` for a read or (`write`) a write.
    pub fn consumed<'a>(
        &self,
        _write: bool,
        _capacity: impl IntoIterator<Item = &'a ConsumedCapacity>,
    ) {
    }
}

#[cfg(feature = "test-support")]
mod counting {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;

    use super::{super::DynamoTable, ConsumedCapacity};

    /// Requests and capacity consumed through one [`DynamoTable`] since its creation or last
    /// reset.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct TableUsage {
        /// Requests sent, including retries and failed ones.
        pub calls: u64,
        /// Read capacity units reported by DynamoDB.
        pub read_units: f64,
        /// Write capacity units reported by DynamoDB.
        pub write_units: f64,
    }

    /// [`TableUsage`] as atomics (capacity units as `f64` bits), shared by an adapter's clones.
    #[derive(Clone, Default)]
    pub struct Usage(Arc<Counters>);

    #[derive(Default)]
    struct Counters {
        calls: AtomicU64,
        read_units: AtomicU64,
        write_units: AtomicU64,
    }

    fn add_units(counter: &AtomicU64, units: f64) {
        let add = |bits: u64| Some((f64::from_bits(bits) + units).to_bits());
        let _always_some = counter.fetch_update(Relaxed, Relaxed, add);
    }

    impl Usage {
        /// Nothing counted yet.
        pub fn new() -> Self {
            Self::default()
        }

        /// A request was sent.
        pub fn called(&self) {
            self.0.calls.fetch_add(1, Relaxed);
        }

        /// Counts reported capacity; a total without a read/write split counts as `write` says.
        pub fn consumed<'a>(
            &self,
            write: bool,
            capacity: impl IntoIterator<Item = &'a ConsumedCapacity>,
        ) {
            for c in capacity {
                let total = c.capacity_units().unwrap_or_default();
                let (read, written) = match (c.read_capacity_units(), c.write_capacity_units()) {
                    (None, None) if write => (0.0, total),
                    (None, None) => (total, 0.0),
                    (read, written) => (read.unwrap_or_default(), written.unwrap_or_default()),
                };
                add_units(&self.0.read_units, read);
                add_units(&self.0.write_units, written);
            }
        }
    }

    impl DynamoTable {
        /// Requests sent and capacity units consumed so far.
        pub fn usage(&self) -> TableUsage {
            let counters = &self.usage.0;
            let units = |counter: &AtomicU64| f64::from_bits(counter.load(Relaxed));
            TableUsage {
                calls: counters.calls.load(Relaxed),
                read_units: units(&counters.read_units),
                write_units: units(&counters.write_units),
            }
        }

        /// Sets the usage counters back to zero.
        pub fn reset_usage(&self) {
            let counters = &self.usage.0;
            counters.calls.store(0, Relaxed);
            counters.read_units.store(0f64.to_bits(), Relaxed);
            counters.write_units.store(0f64.to_bits(), Relaxed);
        }
    }
}
