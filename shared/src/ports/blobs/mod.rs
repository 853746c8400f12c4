//! The blobs port: object storage reached by clients through pre-signed URLs. The service never
//! carries file bytes itself; it signs a PUT that binds key, content type, length (and MD5 when
//! known), signs time-limited GETs, and deletes objects. Two adapters: [`local::LocalBlobs`]
//! (files under the data dir, signed URLs served by the local gateway) and `s3::S3Blobs`
//! (aws-sdk-s3 native presigning).

use std::time::Duration;

use async_trait::async_trait;

pub mod local;
#[cfg(feature = "s3")]
pub mod s3;

/// What a signed upload binds: a PUT with another key, type, length or body MD5 is refused by
/// the storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadSpec {
    /// Object key.
    pub key: String,
    /// Exact `Content-Type` the PUT must carry.
    pub content_type: String,
    /// Exact body length in bytes.
    pub content_length: u64,
    /// MD5 of the body, when the client declared one (the storage verifies the bytes).
    pub md5: Option<[u8; 16]>,
    /// How long the URL stays valid.
    pub expires: Duration,
}

impl UploadSpec {
    /// The `Content-MD5` header value (base64 of the digest), when an MD5 is bound.
    pub fn content_md5(&self) -> Option<String> {
        use base64::Engine;
        self.md5.map(|md5| base64::engine::general_purpose::STANDARD.encode(md5))
    }
}

/// A signed upload: the URL and the headers the PUT must send with exactly these values
/// (`Content-Length` is implied by the body and not listed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresignedUpload {
    /// URL to PUT the bytes to.
    pub url: String,
    /// Header names and values the PUT must carry.
    pub headers: Vec<(String, String)>,
}

/// Object storage as the files feature needs it.
#[async_trait]
pub trait Blobs: Send + Sync + 'static {
    /// Signs an upload of one object.
    async fn presign_put(&self, upload: &UploadSpec) -> anyhow::Result<PresignedUpload>;

    /// Signs a download of `key` valid for `expires`.
    async fn presign_get(&self, key: &str, expires: Duration) -> anyhow::Result<String>;

    /// Makes an uploaded object permanent (S3: after a HeadObject, removes the `pending` tag
    /// that the lifecycle rule expires). Answers whether the object exists; an absent object is
    /// not an error.
    async fn confirm(&self, key: &str) -> anyhow::Result<bool>;

    /// Deletes an object; an absent object is not an error.
    async fn delete(&self, key: &str) -> anyhow::Result<()>;

    /// Whether an object exists.
    async fn exists(&self, key: &str) -> anyhow::Result<bool>;

    /// Checks that the storage answers and the bucket is there (for health reports).
    async fn ping(&self) -> anyhow::Result<()>;

    /// `S3` or `LOCAL`, as file records report it.
    fn storage_type(&self) -> &'static str;

    /// Name of the bucket holding the objects.
    fn bucket(&self) -> String;

    /// Routes the adapter serves itself, which the local gateway mounts (the local store's
    /// signed URLs); `None` when the storage is reached elsewhere.
    fn http_routes(&self) -> Option<axum::Router> {
        None
    }
}
