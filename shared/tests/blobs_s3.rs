//! The S3 adapter of the blobs port against emulators, one fresh bucket per test (ignored unless
//! asked for: `infra/emulators/with-emulators.sh cargo test -p blog-shared --features s3 --test
//! blobs_s3 -- --ignored`):
//! - on s3s-fs (`BLOG_TEST_S3_ENDPOINT`), which verifies SigV4 like S3: what an upload URL binds
//!   and when URLs expire;
//! - on moto (`BLOG_TEST_SQS_ENDPOINT`, which serves S3 too and has object tagging, but checks no
//!   signature): the `pending` tag an upload carries until it is confirmed.
#![cfg(feature = "s3")]

use std::time::Duration;

use blog_shared::ports::blobs::{s3::S3Blobs, Blobs, PresignedUpload, UploadSpec};
use md5::{Digest, Md5};

const BYTES: &[u8] = b"%PDF-1.7 a tiny document";

fn endpoint(variable: &str) -> String {
    std::env::var(variable)
        .unwrap_or_else(|_| panic!("{variable} is not set: run through with-emulators.sh"))
}

async fn bucket_on(variable: &str, tag_pending: bool) -> S3Blobs {
    let client = S3Blobs::test_client(&endpoint(variable));
    let name = format!("blobs-{}", uuid::Uuid::new_v4().simple());
    S3Blobs::create_bucket(&client, &name, tag_pending).await.expect("create the bucket")
}

fn spec(md5: bool, expires: Duration) -> UploadSpec {
    UploadSpec {
        key: format!("uploads/2026/01/02/{}.pdf", uuid::Uuid::new_v4().simple()),
        content_type: "application/pdf".into(),
        content_length: BYTES.len() as u64,
        md5: md5.then(|| Md5::digest(BYTES).into()),
        expires,
    }
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

fn with_type(headers: &[(String, String)], content_type: &str) -> Vec<(String, String)> {
    let mut headers: Vec<_> =
        headers.iter().filter(|(name, _)| name != "Content-Type").cloned().collect();
    headers.push(("Content-Type".into(), content_type.into()));
    headers
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn s3_refuses_an_upload_with_another_type_length_or_content() {
    let blobs = bucket_on("BLOG_TEST_S3_ENDPOINT", false).await;
    let upload_spec = spec(true, Duration::from_secs(900));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    let gif = with_type(&upload.headers, "image/gif");
    assert_eq!(put(&upload, &gif, BYTES).await, (403, "SignatureDoesNotMatch".into()));
    let longer = [BYTES, b"!"].concat();
    assert_eq!(put(&upload, &upload.headers, &longer).await.0, 403);
    assert_eq!(put(&upload, &upload.headers, &BYTES[1..]).await.0, 403);
    let unsigned_md5: Vec<_> =
        upload.headers.iter().filter(|(n, _)| n != "Content-MD5").cloned().collect();
    assert_eq!(put(&upload, &unsigned_md5, BYTES).await.0, 403, "Content-MD5 is signed");
    let mut tampered = BYTES.to_vec();
    tampered[0] ^= 1;
    assert_eq!(put(&upload, &upload.headers, &tampered).await, (400, "BadDigest".into()));
    assert_eq!(put(&upload, &upload.headers, BYTES).await.0, 200);
    assert!(blobs.exists(&upload_spec.key).await.unwrap());

    let url = blobs.presign_get(&upload_spec.key, Duration::from_secs(60)).await.unwrap();
    let response = http().get(&url).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "application/pdf");
    assert_eq!(response.bytes().await.unwrap().as_ref(), BYTES);
    blobs.delete(&upload_spec.key).await.unwrap();
    assert!(!blobs.exists(&upload_spec.key).await.unwrap());
    blobs.delete(&upload_spec.key).await.expect("deleting an absent object is fine");
}

#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn s3_refuses_expired_urls() {
    let blobs = bucket_on("BLOG_TEST_S3_ENDPOINT", false).await;
    let upload_spec = spec(false, Duration::from_secs(1));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    let download = blobs.presign_get(&upload_spec.key, Duration::from_secs(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(put(&upload, &upload.headers, BYTES).await.0, 403);
    assert_eq!(http().get(&download).send().await.unwrap().status().as_u16(), 403);
    assert!(!blobs.exists(&upload_spec.key).await.unwrap());
}

async fn tags(blobs: &S3Blobs, key: &str) -> Vec<(String, String)> {
    let output = blobs.client().get_object_tagging().bucket(blobs.bucket()).key(key).send();
    let output = output.await.expect("GetObjectTagging");
    output.tag_set().iter().map(|t| (t.key().to_string(), t.value().to_string())).collect()
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn an_upload_stays_tagged_pending_until_it_is_confirmed() {
    let blobs = bucket_on("BLOG_TEST_SQS_ENDPOINT", true).await;
    let upload_spec = spec(true, Duration::from_secs(900));
    let upload = blobs.presign_put(&upload_spec).await.unwrap();
    assert!(upload.headers.contains(&("x-amz-tagging".into(), "pending=true".into())));
    assert_eq!(put(&upload, &upload.headers, BYTES).await.0, 200);
    assert_eq!(tags(&blobs, &upload_spec.key).await, [("pending".into(), "true".into())]);
    assert!(blobs.confirm(&upload_spec.key).await.unwrap(), "the object exists");
    assert_eq!(tags(&blobs, &upload_spec.key).await, []);
    assert!(blobs.confirm(&upload_spec.key).await.unwrap(), "confirming again is harmless");
    assert!(!blobs.confirm("uploads/never/uploaded.pdf").await.unwrap(), "absent object");
    blobs.delete(&upload_spec.key).await.unwrap();
    assert!(!blobs.exists(&upload_spec.key).await.unwrap());
}
