//! The embedded blob store: objects are files under a directory (`<BLOG_DATA_DIR>/blobs`), and
//! its signed URLs point at the local gateway, which serves them with [`LocalBlobs::router`]
//! (mounted at [`ROUTE_PREFIX`]). A browser PUTs bytes to an upload URL and GETs them back
//! exactly as it would against S3: a PUT whose `Content-Type` or `Content-Length` differ from
//! what was signed, a tampered or an expired URL get 403 with S3's XML error body, and an
//! optional `Content-MD5` that does not match the bytes gets 400 `BadDigest`. Objects under
//! `public/` are also served without a signature, as CloudFront serves them in AWS.

mod http;
mod signature;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use anyhow::Context;
use async_trait::async_trait;
use axum::Router;
use md5::{Digest, Md5};

use self::signature::{Bound, Signer};
use super::{
    Blobs, Fetched, ListedObject, ObjectInfo, PresignedUpload, Put, PutCondition, Served,
    UploadSpec,
};
use crate::ports::table::now_epoch_seconds;

/// Path under which the gateway serves the store's signed URLs.
pub const ROUTE_PREFIX: &str = "/_blobs";
/// Bucket name the local store reports.
pub const BUCKET: &str = "local";

/// Prefix of the store's temporary files (never part of an object key it hands out).
const TEMPORARY_PREFIX: &str = ".upload-";

/// Objects as files: `<root>/objects/<key>` holds the bytes, `<root>/types/<key>` the
/// content type given at upload.
#[derive(Clone)]
pub struct LocalBlobs {
    inner: Arc<Inner>,
}

struct Inner {
    root: PathBuf,
    base_url: String,
    signer: Signer,
    /// Held from a conditional write's check to its rename (one process serves the store).
    conditional_writes: tokio::sync::Mutex<()>,
}

impl LocalBlobs {
    /// A store under `root` whose URLs start with `base_url` (e.g. `http://127.0.0.1:3000`),
    /// signed with `signing_key` (keep it stable so URLs survive a restart).
    pub fn open(
        root: impl Into<PathBuf>,
        base_url: &str,
        signing_key: &[u8],
    ) -> anyhow::Result<Self> {
        let root = root.into();
        for dir in ["objects", "types"] {
            let path = root.join(dir);
            std::fs::create_dir_all(&path)
                .with_context(|| format!("creating {}", path.display()))?;
        }
        let base_url = base_url.trim_end_matches('/').to_string();
        let signer = Signer::new(signing_key);
        let conditional_writes = tokio::sync::Mutex::new(());
        Ok(Self { inner: Arc::new(Inner { root, base_url, signer, conditional_writes }) })
    }

    /// The routes serving the signed URLs (PUT and GET under [`ROUTE_PREFIX`]), with a CORS
    /// policy that lets a browser page of any origin use them.
    pub fn router(&self) -> Router {
        http::router(self.clone())
    }

    fn objects(&self) -> PathBuf {
        self.inner.root.join("objects")
    }

    fn object_path(&self, key: &str) -> Option<PathBuf> {
        valid_key(key).then(|| self.objects().join(key))
    }

    fn type_path(&self, key: &str) -> PathBuf {
        self.inner.root.join("types").join(key)
    }

    fn url(&self, key: &str, expires: i64, signature: &str) -> String {
        let base = &self.inner.base_url;
        format!("{base}{ROUTE_PREFIX}/{key}?expires={expires}&signature={signature}")
    }

    async fn store(&self, key: &str, content_type: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.object_path(key).context("invalid object key")?;
        write_atomically(&self.type_path(key), content_type.as_bytes()).await?;
        write_atomically(&path, bytes).await
    }
}

/// Keys are `/`-separated segments of letters, digits, `.`, `_` and `-`, never `.` or `..`.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 1024
        && key.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        })
}

/// A fresh temporary path beside `path` (same directory, so a rename onto `path` is atomic).
fn temporary_beside(path: &Path) -> anyhow::Result<PathBuf> {
    let dir = path.parent().context("object path without a directory")?;
    Ok(dir.join(format!("{TEMPORARY_PREFIX}{}", uuid::Uuid::new_v4().simple())))
}

async fn create_parent(path: &Path) -> anyhow::Result<()> {
    let dir = path.parent().context("object path without a directory")?;
    tokio::fs::create_dir_all(dir).await.with_context(|| format!("creating {}", dir.display()))
}

/// Writes through a temporary file and a rename, so a reader never sees half an object and
/// the bytes of a file never change once it is in place.
async fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    create_parent(path).await?;
    let temporary = temporary_beside(path)?;
    tokio::fs::write(&temporary, bytes)
        .await
        .with_context(|| format!("writing {}", temporary.display()))?;
    tokio::fs::rename(&temporary, path)
        .await
        .with_context(|| format!("renaming to {}", path.display()))
}

async fn remove_if_present(path: &Path) -> anyhow::Result<()> {
    match tokio::fs::remove_file(path).await {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// The bytes of `path`, `None` when there is no such file.
async fn read_if_present(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    match tokio::fs::read(path).await {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file under `dir`, recursively, with its path relative to `base` as a key (temporary
/// files left out).
async fn files_under(base: &Path, dir: PathBuf) -> anyhow::Result<Vec<ListedObject>> {
    let mut listed = Vec::new();
    let mut pending = vec![dir];
    while let Some(dir) = pending.pop() {
        let mut entries = match tokio::fs::read_dir(&dir).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
        };
        while let Some(entry) = entries.next_entry().await? {
            let metadata = entry.metadata().await?;
            let path = entry.path();
            if metadata.is_dir() {
                pending.push(path);
            } else if !entry.file_name().to_string_lossy().starts_with(TEMPORARY_PREFIX) {
                let relative = path.strip_prefix(base).context("a path outside the store")?;
                let key = relative.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
                listed.push(ListedObject { key, modified: metadata.modified()? });
            }
        }
    }
    Ok(listed)
}

#[async_trait]
impl Blobs for LocalBlobs {
    async fn presign_put(&self, upload: &UploadSpec) -> anyhow::Result<PresignedUpload> {
        anyhow::ensure!(valid_key(&upload.key), "invalid object key `{}`", upload.key);
        let expires = now_epoch_seconds() + upload.expires.as_secs() as i64;
        let length = upload.content_length.to_string();
        let bound = Bound {
            method: "PUT",
            content_type: &upload.content_type,
            content_length: &length,
            ..Bound::default()
        };
        let signature = self.inner.signer.sign(&upload.key, &bound, expires);
        let headers = vec![("Content-Type".to_string(), upload.content_type.clone())];
        Ok(PresignedUpload { url: self.url(&upload.key, expires, &signature), headers })
    }

    async fn presign_get(
        &self,
        key: &str,
        expires: Duration,
        served: &Served,
    ) -> anyhow::Result<String> {
        anyhow::ensure!(valid_key(key), "invalid object key `{key}`");
        let expires = now_epoch_seconds() + expires.as_secs() as i64;
        let bound = Bound {
            method: "GET",
            content_type: &served.content_type,
            disposition: &served.disposition,
            ..Bound::default()
        };
        let signature = self.inner.signer.sign(key, &bound, expires);
        let encode =
            |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let (content_type, disposition) =
            (encode(&served.content_type), encode(&served.disposition));
        let url = self.url(key, expires, &signature);
        Ok(format!("{url}&type={content_type}&disposition={disposition}"))
    }

    async fn head(&self, key: &str) -> anyhow::Result<Option<ObjectInfo>> {
        let path = self.object_path(key).context("invalid object key")?;
        let bytes = read_if_present(&path).await?;
        Ok(bytes.map(|bytes| ObjectInfo { size: bytes.len() as u64, etag: md5_hex(&bytes) }))
    }

    /// A hard link takes hold of the file now at `from` (a later upload replaces that path
    /// with another file, never changes this one), its bytes are checked against `etag`, and a
    /// rename puts it at `to`.
    async fn copy_if_match(&self, from: &str, to: &str, etag: &str) -> anyhow::Result<bool> {
        let source = self.object_path(from).context("invalid object key")?;
        let target = self.object_path(to).context("invalid object key")?;
        create_parent(&target).await?;
        let held = temporary_beside(&target)?;
        match tokio::fs::hard_link(&source, &held).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e).with_context(|| format!("linking {}", source.display())),
        }
        let outcome = async {
            let bytes = tokio::fs::read(&held).await?;
            if !md5_hex(&bytes).eq_ignore_ascii_case(etag) {
                return Ok(false);
            }
            if let Some(content_type) = read_if_present(&self.type_path(from)).await? {
                write_atomically(&self.type_path(to), &content_type).await?;
            }
            tokio::fs::rename(&held, &target)
                .await
                .with_context(|| format!("renaming to {}", target.display()))?;
            Ok(true)
        }
        .await;
        remove_if_present(&held).await?;
        outcome
    }

    async fn get(&self, key: &str, if_none_match: Option<&str>) -> anyhow::Result<Fetched> {
        let path = self.object_path(key).context("invalid object key")?;
        Ok(match read_if_present(&path).await? {
            None => Fetched::Missing,
            Some(bytes) => {
                let etag = md5_hex(&bytes);
                if if_none_match.is_some_and(|wanted| wanted.eq_ignore_ascii_case(&etag)) {
                    Fetched::Unchanged
                } else {
                    Fetched::Found { bytes, etag }
                }
            }
        })
    }

    async fn put(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        condition: PutCondition,
    ) -> anyhow::Result<Put> {
        let _writing = self.inner.conditional_writes.lock().await;
        let current = self.head(key).await?.map(|object| object.etag);
        let holds = match (&condition, &current) {
            (PutCondition::Absent, current) => current.is_none(),
            (PutCondition::Matches(wanted), Some(etag)) => wanted.eq_ignore_ascii_case(etag),
            (PutCondition::Matches(_), None) => false,
        };
        if !holds {
            return Ok(Put::ConditionFailed);
        }
        let etag = md5_hex(&bytes);
        self.store(key, content_type, &bytes).await?;
        Ok(Put::Stored { etag })
    }

    async fn list(&self, prefix: &str) -> anyhow::Result<Vec<ListedObject>> {
        let objects = self.objects();
        let dir = match prefix.rsplit_once('/') {
            Some((dir, _)) => self.object_path(dir).context("invalid key prefix")?,
            None => objects.clone(),
        };
        let mut listed = files_under(&objects, dir).await?;
        listed.retain(|object| object.key.starts_with(prefix));
        Ok(listed)
    }

    async fn delete(&self, key: &str) -> anyhow::Result<()> {
        let path = self.object_path(key).context("invalid object key")?;
        remove_if_present(&path).await?;
        remove_if_present(&self.type_path(key)).await
    }

    async fn exists(&self, key: &str) -> anyhow::Result<bool> {
        let path = self.object_path(key).context("invalid object key")?;
        tokio::fs::try_exists(&path).await.with_context(|| format!("checking {}", path.display()))
    }

    async fn ping(&self) -> anyhow::Result<()> {
        let objects = self.objects();
        let metadata = tokio::fs::metadata(&objects)
            .await
            .with_context(|| format!("checking {}", objects.display()))?;
        anyhow::ensure!(metadata.is_dir(), "{} is not a directory", objects.display());
        Ok(())
    }

    fn storage_type(&self) -> &'static str {
        "LOCAL"
    }

    fn bucket(&self) -> String {
        BUCKET.into()
    }

    fn http_routes(&self) -> Option<Router> {
        Some(self.router())
    }

    fn public_url(&self, key: &str) -> Option<String> {
        let public = key.starts_with(super::PUBLIC_PREFIX) && valid_key(key);
        public.then(|| format!("{}{ROUTE_PREFIX}/{key}", self.inner.base_url))
    }
}

#[cfg(test)]
mod tests;
