//! Instant upload (only ever of the caller's own stored content) and the life of a stored
//! object shared by several records.

use std::collections::BTreeSet;

use blog_api::files::repo;
use futures::future::join_all;
use serde_json::{json, Value};

use crate::{
    files::steps::{
        assert_error, assert_ok, download, file_id, file_of, md5_hex, payload, plain_put, presign,
        put_bytes, staged_key, try_confirm, upload, wait_for_object,
    },
    support::Api,
};

/// `refs` of `owner`'s marker of `bytes`, `None` when there is none.
pub async fn refs(api: &Api, owner: u64, bytes: &[u8]) -> Option<i64> {
    let key = repo::object_key(owner, &md5_hex(bytes), bytes.len() as u64, Default::default());
    let object = repo::find_object(api.table.as_ref(), &key).await.unwrap();
    object.map(|object| object.refs)
}

pub async fn an_instant_upload_gives_the_owner_a_new_record_of_their_stored_object(api: Api) {
    let (owner_id, token) = api.user("repeater").await;
    let bytes = payload("shared");
    let original = upload(&api, &token, "original.png", &bytes, true).await;
    let key = original["fileKey"].as_str().unwrap();

    let reply = presign(&api, &token, "copy.png", &bytes, true).await;
    let data = assert_ok(&reply).clone();
    let fields: BTreeSet<&str> = data.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        fields,
        BTreeSet::from(["cdnUrl", "fileId", "fileKey", "instant", "uploadHeaders", "uploadUrl"])
    );
    assert_eq!(data["instant"], json!(true));
    assert_eq!((&data["uploadUrl"], &data["uploadHeaders"]), (&Value::Null, &Value::Null));
    assert_eq!(data["cdnUrl"], Value::Null, "a private file has none");
    assert_eq!(data["fileKey"], json!(key));
    assert_ne!(data["fileId"], original["fileId"]);
    let body = reply.body.to_string();
    assert!(!body.contains("original.png"), "nothing of the first record shows: {body}");

    let record = file_of(&api, &token, &data).await;
    assert_eq!(record["fileName"], json!("copy.png"));
    assert_eq!(record["uploadStatus"], json!(1));
    assert_eq!(record["fileKey"], json!(key));
    assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(2));

    let other_size = [bytes.as_slice(), b"+"].concat();
    let mut body =
        json!({"fileName": "x.png", "fileSize": other_size.len(), "fileType": "image/png"});
    body["md5"] = json!(md5_hex(&bytes));
    let reply = api.call("POST", "/api/v1/files/presigned", Some(&token), Some(body)).await;
    assert_eq!(assert_ok(&reply)["instant"], json!(false), "same MD5, other size");
    let without_md5 = presign(&api, &token, "y.png", &bytes, false).await;
    assert_eq!(assert_ok(&without_md5)["instant"], json!(false), "no MD5 declared");
}

pub async fn instant_upload_never_crosses_users(api: Api) {
    let (first_id, first) = api.user("first").await;
    let (second_id, second) = api.user("second").await;
    let bytes = payload("private");
    let original = upload(&api, &first, "mine.png", &bytes, true).await;

    // The second user knows the md5 and size, and still has to upload the bytes.
    let theirs = assert_ok(&presign(&api, &second, "guess.png", &bytes, true).await).clone();
    assert_eq!(theirs["instant"], json!(false));
    assert!(theirs["uploadUrl"].is_string(), "{theirs}");
    assert_ne!(theirs["fileKey"], original["fileKey"]);
    assert_error(&try_confirm(&api, &second, &theirs).await, 400, 10001);
    let mut other = bytes.clone();
    other[0] ^= 0xff;
    assert_eq!(plain_put(&api, &theirs, &other).await.status, 200);
    assert_error(&try_confirm(&api, &second, &theirs).await, 400, 10001);
    assert_eq!(file_of(&api, &second, &theirs).await["uploadStatus"], json!(2));

    // Uploading the bytes gives the second user an object of their own.
    let own = upload(&api, &second, "own.png", &bytes, true).await;
    assert_ne!(own["fileKey"], original["fileKey"]);
    let counts = (refs(&api, first_id, &bytes).await, refs(&api, second_id, &bytes).await);
    assert_eq!(counts, (Some(1), Some(1)), "one object each");
    let path = format!("/api/v1/files/{}", file_id(&original));
    assert_error(&api.call("GET", &path, Some(&second), None).await, 404, 11008);
    assert_ok(&api.call("DELETE", &path, Some(&first), None).await);
    wait_for_object(&api, original["fileKey"].as_str().unwrap(), false).await;
    assert_eq!(download(&api, &second, file_id(&own)).await.body, bytes);
}

pub async fn pending_uploads_of_the_same_content_are_not_shared(api: Api) {
    let (owner_id, token) = api.user("pending").await;
    let bytes = payload("pending");
    let first = assert_ok(&presign(&api, &token, "a.png", &bytes, true).await).clone();
    let second = assert_ok(&presign(&api, &token, "b.png", &bytes, true).await).clone();
    assert_eq!((&first["instant"], &second["instant"]), (&json!(false), &json!(false)));
    assert_ne!(first["fileKey"], second["fileKey"]);
    for data in [&first, &second] {
        assert_eq!(put_bytes(&api, data, &bytes).await.status, 200);
    }
    super::steps::confirm(&api, &token, &first).await;
    super::steps::confirm(&api, &token, &second).await;
    let shared = refs(&api, owner_id, &bytes).await;
    assert_eq!(shared, Some(1), "the first confirmed object is the shared one");
    let third = assert_ok(&presign(&api, &token, "c.png", &bytes, true).await).clone();
    assert_eq!((&third["instant"], &third["fileKey"]), (&json!(true), &first["fileKey"]));
    for data in [&first, &second, &third] {
        assert_eq!(download(&api, &token, file_id(data)).await.body, bytes);
    }
}

pub async fn concurrent_presigned_calls_after_completion_share_one_object(api: Api) {
    let (owner_id, owner) = api.user("owner").await;
    let bytes = payload("popular");
    let original = upload(&api, &owner, "popular.png", &bytes, true).await;
    let replies = join_all((0..12).map(|_| presign(&api, &owner, "p.png", &bytes, true))).await;
    let mut ids = BTreeSet::new();
    for reply in &replies {
        let data = assert_ok(reply);
        assert_eq!((&data["instant"], &data["fileKey"]), (&json!(true), &original["fileKey"]));
        ids.insert(file_id(data).to_string());
    }
    assert_eq!(ids.len(), 12, "one record per call");
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(13), "one object, counted per record");
}

pub async fn the_stored_object_goes_only_with_the_last_live_record(api: Api) {
    let (owner_id, owner) = api.user("keeper").await;
    let bytes = payload("last");
    let original = upload(&api, &owner, "a.png", &bytes, true).await;
    let key = original["fileKey"].as_str().unwrap().to_string();
    let copy = assert_ok(&presign(&api, &owner, "b.png", &bytes, true).await).clone();
    assert_eq!(copy["instant"], json!(true));

    let first_path = format!("/api/v1/files/{}", file_id(&original));
    assert_ok(&api.call("DELETE", &first_path, Some(&owner), None).await);
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(1));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(api.blobs().exists(&key).await.unwrap(), "a live record still points at it");
    assert_eq!(download(&api, &owner, file_id(&copy)).await.body, bytes);

    let second_path = format!("/api/v1/files/{}", file_id(&copy));
    assert_ok(&api.call("DELETE", &second_path, Some(&owner), None).await);
    wait_for_object(&api, &key, false).await;
    assert_eq!(refs(&api, owner_id, &bytes).await, None, "the marker went with the object");
    let again = assert_ok(&presign(&api, &owner, "c.png", &bytes, true).await).clone();
    assert_eq!(again["instant"], json!(false), "nothing stored to share any more");

    let plain = upload(&api, &owner, "plain.png", &payload("plain"), false).await;
    let presigned = presign(&api, &owner, "p.png", &payload("unconfirmed"), true).await;
    let pending = assert_ok(&presigned).clone();
    assert_eq!(put_bytes(&api, &pending, &payload("unconfirmed")).await.status, 200);
    let stored = [(&plain, plain["fileKey"].as_str().unwrap().to_string())];
    for (data, key) in stored.into_iter().chain([(&pending, staged_key(&pending))]) {
        wait_for_object(&api, &key, true).await;
        let path = format!("/api/v1/files/{}", file_id(data));
        assert_ok(&api.call("DELETE", &path, Some(&owner), None).await);
        wait_for_object(&api, &key, false).await;
    }
}

/// Presigned calls for `bytes`, `count` of them at once, spread over `tokens`.
async fn presign_all(api: &Api, tokens: &[String], bytes: &[u8], count: usize) -> Vec<Value> {
    let calls = (0..count).map(|i| presign(api, &tokens[i % tokens.len()], "p.png", bytes, true));
    join_all(calls).await.iter().map(|reply| assert_ok(reply).clone()).collect()
}

/// Deletes of the records of `presigned` (owned by `tokens` in turn), all at once.
async fn delete_all(api: &Api, tokens: &[String], presigned: &[Value]) {
    let deletes = presigned.iter().enumerate().map(|(i, data)| {
        let path = format!("/api/v1/files/{}", file_id(data));
        async move { api.call("DELETE", &path, Some(&tokens[i % tokens.len()]), None).await }
    });
    for reply in join_all(deletes).await {
        assert_ok(&reply);
    }
}

/// Every record is COMPLETED on the shared key and downloads the bytes (`token`: an admin's).
async fn assert_served(api: &Api, token: &str, records: &[Value], key: &str, bytes: &[u8]) {
    for data in records {
        let path = format!("/api/v1/files/{}", file_id(data));
        let record = api.call("GET", &path, Some(token), None).await;
        let record = assert_ok(&record);
        assert_eq!((&record["uploadStatus"], &record["fileKey"]), (&json!(1), &json!(key)));
        assert_eq!(download(api, token, file_id(data)).await.body, bytes, "{path}");
    }
}

/// A stored object that instant uploads can share: its bytes, its key, its owner (id and, as
/// a list for the helpers above, token) and the owner's record.
struct SharedObject {
    bytes: Vec<u8>,
    key: String,
    owner_id: u64,
    owner: [String; 1],
    original: Value,
}

async fn shared_object(api: &Api, name: &str) -> SharedObject {
    let (owner_id, owner) = api.user(name).await;
    let bytes = payload(name);
    let original = upload(api, &owner, &format!("{name}.png"), &bytes, true).await;
    let key = original["fileKey"].as_str().unwrap().to_string();
    SharedObject { bytes, key, owner_id, owner: [owner], original }
}

pub async fn concurrent_instant_uploads_and_deletes_keep_exact_references(api: Api) {
    let SharedObject { bytes, key, owner_id, owner, original } =
        shared_object(&api, "contended").await;
    let admin = [api.admin_token().await];

    // Instant uploads race with deletes of other records of the object: never the last one.
    let first = presign_all(&api, &owner, &bytes, 12).await;
    assert!(first
        .iter()
        .all(|data| data["instant"] == json!(true) && data["fileKey"] == json!(key)));
    let (doomed, kept) = first.split_at(8);
    let original_delete = async {
        let path = format!("/api/v1/files/{}", file_id(&original));
        assert_ok(&api.call("DELETE", &path, Some(&owner[0]), None).await);
    };
    let (second, (), ()) = tokio::join!(
        presign_all(&api, &owner, &bytes, 8),
        delete_all(&api, &owner, doomed),
        original_delete
    );
    assert!(second.iter().all(|data| data["instant"] == json!(true)), "{second:?}");
    let live: Vec<Value> = kept.iter().chain(&second).cloned().collect();
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(live.len() as i64), "13 - 9 + 8 records");
    assert_served(&api, &admin[0], &live, &key, &bytes).await;
    for data in doomed {
        let path = format!("/api/v1/files/{}", file_id(data));
        assert_error(&api.call("GET", &path, Some(&owner[0]), None).await, 404, 11008);
    }

    // Instant uploads race with the deletes of every live record: whatever wins, a record never
    // points at a removed object, and the count stays exact.
    let (third, ()) =
        tokio::join!(presign_all(&api, &owner, &bytes, 4), delete_all(&api, &admin, &live));
    let instant: Vec<Value> =
        third.iter().filter(|data| data["instant"] == json!(true)).cloned().collect();
    let uploads: BTreeSet<&str> = third
        .iter()
        .filter(|data| data["instant"] == json!(false))
        .map(|data| data["fileKey"].as_str().unwrap())
        .collect();
    assert_eq!(uploads.len(), third.len() - instant.len(), "a fresh key per upload URL");
    assert!(!uploads.contains(key.as_str()), "an upload URL never overwrites the shared object");
    if instant.is_empty() {
        assert_eq!(refs(&api, owner_id, &bytes).await, None);
        wait_for_object(&api, &key, false).await;
    } else {
        assert_eq!(refs(&api, owner_id, &bytes).await, Some(instant.len() as i64));
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_served(&api, &admin[0], &instant, &key, &bytes).await;
        delete_all(&api, &admin, &instant).await;
        wait_for_object(&api, &key, false).await;
        assert_eq!(
            refs(&api, owner_id, &bytes).await,
            None,
            "the marker went with the last record"
        );
    }
    let after = assert_ok(&presign(&api, &owner[0], "again.png", &bytes, true).await).clone();
    assert_eq!(after["instant"], json!(false), "nothing stored to share any more");
}

pub async fn many_concurrent_deletes_of_one_shared_object_all_succeed(api: Api) {
    let SharedObject { bytes, key, owner_id, owner, original } =
        shared_object(&api, "crowded").await;
    let copies = presign_all(&api, &owner, &bytes, 32).await;
    let (kept, copies) = copies.split_first().unwrap();
    let doomed = [vec![original], copies.to_vec()].concat();
    assert_eq!((doomed.len(), refs(&api, owner_id, &bytes).await), (32, Some(33)));

    // 32 deletes of records counted in one marker (one record stays), with 8 instant uploads
    // counted meanwhile: decrements of one count do not invalidate each other, so none runs out
    // of attempts.
    let admin = [api.admin_token().await];
    let (late, ()) =
        tokio::join!(presign_all(&api, &owner, &bytes, 8), delete_all(&api, &admin, &doomed));
    assert!(late.iter().all(|data| data["instant"] == json!(true)), "{late:?}");
    let live = [late, vec![kept.clone()]].concat();
    assert_eq!(
        refs(&api, owner_id, &bytes).await,
        Some(live.len() as i64),
        "1 kept + 8 late records"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_served(&api, &admin[0], &live, &key, &bytes).await;
}
