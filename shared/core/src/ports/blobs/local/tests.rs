use super::*;
use axum::{
    body::Body,
    http::{header, Request},
};
use http_body_util::BodyExt;
use tower::ServiceExt;

const KEY: &str = "incoming/0123456789abcdef0123456789abcdef.png";
const FINAL: &str = "uploads/2026/01/02/0123456789abcdef0123456789abcdef.png";
const BYTES: &[u8] = b"\x89PNG fake image bytes";

fn store() -> (LocalBlobs, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalBlobs::open(dir.path().join("blobs"), "http://blobs.test/", b"key").unwrap();
    (store, dir)
}

fn spec(expires: Duration) -> UploadSpec {
    UploadSpec {
        key: KEY.into(),
        content_type: "image/png".into(),
        content_length: BYTES.len() as u64,
        expires,
    }
}

/// Sends a request for an absolute URL of the store through its router.
async fn send(
    store: &LocalBlobs,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let path = url.strip_prefix("http://blobs.test").expect("URL on the configured base");
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    if method == "PUT" {
        request = request.header("content-length", body.len().to_string());
    }
    let response =
        store.router().oneshot(request.body(Body::from(body.to_vec())).unwrap()).await.unwrap();
    let status = response.status().as_u16();
    let content_type = http::header_text(response.headers(), &header::CONTENT_TYPE).to_string();
    let bytes = response.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, content_type, bytes)
}

fn code_of(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    text.split("<Code>")
        .nth(1)
        .and_then(|rest| rest.split("</Code>").next())
        .unwrap_or_default()
        .to_string()
}

/// Stores `bytes` at [`KEY`] through a signed upload URL.
async fn upload(store: &LocalBlobs, bytes: &[u8]) {
    let upload = UploadSpec { content_length: bytes.len() as u64, ..spec(Duration::from_secs(60)) };
    let upload = store.presign_put(&upload).await.unwrap();
    let (status, _, body) = send(store, "PUT", &upload.url, &upload.headers, bytes).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
}

#[tokio::test]
async fn a_put_with_only_the_content_type_stores_bytes_a_signed_get_gives_back() {
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(Duration::from_secs(900))).await.unwrap();
    assert!(
        upload.url.starts_with(&format!("http://blobs.test/_blobs/{KEY}?expires=")),
        "{}",
        upload.url
    );
    assert_eq!(upload.headers, [("Content-Type".to_string(), "image/png".to_string())]);
    assert!(!store.exists(KEY).await.unwrap());

    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, BYTES).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(store.exists(KEY).await.unwrap());

    let url = store.presign_get(KEY, Duration::from_secs(60), &Served::default()).await.unwrap();
    let (status, content_type, body) = send(&store, "GET", &url, &[], b"").await;
    assert_eq!((status, content_type.as_str(), body.as_slice()), (200, "image/png", BYTES));

    store.delete(KEY).await.unwrap();
    assert!(!store.exists(KEY).await.unwrap());
    store.delete(KEY).await.unwrap();
    let (status, _, body) = send(&store, "GET", &url, &[], b"").await;
    assert_eq!((status, code_of(&body).as_str()), (404, "NoSuchKey"));
}

#[tokio::test]
async fn a_put_with_other_headers_or_a_tampered_url_is_refused() {
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(Duration::from_secs(900))).await.unwrap();
    let gif = vec![("Content-Type".to_string(), "image/gif".to_string())];
    let (status, _, body) = send(&store, "PUT", &upload.url, &gif, BYTES).await;
    assert_eq!((status, code_of(&body).as_str()), (403, "SignatureDoesNotMatch"), "other type");
    let (status, _, body) =
        send(&store, "PUT", &upload.url, &upload.headers, b"longer than signed!!!!").await;
    assert_eq!((status, code_of(&body).as_str()), (403, "SignatureDoesNotMatch"), "other length");
    let tampered = upload.url.replace("signature=", "signature=00");
    let (status, _, _) = send(&store, "PUT", &tampered, &upload.headers, BYTES).await;
    assert_eq!(status, 403, "tampered signature");
    let unsigned = upload.url.split('?').next().unwrap();
    let (status, _, _) = send(&store, "PUT", unsigned, &upload.headers, BYTES).await;
    assert_eq!(status, 403, "no signature");
    let get = upload.url.clone();
    let (status, _, _) = send(&store, "GET", &get, &[], b"").await;
    assert_eq!(status, 403, "an upload URL does not download");
    assert!(!store.exists(KEY).await.unwrap());
}

#[tokio::test]
async fn an_optional_content_md5_must_match_the_bytes() {
    use base64::Engine;
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(Duration::from_secs(900))).await.unwrap();
    let md5 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(Md5::digest(bytes));
    let mut headers = upload.headers.clone();
    headers.push(("Content-MD5".into(), md5(b"other bytes")));
    let (status, _, body) = send(&store, "PUT", &upload.url, &headers, BYTES).await;
    assert_eq!((status, code_of(&body).as_str()), (400, "BadDigest"));
    assert!(!store.exists(KEY).await.unwrap());
    headers.pop();
    headers.push(("Content-MD5".into(), md5(BYTES)));
    let (status, _, _) = send(&store, "PUT", &upload.url, &headers, BYTES).await;
    assert_eq!(status, 200, "a matching Content-MD5 is accepted, though it is not signed");
}

#[tokio::test]
async fn an_expired_url_is_refused() {
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(Duration::ZERO)).await.unwrap();
    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, BYTES).await;
    assert_eq!((status, code_of(&body).as_str()), (403, "AccessDenied"));
    let url = store.presign_get(KEY, Duration::ZERO, &Served::default()).await.unwrap();
    let (status, _, _) = send(&store, "GET", &url, &[], b"").await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn keys_never_leave_the_store_directory() {
    let (store, _dir) = store();
    for key in ["../x.png", "uploads/../../x.png", "/abs.png", "a//b.png", "a b.png", ""] {
        let upload = UploadSpec { key: key.into(), ..spec(Duration::from_secs(60)) };
        assert!(store.presign_put(&upload).await.is_err(), "{key}");
        assert!(store.exists(key).await.is_err(), "{key}");
        assert!(store.head(key).await.is_err(), "{key}");
        assert!(store.copy_if_match(KEY, key, "00").await.is_err(), "{key}");
    }
    assert!(store.list("../").await.is_err());
}

#[tokio::test]
async fn a_ten_megabyte_upload_is_accepted() {
    let (store, _dir) = store();
    let bytes = vec![7u8; 10 * 1024 * 1024];
    upload(&store, &bytes).await;
    let url = store.presign_get(KEY, Duration::from_secs(60), &Served::default()).await.unwrap();
    assert_eq!(send(&store, "GET", &url, &[], b"").await.2.len(), bytes.len());
}

#[tokio::test]
async fn head_gives_the_size_and_the_md5_of_the_bytes() {
    let (store, _dir) = store();
    assert_eq!(store.head(KEY).await.unwrap(), None);
    upload(&store, BYTES).await;
    let info = store.head(KEY).await.unwrap().expect("stored");
    assert_eq!(info.size, BYTES.len() as u64);
    assert_eq!(info.md5_hex(), Some(md5_hex(BYTES)));
}

#[tokio::test]
async fn a_copy_takes_the_described_bytes_and_their_type_or_nothing() {
    let (store, _dir) = store();
    assert!(!store.copy_if_match(KEY, FINAL, &md5_hex(BYTES)).await.unwrap(), "no source");
    upload(&store, BYTES).await;
    assert!(!store.copy_if_match(KEY, FINAL, &md5_hex(b"other")).await.unwrap(), "other tag");
    assert!(!store.exists(FINAL).await.unwrap());

    assert!(store.copy_if_match(KEY, FINAL, &md5_hex(BYTES)).await.unwrap());
    assert!(store.exists(KEY).await.unwrap(), "the source stays");
    let url = store.presign_get(FINAL, Duration::from_secs(60), &Served::default()).await.unwrap();
    let (status, content_type, body) = send(&store, "GET", &url, &[], b"").await;
    assert_eq!((status, content_type.as_str(), body.as_slice()), (200, "image/png", BYTES));

    let other = b"\x89PNG other image bytes";
    upload(&store, other).await;
    store.delete(KEY).await.unwrap();
    assert_eq!(send(&store, "GET", &url, &[], b"").await.2, BYTES, "the copy is its own file");
    let listed = store.list("uploads/").await.unwrap();
    assert_eq!(listed.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(), [FINAL], "no leftovers");
}

#[tokio::test]
async fn a_listing_names_the_objects_under_a_prefix_with_their_age() {
    let (store, _dir) = store();
    assert_eq!(store.list("incoming/").await.unwrap(), [], "nothing stored yet");
    let before = std::time::SystemTime::now() - Duration::from_secs(1);
    upload(&store, BYTES).await;
    assert!(store.copy_if_match(KEY, FINAL, &md5_hex(BYTES)).await.unwrap());
    let listed = store.list("incoming/").await.unwrap();
    assert_eq!(listed.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(), [KEY]);
    assert!(listed[0].modified >= before, "{:?}", listed[0].modified);
    assert_eq!(store.list("").await.unwrap().len(), 2);
    assert_eq!(store.list("uploads/2026/01/02/0123").await.unwrap().len(), 1);
    assert_eq!(store.list("uploads/2027/").await.unwrap(), []);
}

#[tokio::test]
async fn a_download_is_served_as_signed_with_nosniff_and_a_sandbox() {
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(Duration::from_secs(900))).await.unwrap();
    assert_eq!(send(&store, "PUT", &upload.url, &upload.headers, BYTES).await.0, 200);
    let served = Served {
        content_type: "text/html".into(),
        disposition: "attachment; filename=\"a.html\"".into(),
    };
    let url = store.presign_get(KEY, Duration::from_secs(60), &served).await.unwrap();
    let path = url.strip_prefix("http://blobs.test").unwrap();
    let request = Request::get(path).body(Body::empty()).unwrap();
    let response = store.router().oneshot(request).await.unwrap();
    let header = |name: &str| response.headers()[name].to_str().unwrap().to_string();
    assert_eq!(response.status(), 200);
    assert_eq!(header("content-type"), "text/html");
    assert_eq!(header("content-disposition"), "attachment; filename=\"a.html\"");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("content-security-policy"), "default-src 'none'; sandbox");
    let inline = url.replace("disposition=attachment", "disposition=inline");
    let (status, _, body) = send(&store, "GET", &inline, &[], b"").await;
    assert_eq!((status, code_of(&body).as_str()), (403, "SignatureDoesNotMatch"), "signed");
}
