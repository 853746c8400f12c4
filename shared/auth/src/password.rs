//! Argon2id password hashing (default parameters: 19 MiB, 2 passes), off the async threads.

use std::sync::LazyLock;

use argon2::{
    password_hash::{phc::PasswordHash, PasswordHasher, PasswordVerifier},
    Argon2,
};

/// A hash of a throw-away password, verified when the account is unknown so that an unknown
/// user name costs the same time as a wrong password.
static DECOY: LazyLock<Option<String>> = LazyLock::new(|| hash_blocking("decoy-Passw0rd").ok());

/// Gives each hash's 19 MiB work area back to the system when the hash ends. glibc's default
/// raises its mmap threshold to the size of the first large block freed, so later work areas
/// come from the heap and stay resident: the auth function grew by 19 MiB per login up to
/// 147 MiB. A fixed threshold (which also turns the adjustment off) keeps every block of 1 MiB
/// or more in its own mapping, unmapped on free; the function stays under 30 MiB.
fn return_work_areas_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocator parameters, under its own locks.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn hash_blocking(password: &str) -> anyhow::Result<String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| anyhow::anyhow!("argon2 hashing failed: {e}"))
}

fn verify_blocking(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
        .unwrap_or(false)
}

/// Hashes running at once: one per core. Each holds a 19 MiB work area and keeps a core busy,
/// so more would only add memory (50 concurrent logins held 1 GB) without adding throughput;
/// the others wait their turn on the async side. Every hash passes here first (the decoy's too,
/// made inside a verification), so this is also where the allocator is set up for them.
static HASHING: LazyLock<tokio::sync::Semaphore> = LazyLock::new(|| {
    return_work_areas_to_the_system();
    tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
});

/// Runs one hash or verification on a blocking thread once a core is free for it.
async fn on_a_free_core<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> anyhow::Result<T> {
    let _turn = HASHING.acquire().await?;
    Ok(tokio::task::spawn_blocking(work).await?)
}

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> anyhow::Result<String> {
    on_a_free_core(move || hash_blocking(&password)).await?
}

/// Checks a password against a stored PHC string; `None` runs a decoy check and fails.
pub async fn verify(password: String, phc: Option<String>) -> anyhow::Result<bool> {
    on_a_free_core(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            if let Some(decoy) = DECOY.as_deref() {
                verify_blocking(&password, decoy);
            }
            false
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_is_argon2id_and_verifies_only_its_password() {
        let phc = hash("Passw0rd1".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$"));
        assert!(verify("Passw0rd1".into(), Some(phc.clone())).await.unwrap());
        assert!(!verify("Passw0rd2".into(), Some(phc)).await.unwrap());
        assert!(!verify("Passw0rd1".into(), None).await.unwrap());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn more_concurrent_checks_than_cores_all_get_their_answer() {
        let phc = hash("Passw0rd1".into()).await.unwrap();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let checks = (0..3 * cores).map(|i| {
            let (password, phc) = (if i % 2 == 0 { "Passw0rd1" } else { "wrong" }, phc.clone());
            tokio::spawn(verify(password.into(), Some(phc)))
        });
        let answers = futures::future::join_all(checks).await;
        for (i, answer) in answers.into_iter().enumerate() {
            assert_eq!(answer.unwrap().unwrap(), i % 2 == 0);
        }
    }
}
