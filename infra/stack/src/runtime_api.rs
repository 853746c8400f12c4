//! cargo-lambda's Lambda Runtime API emulator (`cargo lambda watch --only-lambda-apis`), which
//! hands the functions' invocations to their instances, and the processes the stack starts.

use std::{
    collections::HashMap,
    net::SocketAddr,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{bail, Context, Result};

use crate::{lock, relay::Invocations};

/// The Lambda Runtime API emulator: `cargo lambda watch --only-lambda-apis`; it stops when
/// dropped.
pub struct RuntimeApi {
    port: u16,
    child: Child,
    invocations: Mutex<HashMap<String, Arc<Invocations>>>,
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RuntimeApi {
    /// Starts cargo-lambda's emulator from `workspace` (it reads the workspace's binaries) on a
    /// free port of 127.0.0.1; its own output goes to `log`.
    pub async fn start(workspace: &Path, log: &Path) -> Result<Self> {
        let program = cargo_lambda(workspace)?;
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port()?;
            let output = std::fs::File::create(log)
                .with_context(|| format!("creating {}", log.display()))?;
            let mut command = Command::new(&program);
            command
                .args(["lambda", "watch", "--only-lambda-apis", "--invoke-address", "127.0.0.1"])
                .args(["--invoke-port", &port.to_string()])
                .current_dir(workspace)
                .stdin(Stdio::null())
                .stdout(output.try_clone()?)
                .stderr(output);
            let mut child = spawn_tied(command)?;
            match wait_for_port(port, &mut child).await {
                Ok(()) => return Ok(Self { port, child, invocations: Mutex::default() }),
                Err(error) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = Some(error);
                }
            }
        }
        let tail = std::fs::read_to_string(log).unwrap_or_default();
        Err(last_error.expect("three attempts")).context(format!("cargo lambda watch: {tail}"))
    }

    /// `host:port` of the emulator.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The invocations of `binary` here, shared by every function started under that name.
    pub fn invocations(&self, binary: &str) -> Result<Arc<Invocations>> {
        let mut invocations = lock(&self.invocations);
        if let Some(shared) = invocations.get(binary) {
            return Ok(shared.clone());
        }
        let shared = Arc::new(Invocations::new(self.address())?);
        invocations.insert(binary.to_string(), shared.clone());
        Ok(shared)
    }
}

/// `cargo-lambda` from `.tools/venv` (where `make tools` pins it), else from the `PATH`.
pub(crate) fn cargo_lambda(workspace: &Path) -> Result<PathBuf> {
    let pinned = workspace.join(".tools/venv/bin/cargo-lambda");
    if pinned.exists() {
        return Ok(pinned);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("cargo-lambda"))
        .find(|candidate| candidate.exists())
        .context("cargo-lambda not found: run `make tools` (it pins it into .tools/venv)")
}

/// A port of 127.0.0.1 that is free when asked (the caller's process binds it soon after),
/// drawn below the kernel's ephemeral range. Every listener of the stack binds port 0, which
/// the kernel serves from that range: a port from it, released here, could be handed to one of
/// them (another stack's AWS endpoint, say) before the emulator binds it, and the stack would
/// then send its invocations there.
pub fn free_port() -> Result<u16> {
    let (ephemeral_low, _) = ephemeral_range();
    let range = FIRST_CHOSEN_PORT..ephemeral_low.max(FIRST_CHOSEN_PORT + 1);
    for _ in 0..100 {
        let port = rand::random_range(range.clone());
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    bail!("no free port of 127.0.0.1 in {range:?} after 100 tries")
}

/// The lowest port [`free_port`] draws (above the well-known and common service ports).
pub(crate) const FIRST_CHOSEN_PORT: u16 = 20_000;

/// The kernel's range for ports bound as 0 (Linux's default when it cannot be read).
fn ephemeral_range() -> (u16, u16) {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range");
    let mut bounds = text.iter().flat_map(|t| t.split_whitespace()).filter_map(|n| n.parse().ok());
    match (bounds.next(), bounds.next()) {
        (Some(low), Some(high)) => (low, high),
        _ => (32_768, 60_999),
    }
}

async fn wait_for_port(port: u16, child: &mut Child) -> Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("exited with {status}");
        }
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            bail!("nothing listens on port {port} after 30 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Spawns `command` so that the child dies with the thread that started it (a worker thread
/// of the stack's runtime, which lives as long as the stack).
pub fn spawn_tied(mut command: Command) -> Result<Child> {
    // SAFETY: prctl is async-signal-safe; it asks the kernel to kill the child when the
    // thread that forked it ends (the runtime's worker thread, which lives as long as the
    // stack).
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command.spawn().context("starting a process")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulators_port_is_free_and_never_one_the_kernel_hands_out_for_port_0() {
        let (low, high) = ephemeral_range();
        for _ in 0..20 {
            let port = free_port().unwrap();
            assert!(port >= FIRST_CHOSEN_PORT && !(low..=high).contains(&port), "{port}");
            std::net::TcpListener::bind(("127.0.0.1", port)).expect("the port is free");
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let bound = listener.local_addr().unwrap().port();
        assert!((low..=high).contains(&bound), "port 0 draws from the range read: {bound}");
    }
}
