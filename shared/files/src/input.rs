//! Validation of presigned requests (decisions "Files"): required fields, permitted types with
//! matching extensions, size limits, safe names, MD5 format; and the server-generated keys.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use blog_core::ports::blobs::PUBLIC_PREFIX;

use super::{
    envelope::{FileError, FileFault},
    model::{AccessPolicy, RefType},
};

/// Largest file: 10 MB.
pub const MAX_FILE_SIZE: i64 = 10 * 1024 * 1024;
/// Longest file name, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/// Permitted MIME types and the extensions each may carry.
const PERMITTED: [(&str, &[&str]); 6] = [
    ("image/jpeg", &["jpg", "jpeg"]),
    ("image/png", &["png"]),
    ("image/gif", &["gif"]),
    ("image/webp", &["webp"]),
    ("application/pdf", &["pdf"]),
    (DOCX, &["docx"]),
];

/// Body of `POST /presigned`; every field optional here so that a missing one is named.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    as = PresignRequest,
    examples(json!({"fileName": "photo.png", "fileSize": 1024, "fileType": "image/png"}))
)]
pub struct PresignInput {
    /// The file's name: a stem that is not blank and an extension that fits `fileType`, no path
    /// separator or control character, at most 255 bytes (UTF-8).
    #[schema(
        value_type = String,
        required = true,
        min_length = 3,
        max_length = 255,
        pattern = r"^[^/\\\x00-\x1f\x7f-\x9f]*[^/\\\s\x00-\x1f\x7f-\x9f][^/\\\x00-\x1f\x7f-\x9f]*\.[^/\\.\x00-\x1f\x7f-\x9f]+$"
    )]
    file_name: Option<String>,
    /// Size in bytes, at most 10 MB.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 10485760)]
    file_size: Option<i64>,
    /// MIME type (case-insensitive): JPEG, PNG, GIF, WebP, PDF or DOCX.
    #[schema(schema_with = permitted_types, required = true)]
    file_type: Option<String>,
    /// MD5 of the content in 32 hex digits: confirm verifies the uploaded bytes against it, and
    /// once verified, an upload of the same content by the same user is instant.
    #[schema(pattern = "^[0-9A-Fa-f]{32}$")]
    md5: Option<String>,
    /// `PRIVATE` (the default: read through access URLs that expire) or `PUBLIC` (served to
    /// anyone at a permanent `cdnUrl`; images only: JPEG, PNG, GIF, WebP).
    #[schema(value_type = Option<AccessPolicy>)]
    access_policy: Option<String>,
    /// What the file belongs to: `ARTICLE`, `COMMENT`, `AVATAR` or `ATTACHMENT`.
    #[schema(value_type = Option<RefType>)]
    ref_type: Option<String>,
    /// Id of what it belongs to (needs `refType`): decimal digits, as a string or a number.
    #[schema(value_type = Option<String>, pattern = "^[1-9][0-9]*$")]
    ref_id: Option<serde_json::Value>,
}

fn permitted_types() -> utoipa::openapi::Object {
    let about = "MIME type (case-insensitive): JPEG, PNG, GIF, WebP, PDF or DOCX";
    blog_core::http::docs::string_enum(about, PERMITTED.map(|(mime, _)| mime))
}

/// A validated upload request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewUpload {
    /// File name as given.
    pub file_name: String,
    /// Size in bytes (1 to [`MAX_FILE_SIZE`]).
    pub file_size: u64,
    /// MIME type, lower case.
    pub file_type: String,
    /// Extension of the name, lower case.
    pub extension: String,
    /// MD5 as 32 lower-case hex digits, when given.
    pub md5: Option<String>,
    /// Who may read the bytes.
    pub access_policy: AccessPolicy,
    /// What the file belongs to, and its id when given.
    pub reference: Option<(RefType, Option<u64>)>,
}

/// Types a public file may have: images that run nothing in a browser (SVG is not accepted at
/// all: it can carry script).
const PUBLIC_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// `accessPolicy`: PRIVATE when absent; anything but PRIVATE or PUBLIC (any case) is 10001.
fn access_policy(raw: Option<String>) -> Result<AccessPolicy, FileError> {
    match raw.as_deref().map(|text| text.trim().to_ascii_uppercase()).as_deref() {
        None | Some("PRIVATE") => Ok(AccessPolicy::Private),
        Some("PUBLIC") => Ok(AccessPolicy::Public),
        Some(_) => {
            Err(FileFault::Validation("accessPolicy must be PUBLIC or PRIVATE".into()).into())
        }
    }
}

/// `refType` and `refId`: a type among the four (any case), an id of decimal digits (a string or
/// a number) only with a type.
fn reference(
    ref_type: Option<String>,
    ref_id: Option<serde_json::Value>,
) -> Result<Option<(RefType, Option<u64>)>, FileError> {
    let invalid = |why: &str| FileError::from(FileFault::Validation(why.into()));
    let id = match ref_id {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Number(n)) => Some(n.as_u64().filter(|id| *id > 0)),
        Some(serde_json::Value::String(text)) => Some(
            text.parse::<u64>()
                .ok()
                .filter(|id| *id > 0 && text.bytes().all(|b| b.is_ascii_digit())),
        ),
        Some(_) => Some(None),
    };
    let id = match id {
        Some(None) => return Err(invalid("refId must be an id: decimal digits, as a string")),
        Some(Some(id)) => Some(id),
        None => None,
    };
    let kind = match ref_type.as_deref().map(|text| text.trim().to_ascii_uppercase()).as_deref() {
        None => return if id.is_some() { Err(invalid("refId needs refType")) } else { Ok(None) },
        Some("ARTICLE") => RefType::Article,
        Some("COMMENT") => RefType::Comment,
        Some("AVATAR") => RefType::Avatar,
        Some("ATTACHMENT") => RefType::Attachment,
        Some(_) => return Err(invalid("refType must be ARTICLE, COMMENT, AVATAR or ATTACHMENT")),
    };
    Ok(Some((kind, id)))
}

/// Checks a presigned body; each broken rule answers its own code (10001, 11002, 11003, 11004).
pub fn validate(input: PresignInput) -> Result<NewUpload, FileError> {
    let required = |field: &str| FileFault::Validation(format!("{field} is required"));
    let file_name = input.file_name.ok_or_else(|| required("fileName"))?;
    let file_size = input.file_size.ok_or_else(|| required("fileSize"))?;
    let file_type =
        input.file_type.ok_or_else(|| required("fileType"))?.trim().to_ascii_lowercase();
    let Some((_, extensions)) = PERMITTED.iter().find(|(mime, _)| *mime == file_type) else {
        return Err(FileFault::InvalidType(format!(
            "file type `{file_type}` is not allowed (permitted: JPEG, PNG, GIF, WebP, PDF, DOCX)"
        ))
        .into());
    };
    let extension = extension_of(&file_name)?;
    if !extensions.contains(&extension.as_str()) {
        return Err(FileFault::InvalidType(format!(
            "extension `.{extension}` does not match file type `{file_type}`"
        ))
        .into());
    }
    if !(1..=MAX_FILE_SIZE).contains(&file_size) {
        return Err(FileFault::ExceedMaxSize(format!(
            "fileSize must be between 1 byte and 10 MB ({MAX_FILE_SIZE} bytes), got {file_size}"
        ))
        .into());
    }
    let md5 = input.md5.map(|md5| md5.to_ascii_lowercase());
    if let Some(md5) = &md5 {
        if md5.len() != 32 || !md5.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(FileFault::Validation("md5 must be 32 hexadecimal digits".into()).into());
        }
    }
    let access_policy = access_policy(input.access_policy)?;
    if access_policy == AccessPolicy::Public && !PUBLIC_TYPES.contains(&file_type.as_str()) {
        return Err(FileFault::InvalidType(format!(
            "a PUBLIC file must be an image (JPEG, PNG, GIF or WebP), not `{file_type}`: keep \
             other files PRIVATE"
        ))
        .into());
    }
    let reference = reference(input.ref_type, input.ref_id)?;
    Ok(NewUpload {
        file_name,
        file_size: file_size as u64,
        file_type,
        extension,
        md5,
        access_policy,
        reference,
    })
}

/// The lower-case extension of an acceptable file name, else 11004.
fn extension_of(name: &str) -> Result<String, FileError> {
    let invalid =
        |why: &str| FileError::from(FileFault::InvalidName(format!("invalid file name: {why}")));
    if name.len() > MAX_NAME_BYTES {
        return Err(invalid("longer than 255 bytes"));
    }
    if name.contains(['/', '\\']) {
        return Err(invalid("contains a path separator"));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid("contains a control character"));
    }
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.trim().is_empty() && !extension.is_empty() => {
            Ok(extension.to_ascii_lowercase())
        }
        _ => Err(invalid("a name with an extension is required")),
    }
}

/// A fresh object key: `uploads/YYYY/MM/DD/<32 hex>.<ext>`, under [`PUBLIC_PREFIX`] instead of
/// `uploads/` for a public file.
pub fn new_key(extension: &str, policy: AccessPolicy, now: DateTime<Utc>) -> String {
    let random = uuid::Uuid::new_v4().simple();
    let folder = match policy {
        AccessPolicy::Private => "uploads/",
        AccessPolicy::Public => PUBLIC_PREFIX,
    };
    format!("{folder}{}/{random}.{extension}", now.format("%Y/%m/%d"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn input(name: &str, size: i64, mime: &str, md5: Option<&str>) -> PresignInput {
        PresignInput {
            file_name: Some(name.into()),
            file_size: Some(size),
            file_type: Some(mime.into()),
            md5: md5.map(Into::into),
            access_policy: None,
            ref_type: None,
            ref_id: None,
        }
    }

    fn code(result: Result<NewUpload, FileError>) -> &'static str {
        match result {
            Ok(_) => "ok",
            Err(FileError::Own(FileFault::Validation(_))) => "10001",
            Err(FileError::Own(FileFault::InvalidType(_))) => "11002",
            Err(FileError::Own(FileFault::ExceedMaxSize(_))) => "11003",
            Err(FileError::Own(FileFault::InvalidName(_))) => "11004",
            Err(_) => "other",
        }
    }

    #[test]
    fn a_good_request_is_normalised() {
        let upload =
            validate(input("Photo.JPEG", 10, "Image/Jpeg", Some(&"AB".repeat(16)))).unwrap();
        assert_eq!(upload.file_type, "image/jpeg");
        assert_eq!(upload.extension, "jpeg");
        assert_eq!(upload.md5.as_deref(), Some("ab".repeat(16).as_str()));
        assert_eq!(code(validate(input("report.docx", 1, DOCX, None))), "ok");
    }

    #[test]
    fn each_broken_rule_has_its_code() {
        let missing = PresignInput {
            file_name: None,
            file_size: Some(1),
            file_type: Some("image/png".into()),
            md5: None,
            access_policy: None,
            ref_type: None,
            ref_id: None,
        };
        assert_eq!(code(validate(missing)), "10001");
        assert_eq!(code(validate(input("a.exe", 1, "application/x-msdownload", None))), "11002");
        assert_eq!(code(validate(input("a.png", 1, "image/jpeg", None))), "11002");
        assert_eq!(code(validate(input("a.png", 0, "image/png", None))), "11003");
        assert_eq!(code(validate(input("a.png", MAX_FILE_SIZE + 1, "image/png", None))), "11003");
        assert_eq!(code(validate(input("a.png", MAX_FILE_SIZE, "image/png", None))), "ok");
        for name in [
            "../a.png",
            "a\\b.png",
            "a\u{7}.png",
            "png",
            ".png",
            "a.",
            &format!("{}.png", "x".repeat(252)),
        ] {
            assert_eq!(code(validate(input(name, 1, "image/png", None))), "11004", "{name:?}");
        }
        assert_eq!(
            code(validate(input(&format!("{}.png", "x".repeat(251)), 1, "image/png", None))),
            "ok"
        );
        for md5 in ["", "abc", &"g".repeat(32), &"a".repeat(33)] {
            assert_eq!(
                code(validate(input("a.png", 1, "image/png", Some(md5)))),
                "10001",
                "{md5:?}"
            );
        }
    }

    #[test]
    fn keys_are_dated_and_random() {
        let now = Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
        let key = new_key("png", AccessPolicy::Private, now);
        assert!(key.starts_with("uploads/2026/03/04/") && key.ends_with(".png"), "{key}");
        let random = &key["uploads/2026/03/04/".len()..key.len() - 4];
        assert!(random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
        assert_ne!(new_key("png", AccessPolicy::Private, now), key);
        let public = new_key("png", AccessPolicy::Public, now);
        assert!(public.starts_with("public/2026/03/04/"), "{public}");
    }

    #[test]
    fn only_images_may_be_public_and_a_reference_needs_its_type() {
        let with = |policy: &str, mime: &str, name: &str| PresignInput {
            access_policy: Some(policy.into()),
            ..input(name, 1, mime, None)
        };
        let public = validate(with("public", "image/webp", "a.webp")).unwrap();
        assert_eq!(public.access_policy, AccessPolicy::Public);
        assert_eq!(code(validate(with("PUBLIC", "application/pdf", "a.pdf"))), "11002");
        assert_eq!(code(validate(with("PRIVATE", "application/pdf", "a.pdf"))), "ok");
        assert_eq!(code(validate(with("SHARED", "image/png", "a.png"))), "10001");
        let referenced = |kind: Option<&str>, id: Option<serde_json::Value>| PresignInput {
            ref_type: kind.map(Into::into),
            ref_id: id,
            ..input("a.png", 1, "image/png", None)
        };
        let article = validate(referenced(Some("article"), Some("42".into()))).unwrap();
        assert_eq!(article.reference, Some((RefType::Article, Some(42))));
        let avatar = validate(referenced(Some("AVATAR"), None)).unwrap();
        assert_eq!(avatar.reference, Some((RefType::Avatar, None)));
        assert_eq!(code(validate(referenced(Some("COMMENT"), Some(7.into())))), "ok");
        assert_eq!(code(validate(referenced(None, Some("42".into())))), "10001");
        assert_eq!(code(validate(referenced(Some("POST"), None))), "10001");
        for id in ["0", "-1", "4x", ""] {
            assert_eq!(code(validate(referenced(Some("ARTICLE"), Some(id.into())))), "10001");
        }
    }
}
