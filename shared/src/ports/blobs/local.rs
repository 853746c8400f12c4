//! The embedded blob store: objects are files under a directory (`<BLOG_DATA_DIR>/blobs`), and
//! its signed URLs point at the local gateway, which serves them with [`LocalBlobs::router`]
//! (mounted at [`ROUTE_PREFIX`]). A browser PUTs bytes to an upload URL and GETs them back
//! exactly as it would against S3: a PUT whose `Content-Type`, `Content-Length` or `Content-MD5`
//! differ from what was signed, a tampered or an expired URL get 403 (`BadDigest` 400 when the
//! bytes do not match the signed MD5), with S3's XML error body.

mod signature;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use anyhow::Context;
use async_trait::async_trait;
use axum::{
    body::{Body, Bytes},
    extract::{rejection::QueryRejection, Path as UrlPath, Query, State},
    http::{header, HeaderMap, HeaderName, Method, StatusCode},
    response::{IntoResponse, Response},
    routing::get,
    Router,
};
use md5::{Digest, Md5};
use serde::Deserialize;

use self::signature::{Bound, Refusal, Signer};
use super::{Blobs, PresignedUpload, UploadSpec};
use crate::ports::table::now_epoch_seconds;

/// Path under which the gateway serves the store's signed URLs.
pub const ROUTE_PREFIX: &str = "/_blobs";
/// Bucket name the local store reports.
pub const BUCKET: &str = "local";
/// Largest object the store accepts (a signed length above it is refused).
const MAX_OBJECT_BYTES: u64 = 64 * 1024 * 1024;

const CONTENT_MD5: HeaderName = HeaderName::from_static("content-md5");

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
        Ok(Self { inner: Arc::new(Inner { root, base_url, signer: Signer::new(signing_key) }) })
    }

    /// The routes serving the signed URLs (PUT and GET under [`ROUTE_PREFIX`]), with a CORS
    /// policy that lets a browser page of any origin use them.
    pub fn router(&self) -> Router {
        let cors = tower_http::cors::CorsLayer::new()
            .allow_origin(tower_http::cors::Any)
            .allow_methods([Method::GET, Method::PUT])
            .allow_headers([header::CONTENT_TYPE, CONTENT_MD5])
            .expose_headers([header::ETAG])
            .max_age(Duration::from_secs(600));
        Router::new()
            .route(&format!("{ROUTE_PREFIX}/{{*key}}"), get(download).put(upload))
            .with_state(self.clone())
            .layer(cors)
    }

    fn object_path(&self, key: &str) -> Option<PathBuf> {
        valid_key(key).then(|| self.inner.root.join("objects").join(key))
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
        write_atomically(&path, bytes).await?;
        write_atomically(&self.type_path(key), content_type.as_bytes()).await
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

/// Writes through a temporary file and a rename, so a reader never sees half an object.
async fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("object path without a directory")?;
    tokio::fs::create_dir_all(dir).await.with_context(|| format!("creating {}", dir.display()))?;
    let temporary = dir.join(format!(".upload-{}", uuid::Uuid::new_v4().simple()));
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

#[async_trait]
impl Blobs for LocalBlobs {
    async fn presign_put(&self, upload: &UploadSpec) -> anyhow::Result<PresignedUpload> {
        anyhow::ensure!(valid_key(&upload.key), "invalid object key `{}`", upload.key);
        let expires = now_epoch_seconds() + upload.expires.as_secs() as i64;
        let length = upload.content_length.to_string();
        let md5 = upload.content_md5();
        let bound = Bound {
            method: "PUT",
            content_type: &upload.content_type,
            content_length: &length,
            content_md5: md5.as_deref().unwrap_or_default(),
        };
        let signature = self.inner.signer.sign(&upload.key, &bound, expires);
        let mut headers = vec![("Content-Type".to_string(), upload.content_type.clone())];
        headers.extend(md5.map(|md5| ("Content-MD5".to_string(), md5)));
        Ok(PresignedUpload { url: self.url(&upload.key, expires, &signature), headers })
    }

    async fn presign_get(&self, key: &str, expires: Duration) -> anyhow::Result<String> {
        anyhow::ensure!(valid_key(key), "invalid object key `{key}`");
        let expires = now_epoch_seconds() + expires.as_secs() as i64;
        let signature =
            self.inner.signer.sign(key, &Bound { method: "GET", ..Bound::default() }, expires);
        Ok(self.url(key, expires, &signature))
    }

    async fn confirm(&self, key: &str) -> anyhow::Result<bool> {
        self.exists(key).await
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
        let objects = self.inner.root.join("objects");
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
}

/// Query of a signed URL.
#[derive(Deserialize)]
struct Signed {
    expires: i64,
    signature: String,
}

/// An S3-style error answer: status and `<Error><Code>..</Code><Message>..</Message></Error>`.
fn s3_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message></Error>"
    );
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Expired => s3_error(StatusCode::FORBIDDEN, "AccessDenied", "Request has expired"),
        Refusal::Mismatch => s3_error(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature does not match the signed headers",
        ),
    }
}

fn header_text<'a>(headers: &'a HeaderMap, name: &HeaderName) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

fn internal(error: anyhow::Error) -> Response {
    tracing::error!(error = format!("{error:#}"), "local blob store failure");
    s3_error(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", "We encountered an internal error")
}

async fn upload(
    State(store): State<LocalBlobs>,
    UrlPath(key): UrlPath<String>,
    query: Result<Query<Signed>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Ok(Query(signed)) = query else {
        return s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Query-string authentication required",
        );
    };
    let content_length = header_text(&headers, &header::CONTENT_LENGTH);
    let bound = Bound {
        method: "PUT",
        content_type: header_text(&headers, &header::CONTENT_TYPE),
        content_length,
        content_md5: header_text(&headers, &CONTENT_MD5),
    };
    let now = now_epoch_seconds();
    if let Err(refusal) =
        store.inner.signer.verify(&key, &bound, signed.expires, &signed.signature, now)
    {
        return refused(refusal);
    }
    let Some(length) = content_length.parse::<u64>().ok().filter(|n| *n <= MAX_OBJECT_BYTES) else {
        return s3_error(StatusCode::BAD_REQUEST, "InvalidArgument", "Unusable Content-Length");
    };
    let bytes: Bytes = match axum::body::to_bytes(body, length as usize).await {
        Ok(bytes) if bytes.len() as u64 == length => bytes,
        _ => {
            return s3_error(
                StatusCode::BAD_REQUEST,
                "IncompleteBody",
                "Body length differs from Content-Length",
            )
        }
    };
    let digest = Md5::digest(&bytes);
    if !bound.content_md5.is_empty() {
        use base64::Engine;
        let expected = base64::engine::general_purpose::STANDARD.decode(bound.content_md5);
        if expected.ok().as_deref() != Some(digest.as_slice()) {
            return s3_error(
                StatusCode::BAD_REQUEST,
                "BadDigest",
                "The Content-MD5 you specified did not match what we received",
            );
        }
    }
    if let Err(error) = store.store(&key, bound.content_type, &bytes).await {
        return internal(error);
    }
    let etag: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    (StatusCode::OK, [(header::ETAG, format!("\"{etag}\""))]).into_response()
}

async fn download(
    State(store): State<LocalBlobs>,
    UrlPath(key): UrlPath<String>,
    query: Result<Query<Signed>, QueryRejection>,
) -> Response {
    let Ok(Query(signed)) = query else {
        return s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Query-string authentication required",
        );
    };
    let bound = Bound { method: "GET", ..Bound::default() };
    let now = now_epoch_seconds();
    if let Err(refusal) =
        store.inner.signer.verify(&key, &bound, signed.expires, &signed.signature, now)
    {
        return refused(refusal);
    }
    let Some(path) = store.object_path(&key) else {
        return s3_error(StatusCode::NOT_FOUND, "NoSuchKey", "The specified key does not exist.");
    };
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return s3_error(
                StatusCode::NOT_FOUND,
                "NoSuchKey",
                "The specified key does not exist.",
            )
        }
        Err(e) => {
            return internal(anyhow::Error::new(e).context(format!("reading {}", path.display())))
        }
    };
    let content_type = tokio::fs::read_to_string(store.type_path(&key))
        .await
        .unwrap_or_else(|_| "application/octet-stream".into());
    (StatusCode::OK, [(header::CONTENT_TYPE, content_type)], bytes).into_response()
}

#[cfg(test)]
mod tests;
