//! Steps the file cases share: envelope checks and the upload flow of a client.

use md5::{Digest, Md5};
use serde_json::{json, Value};

use crate::support::{Api, Fetched, Reply};

/// A small PNG image, distinct per `seed` (its width and its pixels come from the seed).
pub fn payload(seed: &str) -> Vec<u8> {
    let digest = Md5::digest(seed.as_bytes());
    let width = 1 + u32::from(digest[0] % 32);
    let image = image::RgbImage::from_fn(width, 2, |x, y| {
        let at = (x as usize * 2 + y as usize) % 14;
        image::Rgb([digest[at], digest[at + 1], digest[at + 2]])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("a PNG of the seed");
    bytes.into_inner()
}

/// Lower-case hex MD5 of `bytes`.
pub fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The `data` of a success, after checking the files envelope.
pub fn assert_ok(reply: &Reply) -> &Value {
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(0), "{:?}", reply.body);
    assert_eq!(reply.body["message"], json!("success"));
    assert!(reply.body["timestamp"].is_i64(), "timestamp: {:?}", reply.body);
    &reply.body["data"]
}

/// Checks an error of the files envelope: HTTP status, numeric code, null data, timestamp.
pub fn assert_error(reply: &Reply, status: u16, code: u32) {
    assert_eq!((reply.status, &reply.body["code"]), (status, &json!(code)), "{:?}", reply.body);
    assert_eq!(reply.body["data"], Value::Null, "{:?}", reply.body);
    assert!(reply.body["message"].as_str().is_some_and(|m| !m.is_empty()), "{:?}", reply.body);
    assert!(reply.body["timestamp"].is_i64(), "timestamp: {:?}", reply.body);
}

/// POST /presigned with a PNG named `name` holding `bytes` (MD5 declared when `with_md5`).
pub async fn presign(api: &Api, token: &str, name: &str, bytes: &[u8], with_md5: bool) -> Reply {
    let mut body = json!({"fileName": name, "fileSize": bytes.len(), "fileType": "image/png"});
    if with_md5 {
        body["md5"] = json!(md5_hex(bytes));
    }
    api.call("POST", "/api/v1/files/presigned", Some(token), Some(body)).await
}

/// The key the upload URL of a presigned answer writes to (the bytes wait there until confirm).
pub fn staged_key(data: &Value) -> String {
    blog_api::files::staging::staging_key(data["fileKey"].as_str().expect("fileKey"))
}

/// The headers a presigned answer tells the client to send.
pub fn upload_headers(data: &Value) -> Vec<(String, String)> {
    let headers = data["uploadHeaders"].as_object().expect("uploadHeaders object");
    headers.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect()
}

/// PUTs `bytes` to the upload URL of a presigned answer with the headers it names.
pub async fn put_bytes(api: &Api, data: &Value, bytes: &[u8]) -> Fetched {
    let url = data["uploadUrl"].as_str().expect("uploadUrl");
    api.fetch("PUT", url, &upload_headers(data), bytes.to_vec()).await
}

/// PUTs `bytes` to the upload URL of a presigned answer as a browser's `fetch` does: with
/// `Content-Type: image/png` and nothing else (the body gives the length).
pub async fn plain_put(api: &Api, data: &Value, bytes: &[u8]) -> Fetched {
    let url = data["uploadUrl"].as_str().expect("uploadUrl");
    let headers = [("Content-Type".to_string(), "image/png".to_string())];
    api.fetch("PUT", url, &headers, bytes.to_vec()).await
}

/// Presigned, PUT, confirm: returns the presigned `data` (fileId, fileKey, ...).
pub async fn upload(api: &Api, token: &str, name: &str, bytes: &[u8], with_md5: bool) -> Value {
    let reply = presign(api, token, name, bytes, with_md5).await;
    let data = assert_ok(&reply).clone();
    assert_eq!(data["instant"], json!(false), "{data}");
    let put = put_bytes(api, &data, bytes).await;
    assert_eq!(put.status, 200, "PUT: {}", String::from_utf8_lossy(&put.body));
    confirm(api, token, &data).await;
    data
}

/// PATCH confirm of the file of a presigned answer, as answered.
pub async fn try_confirm(api: &Api, token: &str, data: &Value) -> Reply {
    let path = format!("/api/v1/files/{}/confirm", file_id(data));
    api.call("PATCH", &path, Some(token), None).await
}

/// PATCH confirm of the file of a presigned answer (success expected).
pub async fn confirm(api: &Api, token: &str, data: &Value) {
    assert_eq!(assert_ok(&try_confirm(api, token, data).await), &Value::Null);
}

/// The File object of the file of a presigned answer, as its owner (or an admin) reads it.
pub async fn file_of(api: &Api, token: &str, data: &Value) -> Value {
    let path = format!("/api/v1/files/{}", file_id(data));
    assert_ok(&api.call("GET", &path, Some(token), None).await).clone()
}

/// The id of a presigned answer.
pub fn file_id(data: &Value) -> &str {
    data["fileId"].as_str().expect("fileId is a string")
}

/// GET of an access URL of `id`, then of the URL itself: the bytes (panics unless both work).
pub async fn download(api: &Api, token: &str, id: &str) -> Fetched {
    let reply = api.call("GET", &format!("/api/v1/files/{id}/access-url"), Some(token), None).await;
    let url = assert_ok(&reply).as_str().expect("the access URL is a string").to_string();
    api.fetch("GET", &url, &[], Vec::new()).await
}

/// Waits up to 10 s for the stored object `key` to reach `present`.
pub async fn wait_for_object(api: &Api, key: &str, present: bool) {
    let blobs = api.blobs();
    for _ in 0..100 {
        if blobs.exists(key).await.unwrap() == present {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("object {key} should {}exist", if present { "" } else { "not " });
}
