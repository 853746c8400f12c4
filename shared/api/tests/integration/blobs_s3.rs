//! The S3 adapter of the blobs port on s3s-fs (`BLOG_TEST_S3_ENDPOINT`), which verifies SigV4
//! like S3, one fresh bucket per test (ignored unless asked for:
//! `infra/emulators/with-emulators.sh cargo test -p blog-api --features s3,test-support
//! --test integration -- blobs_s3 --ignored`): what an upload URL binds, when URLs expire, what
//! HeadObject describes, the conditional copy that confirm makes from the staging key, and
//! listings.
#![cfg(all(feature = "s3", feature = "test-support"))]

use std::time::{Duration, SystemTime};

use base64::Engine;
use blog_api::ports::blobs::{s3::S3Blobs, Blobs, PresignedUpload, Served, UploadSpec};
use md5::{Digest, Md5};

const BYTES: &[u8] = b"%PDF-1.7 a tiny document";

async fn bucket() -> S3Blobs {
    let endpoint = std::env::var("BLOG_TEST_S3_ENDPOINT")
        .expect("BLOG_TEST_S3_ENDPOINT is not set: run through with-emulators.sh");
    let client = S3Blobs::test_client(&endpoint);
    let name = format!("blobs-{}", uuid::Uuid::new_v4().simple());
    S3Blobs::create_bucket(&client, &name).await.expect("create the bucket")
}

fn spec(expires: Duration) -> UploadSpec {
    UploadSpec {
        key: format!("incoming/{}.pdf", uuid::Uuid::new_v4().simple()),
        content_type: "application/pdf".into(),
        content_length: BYTES.len() as u64,
        expires,
    }
}

fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// An HTTP client (reqwest on rustls needs the process's crypto provider).
fn http() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::new()
}

/// PUTs `body` to a signed URL with `headers`; returns the status and the S3 error code.
async fn put(upload: &PresignedUpload, headers: &[(String, String)], body: &[u8]) -> (u16, String) {
    let mut request = http().put(&upload.url).body(body.to_vec());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let code = text.split("<Code>").nth(1).and_then(|t| t.split("</Code>").next());
    (status, code.unwrap_or_default().to_string())
}

/// Stores `body` at the key of `upload_spec` through a signed upload URL.
async fn upload(blobs: &S3Blobs, upload_spec: &UploadSpec, body: &[u8]) {
    let upload_spec = UploadSpec { content_length: body.len() as u64, ..upload_spec.clone() };
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    assert_eq!(put(&upload, &upload.headers, body).await.0, 200);
}

/// GETs `key` through a signed URL: content type and bytes.
async fn download(blobs: &S3Blobs, key: &str) -> (String, Vec<u8>) {
    let url = blobs.presign_get(key, Duration::from_secs(60), &Served::default()).await.unwrap();
    let response = http().get(&url).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "GET {key}");
    let content_type = response.headers()["content-type"].to_str().unwrap().to_string();
    (content_type, response.bytes().await.unwrap().to_vec())
}

fn content_type(value: &str) -> Vec<(String, String)> {
    vec![("Content-Type".to_string(), value.to_string())]
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn s3_takes_a_put_with_only_the_content_type_and_refuses_another_type_or_length() {
    let blobs = bucket().await;
    let upload_spec = spec(Duration::from_secs(900));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    assert_eq!(upload.headers, content_type("application/pdf"));
    let gif = content_type("image/gif");
    assert_eq!(put(&upload, &gif, BYTES).await, (403, "SignatureDoesNotMatch".into()));
    let longer = [BYTES, b"!"].concat();
    assert_eq!(put(&upload, &upload.headers, &longer).await.0, 403);
    assert_eq!(put(&upload, &upload.headers, &BYTES[1..]).await.0, 403);
    assert!(!blobs.exists(&upload_spec.key).await.unwrap(), "nothing stored");
    assert_eq!(put(&upload, &content_type("application/pdf"), BYTES).await.0, 200);

    let object = blobs.head(&upload_spec.key).await.unwrap().expect("stored");
    assert_eq!(object.size, BYTES.len() as u64);
    assert_eq!(object.md5_hex(), Some(md5_hex(BYTES)), "a single PUT's entity tag is its MD5");
    assert_eq!(download(&blobs, &upload_spec.key).await, ("application/pdf".into(), BYTES.into()));
    blobs.delete(&upload_spec.key).await.unwrap();
    assert_eq!(blobs.head(&upload_spec.key).await.unwrap(), None);
    blobs.delete(&upload_spec.key).await.expect("deleting an absent object is fine");
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn an_optional_content_md5_is_checked_against_the_bytes() {
    let blobs = bucket().await;
    let upload_spec = spec(Duration::from_secs(900));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    let md5 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(Md5::digest(bytes));
    let mut headers = upload.headers.clone();
    headers.push(("Content-MD5".into(), md5(b"other bytes")));
    assert_eq!(put(&upload, &headers, BYTES).await, (400, "BadDigest".into()));
    headers.pop();
    headers.push(("Content-MD5".into(), md5(BYTES)));
    assert_eq!(put(&upload, &headers, BYTES).await.0, 200, "unsigned, and still accepted");
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn s3_refuses_expired_urls() {
    let blobs = bucket().await;
    let upload_spec = spec(Duration::from_secs(1));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    let download = blobs
        .presign_get(&upload_spec.key, Duration::from_secs(1), &Served::default())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(put(&upload, &upload.headers, BYTES).await.0, 403);
    assert_eq!(http().get(&download).send().await.unwrap().status().as_u16(), 403);
    assert!(!blobs.exists(&upload_spec.key).await.unwrap());
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn a_copy_takes_the_described_bytes_or_nothing() {
    let blobs = bucket().await;
    let staged = spec(Duration::from_secs(900));
    let target = format!("uploads/2026/01/02/{}.pdf", uuid::Uuid::new_v4().simple());
    let etag = md5_hex(BYTES);
    assert!(!blobs.copy_if_match(&staged.key, &target, &etag).await.unwrap(), "no source");
    upload(&blobs, &staged, BYTES).await;
    let other_etag = md5_hex(b"other");
    assert!(!blobs.copy_if_match(&staged.key, &target, &other_etag).await.unwrap());
    assert!(!blobs.exists(&target).await.unwrap(), "a failed condition copies nothing");

    assert!(blobs.copy_if_match(&staged.key, &target, &etag).await.unwrap());
    assert_eq!(download(&blobs, &target).await, ("application/pdf".into(), BYTES.into()));
    assert!(blobs.exists(&staged.key).await.unwrap(), "the source stays");

    let replaced = b"%PDF-1.7 a tiny documenT";
    upload(&blobs, &staged, replaced).await;
    assert!(
        !blobs.copy_if_match(&staged.key, &target, &etag).await.unwrap(),
        "bytes written after the look are not copied"
    );
    assert_eq!(download(&blobs, &target).await.1, BYTES);
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn a_listing_names_the_objects_under_a_prefix_with_their_age() {
    let blobs = bucket().await;
    assert_eq!(blobs.list("incoming/").await.unwrap(), []);
    let before = SystemTime::now() - Duration::from_secs(5);
    let staged = [spec(Duration::from_secs(60)), spec(Duration::from_secs(60))];
    for upload_spec in &staged {
        upload(&blobs, upload_spec, BYTES).await;
    }
    let target = "uploads/2026/01/02/0123456789abcdef0123456789abcdef.pdf";
    assert!(blobs.copy_if_match(&staged[0].key, target, &md5_hex(BYTES)).await.unwrap());
    let mut listed = blobs.list("incoming/").await.unwrap();
    listed.sort_by(|a, b| a.key.cmp(&b.key));
    let mut expected: Vec<&str> = staged.iter().map(|s| s.key.as_str()).collect();
    expected.sort();
    assert_eq!(listed.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(), expected);
    assert!(listed.iter().all(|o| o.modified >= before), "{listed:?}");
    assert_eq!(blobs.list("uploads/").await.unwrap().len(), 1);
}
