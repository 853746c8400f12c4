//! The local gateway's data directory and the secrets it generates there, private to the user
//! that runs it: the directory is 0700, each secret 0600 from the moment it is created (no
//! window in which another user could read it), and a secret file others can read is refused.

use std::{
    fs,
    io::Write,
    os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt},
    path::Path,
};

use anyhow::{bail, Context};

/// Permission bits that let the group or others in.
const SHARED: u32 = 0o077;

/// Creates `dir` (and its parents) only its owner can enter; an existing one others could
/// enter is made private.
pub fn private_dir(dir: &Path) -> anyhow::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    let mode = fs::metadata(dir)?.permissions().mode();
    if mode & SHARED != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .with_context(|| format!("making {} private (chmod 700)", dir.display()))?;
        tracing::info!(dir = %dir.display(), was = format!("{:o}", mode & 0o777), "data directory made private (700)");
    }
    Ok(())
}

/// The secret kept in `path`: read when it exists (refused when others can read it), else 32
/// random bytes as hex, written to a new file only the owner can read.
pub fn secret_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        private_dir(dir)?;
    }
    if let Ok(metadata) = fs::metadata(path) {
        let mode = metadata.permissions().mode();
        if mode & SHARED != 0 {
            bail!(
                "{path} can be read by other users (mode {mode:o}): anyone on this machine may \
                 have copied it. Delete it to generate a new one (tokens and URLs signed with it \
                 stop working), or `chmod 600 {path}` if no one else could have read it",
                path = path.display(),
                mode = mode & 0o777,
            );
        }
        let existing =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if existing.trim().len() >= 32 {
            return Ok(existing.trim().as_bytes().to_vec());
        }
        fs::remove_file(path)?;
    }
    let secret: String = {
        use rand::Rng;
        let bytes: [u8; 32] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    };
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(secret.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    Ok(secret.into_bytes())
}

/// Makes the database at `path` private before it is opened: created 0600 when absent (SQLite
/// gives its `-wal` and `-shm` files the database's mode), and an existing one, or its WAL
/// files, that others could read made 0600.
pub fn private_database(path: &Path) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        private_dir(dir)?;
    }
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    for suffix in ["", "-wal", "-shm"] {
        let file = Path::new(&format!("{}{suffix}", path.display())).to_path_buf();
        let Ok(metadata) = fs::metadata(&file) else { continue };
        let mode = metadata.permissions().mode();
        if mode & SHARED != 0 {
            fs::set_permissions(&file, fs::Permissions::from_mode(0o600))
                .with_context(|| format!("making {} private (chmod 600)", file.display()))?;
            tracing::info!(file = %file.display(), was = format!("{:o}", mode & 0o777), "database file made private (600)");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_generated_secret_and_its_directory_are_private_and_kept() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("data/jwt-secret");
        let secret = secret_file(&path).unwrap();
        assert_eq!((mode(&path), mode(path.parent().unwrap())), (0o600, 0o700));
        assert_eq!(secret_file(&path).unwrap(), secret, "kept across restarts");
    }

    #[test]
    fn the_database_and_its_wal_files_are_private_whether_new_or_found_shared() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("data/blog.db");
        private_database(&path).unwrap();
        assert_eq!((mode(&path), mode(path.parent().unwrap())), (0o600, 0o700));
        let wal = root.path().join("data/blog.db-wal");
        fs::write(&wal, "").unwrap();
        for file in [&path, &wal] {
            fs::set_permissions(file, fs::Permissions::from_mode(0o644)).unwrap();
        }
        private_database(&path).unwrap();
        assert_eq!((mode(&path), mode(&wal)), (0o600, 0o600));
    }

    #[test]
    fn a_secret_others_can_read_is_refused_and_a_shared_directory_made_private() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.join("blob-signing-key");
        fs::write(&path, "0".repeat(64)).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let error = secret_file(&path).unwrap_err().to_string();
        assert!(
            error.contains("can be read by other users") && error.contains("chmod 600"),
            "{error}"
        );
        assert_eq!(mode(&dir), 0o700);
    }
}
