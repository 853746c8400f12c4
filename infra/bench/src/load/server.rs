//! The servers under load: started as child processes, awaited on their port, left to settle
//! (their CPU idle) before a measurement, and killed when dropped.

use std::{
    fs::File,
    net::SocketAddr,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};

/// A server process, killed when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    /// Starts `binary` with `env` (added to the inherited environment), output to `log`, and
    /// waits until `addr` accepts connections.
    pub fn start(
        binary: &Path,
        env: &[(&str, String)],
        addr: SocketAddr,
        log: &Path,
    ) -> Result<Self> {
        let output = File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let child = Command::new(binary)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(output.try_clone()?)
            .stderr(output)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut server = Self { child, addr };
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if let Some(status) = server.child.try_wait()? {
                bail!("{} exited with {status} (log: {})", binary.display(), log.display());
            }
            if Instant::now() > deadline {
                bail!("{} is not listening on {addr} after 60 s", binary.display());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }

    /// The server's CPU time so far (user + system), in clock ticks.
    fn cpu_ticks(&self) -> Result<u64> {
        let path = format!("/proc/{}/stat", self.child.id());
        let stat = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
        // Fields after the command name (which is in parentheses and may hold spaces).
        let fields: Vec<&str> =
            stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("").split_whitespace().collect();
        let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
        Ok(field(11) + field(12))
    }

    /// Waits until the server used less than 5 % of a core for two seconds in a row (its
    /// background work, such as the worker computing related articles, is done).
    pub fn settle(&self, limit: Duration) -> Result<Duration> {
        let started = Instant::now();
        let mut quiet = 0;
        let mut before = self.cpu_ticks()?;
        while quiet < 2 {
            if started.elapsed() > limit {
                bail!("the server kept busy for {limit:?}");
            }
            std::thread::sleep(Duration::from_secs(1));
            let now = self.cpu_ticks()?;
            // 100 ticks per second: under 5 ticks is under 5 % of a core.
            quiet = if now - before < 5 { quiet + 1 } else { 0 };
            before = now;
        }
        Ok(started.elapsed())
    }

    /// Peak resident set (VmHWM) so far, in KiB.
    pub fn peak_rss_kib(&self) -> Result<u64> {
        crate::coldstart::run::peak_rss_kib(self.child.id())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
