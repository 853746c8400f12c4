//! Argon2id password hashing (default parameters: 19 MiB, 2 passes), off the async threads.

use std::sync::LazyLock;

use argon2::{
    password_hash::{phc::PasswordHash, PasswordHasher, PasswordVerifier},
    Argon2,
};

/// A hash of a throw-away password, verified when the account is unknown so that an unknown
/// user name costs the same time as a wrong password.
static DECOY: LazyLock<Option<String>> = LazyLock::new(|| hash_blocking("decoy-Passw0rd").ok());

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

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || hash_blocking(&password)).await?
}

/// Checks a password against a stored PHC string; `None` runs a decoy check and fails.
pub async fn verify(password: String, phc: Option<String>) -> anyhow::Result<bool> {
    Ok(tokio::task::spawn_blocking(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            if let Some(decoy) = DECOY.as_deref() {
                verify_blocking(&password, decoy);
            }
            false
        }
    })
    .await?)
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
}
