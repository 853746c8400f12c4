//! What confirm checks: the staged bytes against the declared size and md5, and that nothing
//! done with an upload URL afterwards reaches the confirmed object.

use std::time::{Duration, SystemTime};

use blog_api::{
    files::staging::{remove_stale_uploads, STALE_AFTER},
    ports::blobs::UploadSpec,
};
use futures::future::join_all;
use serde_json::{json, Value};

use crate::{
    files::sharing::refs,
    files::steps::{
        assert_error, assert_ok, confirm, download, file_id, file_of, payload, plain_put, presign,
        put_bytes, staged_key, try_confirm, upload, wait_for_object,
    },
    support::Api,
};

/// Asserts a 10001 answer whose message mentions `words`.
fn assert_refused(reply: &crate::support::Reply, words: &str) {
    assert_error(reply, 400, 10001);
    let message = reply.body["message"].as_str().unwrap();
    assert!(message.contains(words), "{message}");
}

pub async fn confirm_before_the_upload_answers_10001_and_keeps_the_file_pending(api: Api) {
    let (_, token) = api.user("early").await;
    let bytes = payload("early");
    let data = assert_ok(&presign(&api, &token, "early.png", &bytes, true).await).clone();
    assert_refused(&try_confirm(&api, &token, &data).await, "Nothing was uploaded");
    assert_eq!(file_of(&api, &token, &data).await["uploadStatus"], json!(0));

    assert_eq!(plain_put(&api, &data, &bytes).await.status, 200);
    confirm(&api, &token, &data).await;
    assert_eq!(file_of(&api, &token, &data).await["uploadStatus"], json!(1));
    assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
}

/// Asserts that the file of `data` is FAILED for good: confirm refuses it again, it has no
/// access URL, nothing is at its key, and its staged bytes go.
async fn assert_failed(api: &Api, token: &str, data: &Value) {
    assert_eq!(file_of(api, token, data).await["uploadStatus"], json!(2));
    assert_refused(&try_confirm(api, token, data).await, "failed");
    let access = format!("/api/v1/files/{}/access-url", file_id(data));
    assert_error(&api.call("GET", &access, Some(token), None).await, 404, 11008);
    assert!(!api.blobs().exists(data["fileKey"].as_str().unwrap()).await.unwrap());
    wait_for_object(api, &staged_key(data), false).await;
}

pub async fn bytes_other_than_the_declared_md5_make_the_file_failed(api: Api) {
    let (owner_id, token) = api.user("forger").await;
    let declared = payload("declared");
    let mut other = declared.clone();
    other[0] ^= 0xff;
    let data = assert_ok(&presign(&api, &token, "a.png", &declared, true).await).clone();
    assert_eq!(plain_put(&api, &data, &other).await.status, 200, "the URL binds no digest");
    assert_refused(&try_confirm(&api, &token, &data).await, "declared md5");
    assert_failed(&api, &token, &data).await;
    assert_eq!(refs(&api, owner_id, &declared).await, None, "an unverified md5 shares nothing");
    let again = assert_ok(&presign(&api, &token, "b.png", &declared, true).await).clone();
    assert_eq!(again["instant"], json!(false));
}

pub async fn bytes_of_another_size_make_the_file_failed(api: Api) {
    let (_, token) = api.user("resizer").await;
    let bytes = payload("sized");
    let data = assert_ok(&presign(&api, &token, "a.png", &bytes, false).await).clone();
    // The upload URL binds the length, so other bytes reach the staging key only another way.
    let longer = [bytes.as_slice(), b"!"].concat();
    let spec = UploadSpec {
        key: staged_key(&data),
        content_type: "image/png".into(),
        content_length: longer.len() as u64,
        expires: Duration::from_secs(60),
    };
    let signed = api.blobs().presign_put(&spec).await.unwrap();
    assert_eq!(api.fetch("PUT", &signed.url, &signed.headers, longer).await.status, 200);
    assert_refused(&try_confirm(&api, &token, &data).await, "declared size");
    assert_failed(&api, &token, &data).await;
}

pub async fn a_put_to_the_upload_url_after_confirm_changes_nothing(api: Api) {
    let (owner_id, token) = api.user("retrier").await;
    let bytes = payload("kept");
    let data = upload(&api, &token, "kept.png", &bytes, true).await;
    let copy = assert_ok(&presign(&api, &token, "copy.png", &bytes, true).await).clone();
    assert_eq!(copy["instant"], json!(true));
    let before = file_of(&api, &token, &data).await;

    let mut other = bytes.clone();
    other[0] ^= 0xff;
    wait_for_object(&api, &staged_key(&data), false).await;
    assert_eq!(put_bytes(&api, &data, &other).await.status, 200, "the URL is still valid");
    confirm(&api, &token, &data).await;
    assert_eq!(file_of(&api, &token, &data).await, before);
    for record in [&data, &copy] {
        assert_eq!(download(&api, &token, file_id(record)).await.body, bytes);
    }
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(2));

    let path = format!("/api/v1/files/{}", file_id(&data));
    assert_ok(&api.call("DELETE", &path, Some(&token), None).await);
    wait_for_object(&api, &staged_key(&data), false).await;
    assert_eq!(download(&api, &token, file_id(&copy)).await.body, bytes, "the copy still has it");
}

pub async fn concurrent_confirms_complete_an_upload_once(api: Api) {
    let (owner_id, token) = api.user("eager").await;
    let bytes = payload("eager");
    let data = assert_ok(&presign(&api, &token, "eager.png", &bytes, true).await).clone();
    assert_eq!(put_bytes(&api, &data, &bytes).await.status, 200);
    for reply in join_all((0..6).map(|_| try_confirm(&api, &token, &data))).await {
        assert_eq!(assert_ok(&reply), &Value::Null);
    }
    assert_eq!(file_of(&api, &token, &data).await["uploadStatus"], json!(1));
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(1), "counted once");
    assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
    wait_for_object(&api, &staged_key(&data), false).await;
}

pub async fn stale_staged_uploads_are_removed_and_fresh_ones_kept(api: Api) {
    let (_, token) = api.user("forgetful").await;
    let confirmed = upload(&api, &token, "kept.png", &payload("confirmed"), false).await;
    wait_for_object(&api, &staged_key(&confirmed), false).await;
    let bytes = payload("forgotten");
    let forgotten = assert_ok(&presign(&api, &token, "lost.png", &bytes, false).await).clone();
    assert_eq!(put_bytes(&api, &forgotten, &bytes).await.status, 200);
    let blobs = api.blobs();

    assert_eq!(remove_stale_uploads(blobs.as_ref(), SystemTime::now()).await.unwrap(), 0);
    assert!(blobs.exists(&staged_key(&forgotten)).await.unwrap(), "a fresh upload stays");
    let a_day_later = SystemTime::now() + STALE_AFTER + Duration::from_secs(60);
    assert_eq!(remove_stale_uploads(blobs.as_ref(), a_day_later).await.unwrap(), 1);
    assert!(!blobs.exists(&staged_key(&forgotten)).await.unwrap());
    assert!(blobs.exists(confirmed["fileKey"].as_str().unwrap()).await.unwrap(), "confirmed stay");
    assert_refused(&try_confirm(&api, &token, &forgotten).await, "Nothing was uploaded");
}
