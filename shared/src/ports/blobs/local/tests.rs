use super::*;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

const KEY: &str = "uploads/2026/01/02/0123456789abcdef0123456789abcdef.png";
const BYTES: &[u8] = b"\x89PNG fake image bytes";

fn store() -> (LocalBlobs, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalBlobs::open(dir.path().join("blobs"), "http://blobs.test/", b"key").unwrap();
    (store, dir)
}

fn spec(md5: Option<[u8; 16]>, expires: Duration) -> UploadSpec {
    UploadSpec {
        key: KEY.into(),
        content_type: "image/png".into(),
        content_length: BYTES.len() as u64,
        md5,
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
    let content_type = header_text(response.headers(), &header::CONTENT_TYPE).to_string();
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

#[tokio::test]
async fn bytes_put_to_a_signed_url_come_back_from_a_signed_get() {
    let (store, _dir) = store();
    let md5: [u8; 16] = Md5::digest(BYTES).into();
    let upload = store.presign_put(&spec(Some(md5), Duration::from_secs(900))).await.unwrap();
    assert!(
        upload.url.starts_with(&format!("http://blobs.test/_blobs/{KEY}?expires=")),
        "{}",
        upload.url
    );
    let names: Vec<&str> = upload.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Content-Type", "Content-MD5"]);
    assert!(!store.exists(KEY).await.unwrap());

    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, BYTES).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(store.exists(KEY).await.unwrap());
    assert!(store.confirm(KEY).await.unwrap());

    let url = store.presign_get(KEY, Duration::from_secs(60)).await.unwrap();
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
    let upload = store.presign_put(&spec(None, Duration::from_secs(900))).await.unwrap();
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
async fn bytes_that_do_not_match_the_signed_md5_are_refused() {
    let (store, _dir) = store();
    let md5: [u8; 16] = Md5::digest(BYTES).into();
    let upload = store.presign_put(&spec(Some(md5), Duration::from_secs(900))).await.unwrap();
    let mut other = BYTES.to_vec();
    other[0] ^= 1;
    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, &other).await;
    assert_eq!((status, code_of(&body).as_str()), (400, "BadDigest"));
    let without_md5 = &upload.headers[..1];
    let (status, _, _) = send(&store, "PUT", &upload.url, without_md5, BYTES).await;
    assert_eq!(status, 403, "the MD5 header is part of the signature");
    assert!(!store.exists(KEY).await.unwrap());
}

#[tokio::test]
async fn an_expired_url_is_refused() {
    let (store, _dir) = store();
    let upload = store.presign_put(&spec(None, Duration::ZERO)).await.unwrap();
    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, BYTES).await;
    assert_eq!((status, code_of(&body).as_str()), (403, "AccessDenied"));
    let url = store.presign_get(KEY, Duration::ZERO).await.unwrap();
    let (status, _, _) = send(&store, "GET", &url, &[], b"").await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn keys_never_leave_the_store_directory() {
    let (store, _dir) = store();
    for key in ["../x.png", "uploads/../../x.png", "/abs.png", "a//b.png", "a b.png", ""] {
        let upload = UploadSpec { key: key.into(), ..spec(None, Duration::from_secs(60)) };
        assert!(store.presign_put(&upload).await.is_err(), "{key}");
        assert!(store.exists(key).await.is_err(), "{key}");
    }
}

#[tokio::test]
async fn a_ten_megabyte_upload_is_accepted() {
    let (store, _dir) = store();
    let bytes = vec![7u8; 10 * 1024 * 1024];
    let upload =
        UploadSpec { content_length: bytes.len() as u64, ..spec(None, Duration::from_secs(60)) };
    let upload = store.presign_put(&upload).await.unwrap();
    let (status, _, body) = send(&store, "PUT", &upload.url, &upload.headers, &bytes).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let url = store.presign_get(KEY, Duration::from_secs(60)).await.unwrap();
    assert_eq!(send(&store, "GET", &url, &[], b"").await.2.len(), bytes.len());
}
