//! Readings of the process and its machine (sysinfo): what the spec's JVM-era metric names are
//! answered with, and the disk space of the health report.

use std::{
    path::{Path, PathBuf},
    sync::{Mutex, OnceLock},
    time::Instant,
};

use sysinfo::{Disks, Pid, ProcessRefreshKind, ProcessesToUpdate, System};

/// One reading of the process.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProcessReading {
    /// Resident memory of the process, in bytes.
    pub resident_bytes: f64,
    /// Operating-system threads of the process.
    pub threads: f64,
    /// CPU usage of the whole machine since the previous reading, 0 to 1.
    pub system_cpu_usage: f64,
    /// Seconds since the process started.
    pub uptime_seconds: f64,
}

/// Free and total space of the file system holding a path.
#[derive(Clone, Debug, PartialEq)]
pub struct DiskSpace {
    /// The path asked about.
    pub path: PathBuf,
    /// Bytes available to the process.
    pub free: u64,
    /// Size of the file system.
    pub total: u64,
}

/// Reads the current process; keeps the previous CPU counters so usage covers the interval
/// since the previous reading (the first covers the time since the machine booted).
///
/// The machine's counters are first read at the first reading, not at start: a function's cold
/// start need not parse `/proc/cpuinfo` for a metric most functions export once a minute.
pub struct ProcessProbe {
    system: OnceLock<Option<Mutex<System>>>,
    pid: Option<Pid>,
    started: Instant,
}

impl Default for ProcessProbe {
    fn default() -> Self {
        Self {
            system: OnceLock::new(),
            pid: sysinfo::get_current_pid().ok(),
            started: Instant::now(),
        }
    }
}

impl ProcessProbe {
    /// Reads memory, threads and CPU usage now.
    pub fn read(&self) -> ProcessReading {
        let uptime_seconds = self.started.elapsed().as_secs_f64();
        let Some(system) = self.system.get_or_init(|| System::new().ok().map(Mutex::new)) else {
            let unknown = ProcessReading { uptime_seconds, ..ProcessReading::default() };
            return unknown;
        };
        let mut system = system.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        system.refresh_cpu_usage();
        let (resident_bytes, threads) = match self.pid {
            Some(pid) => {
                system.refresh_processes_specifics(
                    ProcessesToUpdate::Some(&[pid]),
                    true,
                    ProcessRefreshKind::nothing().with_memory().with_tasks(),
                );
                system.process(pid).map_or((0.0, 0.0), |process| {
                    let threads = process.tasks().map_or(1, |tasks| tasks.len().max(1));
                    (process.memory() as f64, threads as f64)
                })
            }
            None => (0.0, 0.0),
        };
        ProcessReading {
            resident_bytes,
            threads,
            system_cpu_usage: f64::from(system.global_cpu_usage()) / 100.0,
            uptime_seconds,
        }
    }
}

/// The space of the file system that holds `path` (the longest mount point containing it, or
/// containing its nearest existing ancestor when it is not created yet).
pub fn disk_space(path: &Path) -> Option<DiskSpace> {
    let absolute = std::path::absolute(path).ok()?;
    let existing = absolute.ancestors().find(|ancestor| ancestor.exists())?;
    let absolute = std::fs::canonicalize(existing).ok()?;
    let disks = Disks::new_with_refreshed_list().ok()?;
    disks
        .iter()
        .filter(|disk| absolute.starts_with(disk.mount_point()))
        .max_by_key(|disk| disk.mount_point().as_os_str().len())
        .map(|disk| DiskSpace {
            path: path.to_path_buf(),
            free: disk.available_space(),
            total: disk.total_space(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_reading_sees_memory_and_at_least_one_thread() {
        let reading = ProcessProbe::default().read();
        assert!(reading.resident_bytes > 1_000_000.0, "{reading:?}");
        assert!(reading.threads >= 1.0);
        assert!((0.0..=1.0).contains(&reading.system_cpu_usage));
    }

    #[test]
    fn the_disk_of_the_temp_dir_has_a_size() {
        let space = disk_space(&std::env::temp_dir()).expect("temp dir is on a disk");
        assert!(space.total > 0 && space.free <= space.total);
    }
}
