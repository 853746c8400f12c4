//! Validation and ownership.

use serde_json::{json, Value};

use crate::{
    files::steps::{assert_error, assert_ok, download, file_id, payload, upload},
    support::Api,
};

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

fn body(name: &str, size: i64, mime: &str) -> Value {
    json!({"fileName": name, "fileSize": size, "fileType": mime})
}

pub async fn every_validation_error_has_its_code(api: Api) {
    let (_, token) = api.user("checker").await;
    let presigned = "/api/v1/files/presigned";
    let long_name = format!("{}.png", "n".repeat(252));
    let cases: Vec<(Value, u32)> = vec![
        (json!({"fileSize": 1, "fileType": "image/png"}), 10001),
        (json!({"fileName": "a.png", "fileType": "image/png"}), 10001),
        (json!({"fileName": "a.png", "fileSize": 1}), 10001),
        (json!({"fileName": "a.png", "fileSize": "big", "fileType": "image/png"}), 10001),
        (json!({"fileName": "a.png", "fileSize": 1.5, "fileType": "image/png"}), 10001),
        (json!({"fileName": 7, "fileSize": 1, "fileType": "image/png"}), 10001),
        (json!([1, 2]), 10001),
        (json!({"fileName": "a.png", "fileSize": 1, "fileType": "image/png", "md5": "xyz"}), 10001),
        (body("a.exe", 1, "application/x-msdownload"), 11002),
        (body("a.svg", 1, "image/svg+xml"), 11002),
        (body("a.png", 1, "image/jpeg"), 11002),
        (body("a.pdf", 1, DOCX), 11002),
        (body("a.png", 0, "image/png"), 11003),
        (body("a.png", -5, "image/png"), 11003),
        (body("a.png", 10_485_761, "image/png"), 11003),
        (body("dir/a.png", 1, "image/png"), 11004),
        (body("dir\\a.png", 1, "image/png"), 11004),
        (body("a\nb.png", 1, "image/png"), 11004),
        (body("noextension", 1, "image/png"), 11004),
        (body(&long_name, 1, "image/png"), 11004),
    ];
    for (request, code) in cases {
        let reply = api.call("POST", presigned, Some(&token), Some(request.clone())).await;
        assert_error(&reply, 400, code);
        assert!(!reply.body["message"].as_str().unwrap().is_empty(), "{request}");
    }
    let auth = format!("Bearer {token}");
    let headers = [("content-type", "application/json"), ("authorization", auth.as_str())];
    for raw in ["{", "", "null"] {
        let reply = api.raw("POST", presigned, &headers, Some(raw.into())).await;
        assert_error(&reply, 400, 10001);
    }
    for (name, size, mime) in [
        ("photo.JPG", 10_485_760, "image/jpeg"),
        ("photo.jpeg", 1, "IMAGE/JPEG"),
        ("a.gif", 1, "image/gif"),
        ("a.webp", 1, "image/webp"),
        ("a.pdf", 1, "application/pdf"),
        ("report.docx", 1, DOCX),
    ] {
        let reply = api.call("POST", presigned, Some(&token), Some(body(name, size, mime))).await;
        assert_ok(&reply);
    }

    let bytes = payload("rules");
    let data = upload(&api, &token, "ok.png", &bytes, false).await;
    let access = format!("/api/v1/files/{}/access-url", file_id(&data));
    for query in ["?expireMinutes=0", "?expireMinutes=61", "?expireMinutes=-1", "?expireMinutes=x"]
    {
        let reply = api.call("GET", &format!("{access}{query}"), Some(&token), None).await;
        assert_error(&reply, 400, 10001);
    }
    for bad_id in ["abc", "0", "-1", "1.5", "9007199254740992"] {
        let base = format!("/api/v1/files/{bad_id}");
        for (method, path) in [
            ("GET", base.clone()),
            ("DELETE", base.clone()),
            ("PATCH", format!("{base}/confirm")),
            ("GET", format!("{base}/access-url")),
        ] {
            assert_error(&api.call(method, &path, Some(&token), None).await, 400, 10001);
        }
    }
    for (method, path) in [
        ("GET", "/api/v1/files/999999"),
        ("PATCH", "/api/v1/files/999999/confirm"),
        ("GET", "/api/v1/files/999999/access-url"),
    ] {
        assert_error(&api.call(method, path, Some(&token), None).await, 404, 11008);
    }
}

pub async fn deleting_an_unknown_file_succeeds(api: Api) {
    let (_, token) = api.user("deleter").await;
    let reply = api.call("DELETE", "/api/v1/files/424242", Some(&token), None).await;
    assert_eq!(assert_ok(&reply), &Value::Null);
    let bytes = payload("gone");
    let data = upload(&api, &token, "gone.png", &bytes, false).await;
    let path = format!("/api/v1/files/{}", file_id(&data));
    assert_ok(&api.call("DELETE", &path, Some(&token), None).await);
    assert_ok(&api.call("DELETE", &path, Some(&token), None).await);
    assert_error(&api.call("GET", &path, Some(&token), None).await, 404, 11008);
    let confirm = api.call("PATCH", &format!("{path}/confirm"), Some(&token), None).await;
    assert_error(&confirm, 404, 11008);
}

pub async fn only_the_owner_or_an_administrator_acts_on_a_file(api: Api) {
    let (_, owner) = api.user("owner").await;
    let (_, other) = api.user("stranger").await;
    let admin = api.admin_token().await;
    let bytes = payload("mine");
    let data = upload(&api, &owner, "mine.png", &bytes, true).await;
    let pending = super::steps::presign(&api, &owner, "later.png", &payload("later"), false).await;
    let pending = assert_ok(&pending).clone();
    let pending_id = file_id(&pending).to_string();
    let path = format!("/api/v1/files/{}", file_id(&data));
    for (method, path) in [
        ("GET", path.clone()),
        ("GET", format!("{path}/access-url")),
        ("PATCH", format!("/api/v1/files/{pending_id}/confirm")),
    ] {
        assert_error(&api.call(method, &path, Some(&other), None).await, 404, 11008);
    }
    // DELETE answers someone else's file as it answers an absent one, and deletes nothing.
    let absent = api.call("DELETE", "/api/v1/files/424242", Some(&other), None).await;
    for path in [path.clone(), format!("/api/v1/files/{pending_id}")] {
        let theirs = api.call("DELETE", &path, Some(&other), None).await;
        assert_eq!((theirs.status, &theirs.body["code"]), (absent.status, &absent.body["code"]));
        assert_eq!(theirs.body["data"], absent.body["data"], "{path}");
        assert_eq!(theirs.body["message"], absent.body["message"], "{path}");
    }
    assert_eq!(assert_ok(&absent), &serde_json::Value::Null);
    assert_eq!(download(&api, &owner, file_id(&data)).await.body, bytes, "still the owner's");

    let seen = api.call("GET", &path, Some(&admin), None).await;
    assert_eq!(assert_ok(&seen)["fileName"], json!("mine.png"));
    assert_eq!(download(&api, &admin, file_id(&data)).await.body, bytes);
    let confirm = format!("/api/v1/files/{pending_id}/confirm");
    assert_eq!(super::steps::put_bytes(&api, &pending, &payload("later")).await.status, 200);
    assert_ok(&api.call("PATCH", &confirm, Some(&admin), None).await);
    let confirmed =
        api.call("GET", &format!("/api/v1/files/{pending_id}"), Some(&owner), None).await;
    assert_eq!(assert_ok(&confirmed)["uploadStatus"], json!(1));
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_error(&api.call("GET", &path, Some(&owner), None).await, 404, 11008);
}

pub async fn file_calls_cost_what_the_data_model_says(api: Api) {
    let (_, token) = api.user("counter").await;
    let bytes = payload("cost");
    let presigned = super::steps::presign(&api, &token, "first.png", &bytes, true).await;
    let first = assert_ok(&presigned).clone();
    assert_eq!(super::steps::put_bytes(&api, &first, &bytes).await.status, 200);
    let (reply, counts) = api.calls_of(super::steps::try_confirm(&api, &token, &first)).await;
    assert_ok(&reply);
    let expected = (counts.get, counts.transact, counts.total());
    assert_eq!(expected, (1, 1, 2), "confirm (record, marker): {counts:?}");
    let path = format!("/api/v1/files/{}", file_id(&first));
    assert_ok(&api.call("GET", &path, Some(&token), None).await);

    let (reply, counts) = api.calls_of(api.call("GET", &path, Some(&token), None)).await;
    assert_ok(&reply);
    assert_eq!((counts.get, counts.total()), (1, 1), "metadata: {counts:?}");
    let access = format!("{path}/access-url");
    let (reply, counts) = api.calls_of(api.call("GET", &access, Some(&token), None)).await;
    assert_ok(&reply);
    assert_eq!((counts.get, counts.total()), (1, 1), "access-url: {counts:?}");

    let other = payload("cost, other");
    let presign = super::steps::presign(&api, &token, "b.png", &other, false);
    let (reply, counts) = api.calls_of(presign).await;
    assert_ok(&reply);
    let expected = (counts.update, counts.put, counts.total(), api.exact(counts.round_trips));
    assert_eq!(expected, (1, 1, 2, api.exact(2)), "presigned: {counts:?}");
    // The id is drawn while the stored object of the same content is looked up.
    let instant = super::steps::presign(&api, &token, "c.png", &bytes, true);
    let (reply, counts) = api.calls_of(instant).await;
    assert_eq!(assert_ok(&reply)["instant"], json!(true));
    let trips = api.exact(counts.round_trips);
    let expected = (counts.get, counts.update, counts.transact, counts.total(), trips);
    assert_eq!(expected, (1, 1, 1, 3, api.exact(2)), "instant presigned: {counts:?}");
    let fresh = payload("cost, declared");
    let declared = super::steps::presign(&api, &token, "d.png", &fresh, true);
    let (reply, counts) = api.calls_of(declared).await;
    assert_eq!(assert_ok(&reply)["instant"], json!(false));
    let expected = (counts.get, counts.update, counts.put, api.exact(counts.round_trips));
    assert_eq!(
        expected,
        (1, 1, 1, api.exact(2)),
        "presigned with an MD5 of new content: {counts:?}"
    );

    let (reply, counts) = api.calls_of(api.call("DELETE", &path, Some(&token), None)).await;
    assert_ok(&reply);
    assert_eq!((counts.get, counts.transact, counts.total()), (2, 1, 3), "delete: {counts:?}");
}
