//! The blobs port: object storage reached by clients through pre-signed URLs. The service never
//! carries file bytes itself; it signs a PUT that binds key, content type and length, signs
//! time-limited GETs, describes stored objects (size and entity tag), copies an object on
//! condition that it is still the one described, lists and deletes objects. It also reads and
//! writes small objects of the service's own whole, on conditions of their entity tags (S3's
//! conditional requests), so that two writers never lose each other's update. Two adapters:
//! [`local::LocalBlobs`] (files under the data dir, signed URLs served by the local gateway) and
//! `s3::S3Blobs` (aws-sdk-s3 native presigning).

use std::time::{Duration, SystemTime};

use async_trait::async_trait;

pub mod local;
#[cfg(feature = "s3")]
pub mod s3;

/// What a signed upload binds: a PUT with another key, type or length is refused by the
/// storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadSpec {
    /// Object key.
    pub key: String,
    /// Exact `Content-Type` the PUT must carry.
    pub content_type: String,
    /// Exact body length in bytes.
    pub content_length: u64,
    /// How long the URL stays valid.
    pub expires: Duration,
}

/// A signed upload: the URL and the headers to send with it (`Content-Type`; `Content-Length`
/// is implied by the body and not listed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresignedUpload {
    /// URL to PUT the bytes to.
    pub url: String,
    /// Header names and values the PUT carries.
    pub headers: Vec<(String, String)>,
}

/// A stored object as the storage describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Size in bytes.
    pub size: u64,
    /// The entity tag, without quotes. For an object stored by one PUT it is the hex MD5 of its
    /// bytes (S3 with SSE-S3 or no encryption, and the local store); multipart uploads and
    /// SSE-KMS give other shapes.
    pub etag: String,
}

impl ObjectInfo {
    /// The MD5 of the bytes (32 lower-case hex digits) when the entity tag is one.
    pub fn md5_hex(&self) -> Option<String> {
        let etag = self.etag.to_ascii_lowercase();
        (etag.len() == 32 && etag.bytes().all(|b| b.is_ascii_hexdigit())).then_some(etag)
    }
}

/// How a download is served: the type it is served as, and whether a browser shows it or
/// saves it (`Content-Disposition`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// `Content-Type` of the answer.
    pub content_type: String,
    /// `Content-Disposition` of the answer.
    pub disposition: String,
}

/// An object of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedObject {
    /// Its key.
    pub key: String,
    /// When it was last written.
    pub modified: SystemTime,
}

/// An object read with [`Blobs::get`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    /// There is no such object.
    Missing,
    /// The object still has the entity tag the read named (S3: 304 Not Modified).
    Unchanged,
    /// The object's bytes and entity tag (without quotes).
    Found {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Its entity tag, to name in a later conditional read or write.
        etag: String,
    },
}

/// The condition of a [`Blobs::put`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PutCondition {
    /// Only when there is no object at the key yet (S3: `If-None-Match: *`).
    Absent,
    /// Only when the object still has this entity tag (S3: `If-Match`).
    Matches(String),
}

/// What a conditional [`Blobs::put`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Put {
    /// The bytes are stored, under this entity tag.
    Stored {
        /// The new object's entity tag.
        etag: String,
    },
    /// The condition did not hold (another writer came first); nothing was written.
    ConditionFailed,
}

/// Prefix of the objects anyone may read at their [`Blobs::public_url`], with no signature and
/// no expiry (images an article or a profile shows). Everything else stays private.
pub const PUBLIC_PREFIX: &str = "public/";

/// Object storage as the features need it.
#[async_trait]
pub trait Blobs: Send + Sync + 'static {
    /// Signs an upload of one object.
    async fn presign_put(&self, upload: &UploadSpec) -> anyhow::Result<PresignedUpload>;

    /// Signs a download of `key` valid for `expires`, answered with the headers of `served`
    /// (S3: the signed `response-content-type` and `response-content-disposition` overrides).
    async fn presign_get(
        &self,
        key: &str,
        expires: Duration,
        served: &Served,
    ) -> anyhow::Result<String>;

    /// Size and entity tag of `key` (S3: HeadObject); `None` when there is no such object.
    async fn head(&self, key: &str) -> anyhow::Result<Option<ObjectInfo>>;

    /// Stores the bytes of `from` at `to` (replacing it), with the content type given at the
    /// upload, when `from` still has the entity tag `etag` (S3: CopyObject with
    /// `x-amz-copy-source-if-match`; the local store: a hard link and an atomic rename). Answers
    /// `false`, copying nothing, when `from` is absent or was overwritten with other bytes.
    /// `from` stays.
    async fn copy_if_match(&self, from: &str, to: &str, etag: &str) -> anyhow::Result<bool>;

    /// The bytes and entity tag of `key` (S3: GetObject), or [`Fetched::Unchanged`] when its
    /// entity tag is still `if_none_match`, so that checking an object held in memory costs
    /// no transfer.
    async fn get(&self, key: &str, if_none_match: Option<&str>) -> anyhow::Result<Fetched>;

    /// Stores `bytes` at `key` as `content_type` when `condition` holds (S3's conditional
    /// writes); else writes nothing and answers [`Put::ConditionFailed`].
    async fn put(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        condition: PutCondition,
    ) -> anyhow::Result<Put>;

    /// Every object whose key starts with `prefix`.
    async fn list(&self, prefix: &str) -> anyhow::Result<Vec<ListedObject>>;

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

    /// The permanent URL of `key`, an object under [`PUBLIC_PREFIX`] (in AWS the public files'
    /// CloudFront distribution, locally the store itself); `None` for any other key, and when
    /// the storage has no public URLs configured.
    fn public_url(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// Routes the adapter serves itself, which the local gateway mounts (the local store's
    /// signed URLs); `None` when the storage is reached elsewhere.
    fn http_routes(&self) -> Option<axum::Router> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_entity_tag_of_32_hex_digits_is_an_md5() {
        let info = |etag: &str| ObjectInfo { size: 1, etag: etag.into() };
        let md5 = "0123456789ABCDEF0123456789abcdef";
        assert_eq!(info(md5).md5_hex().as_deref(), Some("0123456789abcdef0123456789abcdef"));
        assert_eq!(info("0123456789abcdef0123456789abcdef-2").md5_hex(), None, "multipart");
        assert_eq!(info("").md5_hex(), None);
        assert_eq!(info("0123456789abcdef0123456789abcdeg").md5_hex(), None);
    }
}
