//! File records, stored-object markers, and the shapes the API answers with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::{
    codes::{self, Coded},
    http::docs::{api_time, id_string, id_string_or_null},
};

/// Where an upload stands (`uploadStatus`, stored and served as its code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadStatus {
    /// 0: created by presigned, not confirmed yet.
    Pending,
    /// 1: confirmed, or instant.
    Completed,
    /// 2: the stored bytes did not match the declared size or MD5 at confirm (final: a new
    /// upload starts over).
    Failed,
}

impl Coded for UploadStatus {
    const WHAT: &'static str = "upload status";

    fn code(self) -> i64 {
        match self {
            UploadStatus::Pending => 0,
            UploadStatus::Completed => 1,
            UploadStatus::Failed => 2,
        }
    }

    fn from_code(code: i64) -> Option<Self> {
        use UploadStatus::*;
        [Pending, Completed, Failed].into_iter().find(|status| status.code() == code)
    }
}

/// Who may read a file's bytes (`accessPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum AccessPolicy {
    /// Its owner and administrators, through access URLs that expire (the default).
    #[default]
    Private,
    /// Anyone, at its permanent `cdnUrl`: images an article or a profile shows.
    Public,
}

impl AccessPolicy {
    /// Whether it is [`AccessPolicy::Private`] (left out of stored records, as before).
    pub fn is_private(&self) -> bool {
        *self == AccessPolicy::Private
    }
}

/// What a file belongs to (`refType`), for its uploader's and the administrators' bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum RefType {
    /// An article (its cover or an image of its content).
    Article,
    /// A comment.
    Comment,
    /// A profile's avatar.
    Avatar,
    /// Anything attached elsewhere.
    Attachment,
}

/// A resized copy of a public image, as its record lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredVariant {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Key of its object, beside the original's (under `public/`).
    pub key: String,
    /// `image/jpeg`, `image/png` or `image/webp`.
    pub content_type: String,
}

/// A resized copy of a public image as the File object lists it, for a page's `srcset`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FileVariant)]
pub struct VariantView {
    /// Width in pixels (320, 640 or 1280; the image's own for one narrower than 320).
    #[schema(minimum = 1, maximum = 1280)]
    width: u32,
    /// Height in pixels (the image's aspect ratio kept).
    #[schema(minimum = 1)]
    height: u32,
    /// Its permanent URL (no signature, no expiry).
    #[schema(format = "uri")]
    url: String,
}

/// A stored file record (`FILE#<id>` / `META`). Deleting marks it `deleted`; it then answers
/// as absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord {
    /// Id.
    pub id: u64,
    /// Account that owns the record.
    pub owner_id: u64,
    /// Name given by the uploader, with extension.
    pub file_name: String,
    /// Size in bytes.
    pub file_size: u64,
    /// MIME type (lower case).
    pub file_type: String,
    /// Key of the stored object once confirmed.
    pub file_key: String,
    /// Key the upload URL writes to, from which confirm copies the verified bytes to
    /// `file_key`; `None` for instant records and for records written before uploads were
    /// staged (their bytes went straight to `file_key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staging_key: Option<String>,
    /// MD5 of the content (32 lower-case hex digits), when the uploader declared it; verified
    /// against the stored bytes at confirm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub md5: Option<String>,
    /// Partition key of the stored-object marker that counts this record (`OBJECT#<ownerId>#
    /// <md5>#<size>`); `None` when no marker counts it, or for records written before markers
    /// were per owner (see [`super::repo::marker_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_marker: Option<String>,
    /// `S3` or `LOCAL`.
    pub storage_type: String,
    /// Bucket of the stored object.
    pub bucket_name: String,
    /// Stored as 0 pending, 1 completed, 2 failed.
    #[serde(with = "codes::code")]
    pub upload_status: UploadStatus,
    /// Width in pixels of an image, as read from its bytes at confirm (its orientation
    /// applied); absent for other files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_width: Option<u32>,
    /// Height in pixels of an image, as read from its bytes at confirm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_height: Option<u32>,
    /// The resized copies of a public image, once the worker made them (`[]` when it could
    /// not: see `variants_error`); absent until then, and for every other file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variants: Option<Vec<StoredVariant>>,
    /// Why the worker made no variants of the image (its pixels could not be decoded, or a
    /// bomb's header lied about its size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variants_error: Option<String>,
    /// Who may read the bytes (absent in stored records: private).
    #[serde(default, skip_serializing_if = "AccessPolicy::is_private")]
    pub access_policy: AccessPolicy,
    /// What the file belongs to, when its uploader said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_type: Option<RefType>,
    /// Id of what it belongs to, when its uploader said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<u64>,
    /// Logically deleted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// Creation time.
    pub create_time: String,
    /// Last change.
    pub update_time: String,
}

impl FileRecord {
    /// Where the upload URL put the bytes: the staging key, or `file_key` for a record written
    /// before uploads were staged.
    pub fn uploaded_key(&self) -> &str {
        self.staging_key.as_deref().unwrap_or(&self.file_key)
    }

    /// Whether `caller` may act on the record: its owner, or an administrator.
    pub fn visible_to(&self, caller_id: u64, caller_is_admin: bool) -> bool {
        !self.deleted && (self.owner_id == caller_id || caller_is_admin)
    }

    /// The File object of the API (spec 2.7), with the permanent URL of a public file once it
    /// is COMPLETED (`public_url` gives a key's).
    pub fn view(&self, public_url: impl Fn(&str) -> Option<String>) -> FileView {
        let served = self.access_policy == AccessPolicy::Public
            && self.upload_status == UploadStatus::Completed;
        FileView {
            image_width: self.image_width,
            image_height: self.image_height,
            access_policy: self.access_policy,
            ref_type: self.ref_type,
            ref_id: self.ref_id.map(|id| id.to_string()),
            cdn_url: served.then(|| public_url(&self.file_key)).flatten(),
            variants: match (served, &self.variants) {
                (true, Some(variants)) => variants
                    .iter()
                    .filter_map(|variant| {
                        let url = public_url(&variant.key)?;
                        Some(VariantView { width: variant.width, height: variant.height, url })
                    })
                    .collect(),
                _ => Vec::new(),
            },
            id: self.id.to_string(),
            file_name: self.file_name.clone(),
            file_size: self.file_size,
            file_type: self.file_type.clone(),
            file_key: self.file_key.clone(),
            md5: self.md5.clone().unwrap_or_default(),
            storage_type: self.storage_type.clone(),
            bucket_name: self.bucket_name.clone(),
            upload_status: self.upload_status.code() as u8,
            create_time: self.create_time.clone(),
            update_time: self.update_time.clone(),
        }
    }
}

/// A stored object that completed records of one owner share (`OBJECT#<ownerId>#<md5>#<size>` /
/// `OBJECT`; markers written before they were per owner are `OBJECT#<md5>#<size>`): it exists
/// only for confirmed content whose MD5 was verified against the stored bytes, and `refs` counts
/// the live COMPLETED records pointing at `file_key`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRecord {
    /// MD5 of the content.
    pub md5: String,
    /// Size in bytes.
    pub file_size: u64,
    /// Key of the stored object.
    pub file_key: String,
    /// Live COMPLETED records pointing at the object.
    pub refs: i64,
    /// Width in pixels, when the object is an image (read at its confirm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_width: Option<u32>,
    /// Height in pixels, when the object is an image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_height: Option<u32>,
    /// When the first record completed.
    pub create_time: String,
}

/// The File object of the API.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = File)]
pub struct FileView {
    /// Id.
    #[schema(schema_with = id_string)]
    id: String,
    /// Name given by the uploader, with extension.
    file_name: String,
    /// Size in bytes.
    #[schema(minimum = 1, maximum = 10485760)]
    file_size: u64,
    /// MIME type, lower case.
    file_type: String,
    /// Key of the stored object: `uploads/YYYY/MM/DD/<32 hex>.<extension>`, or under `public/`
    /// for a public file.
    file_key: String,
    /// Width in pixels of an image (JPEG, PNG, GIF, WebP), read from its bytes at confirm with
    /// its orientation applied; `null` for other files and before confirm.
    #[schema(required = true, minimum = 1, maximum = 12000)]
    image_width: Option<u32>,
    /// Height in pixels of an image; `null` for other files and before confirm.
    #[schema(required = true, minimum = 1, maximum = 12000)]
    image_height: Option<u32>,
    /// `PRIVATE` (read through access URLs that expire) or `PUBLIC` (at `cdnUrl`).
    access_policy: AccessPolicy,
    /// The permanent URL of a PUBLIC file once COMPLETED (no signature, no expiry); `null`
    /// otherwise.
    #[schema(format = "uri", required = true)]
    cdn_url: Option<String>,
    /// Resized copies of a PUBLIC image (JPEG, PNG, GIF, WebP), widest first, for a page's
    /// `srcset`: one for each of 320, 640 and 1280 px up to the image's width (never
    /// upscaled), in a format every browser shows, without the original's metadata. The
    /// worker makes them shortly after confirm; `[]` until then, for other files, and for an
    /// image whose pixels could not be decoded.
    variants: Vec<VariantView>,
    /// What the file belongs to, when its uploader said.
    #[schema(required = true)]
    ref_type: Option<RefType>,
    /// Id of what it belongs to, when its uploader said.
    #[schema(schema_with = id_string_or_null, required = true)]
    ref_id: Option<String>,
    /// MD5 of the content in 32 lower-case hex digits; empty when none was declared.
    #[schema(pattern = "^([0-9a-f]{32})?$")]
    md5: String,
    /// `S3` or `LOCAL`.
    #[schema(schema_with = storage_types)]
    storage_type: String,
    /// Bucket of the stored object (`local` for the embedded store).
    bucket_name: String,
    /// 0 PENDING, 1 COMPLETED, 2 FAILED.
    #[schema(minimum = 0, maximum = 2)]
    upload_status: u8,
    /// Creation.
    #[schema(schema_with = api_time)]
    create_time: String,
    /// Last change.
    #[schema(schema_with = api_time)]
    update_time: String,
}

fn storage_types() -> utoipa::openapi::Object {
    blog_core::http::docs::string_enum("The storage provider", ["S3", "LOCAL"])
}

/// Answer of presigned: spec 4.7 plus `uploadHeaders`, the headers to send with the PUT
/// (`null` with `uploadUrl` when the upload was instant).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = PresignedUpload)]
pub struct PresignedView {
    /// Where to PUT the bytes; `null` for an instant upload.
    #[schema(format = "uri", required = true)]
    pub upload_url: Option<String>,
    /// Headers to send with the PUT: `Content-Type`, the declared `fileType` (the URL binds it
    /// and the length; nothing else is required); `null` for an instant upload.
    #[schema(required = true)]
    pub upload_headers: Option<BTreeMap<String, String>>,
    /// Id of the new record, as a string.
    #[schema(schema_with = id_string)]
    pub file_id: String,
    /// Key of the stored object once the upload is confirmed.
    pub file_key: String,
    /// The content was stored already: nothing to upload, the record is COMPLETED.
    pub instant: bool,
    /// Where a PUBLIC file is served once COMPLETED (at once for an instant upload); `null`
    /// for a private one.
    #[schema(format = "uri", required = true)]
    pub cdn_url: Option<String>,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_dynamo::{AttributeValue, Item};

    use super::*;

    /// A confirmed record as the table has held them since the first release.
    fn stored_record(status: &str) -> Item {
        let (n, s) = (|v: &str| AttributeValue::N(v.into()), |v: &str| AttributeValue::S(v.into()));
        let attributes = [
            ("id", n("9")),
            ("ownerId", n("2")),
            ("fileName", s("a.png")),
            ("fileSize", n("5")),
            ("fileType", s("image/png")),
            ("fileKey", s("uploads/2026/03/04/a.png")),
            ("stagingKey", s("incoming/a.png")),
            ("md5", s("5d41402abc4b2a76b9719d911017c592")),
            ("storageType", s("LOCAL")),
            ("bucketName", s("local")),
            ("uploadStatus", n(status)),
            ("createTime", s("2026-03-04T00:00:00")),
            ("updateTime", s("2026-03-04T00:01:00")),
        ];
        attributes.map(|(k, v)| (k.to_string(), v)).into_iter().collect::<HashMap<_, _>>().into()
    }

    fn record(upload_status: UploadStatus) -> FileRecord {
        FileRecord {
            id: 9,
            md5: Some("5d41402abc4b2a76b9719d911017c592".into()),
            upload_status,
            create_time: "2026-03-04T00:00:00".into(),
            update_time: "2026-03-04T00:01:00".into(),
            ..FileRecord::pending_for_tests()
        }
    }

    #[test]
    fn a_record_is_stored_with_the_attributes_and_types_of_the_first_layout() {
        use UploadStatus::*;
        for (status, code) in [(Pending, "0"), (Completed, "1"), (Failed, "2")] {
            let item: Item = serde_dynamo::to_item(record(status)).unwrap();
            assert_eq!(item, stored_record(code), "{status:?}");
            let read: FileRecord = serde_dynamo::from_item(stored_record(code)).unwrap();
            assert_eq!(read, record(status));
            let served = serde_json::to_value(read.view(|_| None)).unwrap();
            assert_eq!(served["uploadStatus"].to_string(), code);
        }
        assert!(serde_dynamo::from_item::<_, FileRecord>(stored_record("3")).is_err());
    }
}
