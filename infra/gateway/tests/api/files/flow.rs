//! The upload flow: presigned, PUT to the storage, confirm, metadata, access URL, download.

use serde_json::{json, Value};

use crate::{
    files::steps::{
        assert_error, assert_ok, confirm, download, file_id, md5_hex, payload, plain_put, presign,
        put_bytes, staged_key, upload_headers, wait_for_object,
    },
    support::Api,
};

fn is_api_time(value: &Value) -> bool {
    let text = value.as_str().unwrap_or_default();
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").is_ok()
}

pub async fn the_full_flow_stores_the_bytes_and_gives_them_back(api: Api) {
    let (_, token) = api.user("uploader").await;
    let bytes = payload("flow");
    let data = assert_ok(&presign(&api, &token, "Holiday.png", &bytes, true).await).clone();
    assert_eq!(data["instant"], json!(false));
    let key = data["fileKey"].as_str().unwrap();
    let random = key.strip_prefix("uploads/").unwrap().split('/').nth(3).unwrap();
    assert!(random.len() == 36 && random.ends_with(".png"), "{key}");
    let headers = upload_headers(&data);
    assert_eq!(headers, [("Content-Type".to_string(), "image/png".to_string())]);
    let staged = staged_key(&data);
    assert!(data["uploadUrl"].as_str().unwrap().contains(&staged), "{data}");

    let id = file_id(&data).to_string();
    let path = format!("/api/v1/files/{id}");
    let pending = api.call("GET", &path, Some(&token), None).await;
    assert_eq!(assert_ok(&pending)["uploadStatus"], json!(0));
    let early = api.call("GET", &format!("{path}/access-url"), Some(&token), None).await;
    assert_error(&early, 404, 11008);

    let put = put_bytes(&api, &data, &bytes).await;
    assert_eq!(put.status, 200, "{}", String::from_utf8_lossy(&put.body));
    assert!(api.blobs().exists(&staged).await.unwrap(), "the bytes wait in the staging area");
    assert!(!api.blobs().exists(key).await.unwrap(), "and not at the file's key");
    confirm(&api, &token, &data).await;
    assert!(api.blobs().exists(key).await.unwrap(), "confirm put them at the file's key");
    wait_for_object(&api, &staged, false).await;

    let reply = api.call("GET", &path, Some(&token), None).await;
    let file = assert_ok(&reply);
    let blobs = api.blobs();
    assert_eq!(file["id"], json!(id));
    assert_eq!(file["fileName"], json!("Holiday.png"));
    assert_eq!(file["fileSize"], json!(bytes.len()));
    assert_eq!(file["fileType"], json!("image/png"));
    assert_eq!(file["fileKey"], json!(key));
    assert_eq!(file["md5"], json!(md5_hex(&bytes)));
    assert_eq!(file["storageType"], json!(blobs.storage_type()));
    assert_eq!(file["bucketName"], json!(blobs.bucket()));
    assert_eq!(file["uploadStatus"], json!(1));
    assert!(is_api_time(&file["createTime"]) && is_api_time(&file["updateTime"]), "{file}");

    let fetched = download(&api, &token, &id).await;
    assert_eq!(fetched.status, 200, "{}", String::from_utf8_lossy(&fetched.body));
    assert_eq!(fetched.body, bytes);
    assert_eq!(fetched.content_type, "image/png");
}

pub async fn a_put_with_only_the_content_type_succeeds(api: Api) {
    let (_, token) = api.user("browser").await;
    for (seed, with_md5) in [("plain", false), ("plain, declared", true)] {
        let bytes = payload(seed);
        let data = assert_ok(&presign(&api, &token, "b.png", &bytes, with_md5).await).clone();
        let put = plain_put(&api, &data, &bytes).await;
        assert_eq!(put.status, 200, "{}", String::from_utf8_lossy(&put.body));
        confirm(&api, &token, &data).await;
        assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
    }
}

pub async fn a_put_with_another_length_or_type_is_refused_by_the_storage(api: Api) {
    let (_, token) = api.user("uploader").await;
    let bytes = payload("binding");
    for with_md5 in [false, true] {
        let data = assert_ok(&presign(&api, &token, "bound.png", &bytes, with_md5).await).clone();
        let url = data["uploadUrl"].as_str().unwrap();
        let staged = staged_key(&data);
        let mut gif = upload_headers(&data);
        gif.retain(|(name, _)| name != "Content-Type");
        gif.push(("Content-Type".into(), "image/gif".into()));
        let other_type = api.fetch("PUT", url, &gif, bytes.clone()).await;
        assert_eq!(other_type.status, 403, "{}", String::from_utf8_lossy(&other_type.body));
        let mut longer = bytes.clone();
        longer.push(b'!');
        let headers = upload_headers(&data);
        assert_eq!(api.fetch("PUT", url, &headers, longer).await.status, 403, "longer body");
        let shorter = bytes[..bytes.len() - 1].to_vec();
        assert_eq!(api.fetch("PUT", url, &headers, shorter).await.status, 403, "shorter body");
        assert!(!api.blobs().exists(&staged).await.unwrap(), "nothing was stored");
        assert_eq!(put_bytes(&api, &data, &bytes).await.status, 200, "the bound request works");
    }
}

/// The query parameter `name` of a URL (`expires` of the local store, `X-Amz-*` of S3).
fn query_value(url: &str, name: &str) -> Option<i64> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| pair.strip_prefix(&format!("{name}="))?.parse().ok())
}

/// Seconds a signed URL stays valid, read from the URL.
fn validity(url: &str) -> i64 {
    query_value(url, "X-Amz-Expires")
        .or_else(|| query_value(url, "expires").map(|at| at - chrono::Utc::now().timestamp()))
        .unwrap_or_else(|| panic!("no expiry in {url}"))
}

pub async fn urls_expire_after_the_configured_minutes(api: Api) {
    let (_, token) = api.user("uploader").await;
    let bytes = payload("expiry");
    let data = assert_ok(&presign(&api, &token, "a.png", &bytes, false).await).clone();
    let upload_seconds = validity(data["uploadUrl"].as_str().unwrap());
    assert!(
        (895..=900).contains(&upload_seconds),
        "upload URL valid {upload_seconds} s, not 15 min"
    );
    assert_eq!(put_bytes(&api, &data, &bytes).await.status, 200);
    confirm(&api, &token, &data).await;
    let path = format!("/api/v1/files/{}/access-url", file_id(&data));
    for (query, seconds) in [("", 3600), ("?expireMinutes=1", 60), ("?expireMinutes=60", 3600)] {
        let reply = api.call("GET", &format!("{path}{query}"), Some(&token), None).await;
        let got = validity(assert_ok(&reply).as_str().unwrap());
        assert!((seconds - 5..=seconds).contains(&got), "{query}: valid {got} s");
    }
}

pub async fn confirming_twice_is_harmless(api: Api) {
    let (_, token) = api.user("uploader").await;
    let bytes = payload("twice");
    let data = super::steps::upload(&api, &token, "twice.png", &bytes, true).await;
    let path = format!("/api/v1/files/{}", file_id(&data));
    let before = assert_ok(&api.call("GET", &path, Some(&token), None).await).clone();
    confirm(&api, &token, &data).await;
    let after = assert_ok(&api.call("GET", &path, Some(&token), None).await).clone();
    assert_eq!(before, after, "a repeated confirm changes nothing");
    assert_eq!(after["uploadStatus"], json!(1));
    assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
}

pub async fn a_request_without_a_token_gets_10002_in_the_files_envelope(api: Api) {
    let body = json!({"fileName": "a.png", "fileSize": 1, "fileType": "image/png"});
    let requests = [
        ("POST", "/api/v1/files/presigned", Some(body)),
        ("PATCH", "/api/v1/files/1/confirm", None),
        ("GET", "/api/v1/files/1", None),
        ("GET", "/api/v1/files/1/access-url", None),
        ("DELETE", "/api/v1/files/1", None),
    ];
    for (method, path, body) in requests {
        assert_error(&api.call(method, path, None, body.clone()).await, 401, 10002);
        let bad = api.call(method, path, Some("not-a-token"), body).await;
        assert_error(&bad, 401, 10002);
    }
}

pub async fn images_are_checked_and_documents_served_as_declared_or_saved(api: Api) {
    let (_, token) = api.user("sniffer").await;
    let bytes = b"<html><script>alert(document.domain)</script></html>".to_vec();
    let docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    // HTML bytes under an image type are not that image: confirm refuses them.
    let body = json!({"fileName": "photo.png", "fileSize": bytes.len(), "fileType": "image/png"});
    let presigned = api.call("POST", "/api/v1/files/presigned", Some(&token), Some(body)).await;
    let data = assert_ok(&presigned).clone();
    assert_eq!(super::steps::put_bytes(&api, &data, &bytes).await.status, 200);
    let refused = super::steps::try_confirm(&api, &token, &data).await;
    super::steps::assert_error(&refused, 400, 10001);
    let message = refused.body["message"].as_str().unwrap();
    assert!(message.contains("not the declared image"), "{message}");
    // Under the other permitted types, a browser must take the declared type.
    for (name, kind, shown) in
        [("paper.pdf", "application/pdf", "inline"), ("letter.docx", docx, "attachment")]
    {
        let body = json!({"fileName": name, "fileSize": bytes.len(), "fileType": kind});
        let presigned = api.call("POST", "/api/v1/files/presigned", Some(&token), Some(body)).await;
        let data = assert_ok(&presigned).clone();
        assert_eq!(super::steps::put_bytes(&api, &data, &bytes).await.status, 200);
        confirm(&api, &token, &data).await;
        let path = format!("/api/v1/files/{}/access-url", file_id(&data));
        let reply = api.call("GET", &path, Some(&token), None).await;
        let url = assert_ok(&reply).as_str().unwrap().to_string();
        let disposition = format!("{shown}; filename=\"{name}\"; filename*=UTF-8''{name}");
        let fetched = api.fetch("GET", &url, &[], vec![]).await;
        assert_eq!((fetched.status, fetched.content_type.as_str()), (200, kind), "{name}");
        assert_eq!(fetched.headers["content-disposition"], disposition, "{name}");
        if !url.contains("X-Amz-Signature=") {
            // The local store's own headers (S3 cannot add them to an object's answer).
            assert_eq!(fetched.headers["x-content-type-options"], "nosniff", "{name}");
            assert!(fetched.headers["content-security-policy"].contains("sandbox"), "{name}");
        }
    }
}
