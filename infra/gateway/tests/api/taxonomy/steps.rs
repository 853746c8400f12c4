//! The steps the categories and tags cases share, written once against [`Api`].

use serde_json::{json, Value};

use crate::support::{Api, Reply};

pub(super) fn assert_ok(reply: &Reply) -> &Value {
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!("200"), "{:?}", reply.body);
    assert_eq!(reply.body["message"], json!("success"));
    &reply.body["data"]
}

pub(super) fn assert_error(reply: &Reply, status: u16, error_code: &str, needle: &str) {
    assert_eq!(reply.status, status, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(status.to_string()), "{:?}", reply.body);
    assert_eq!(reply.body["errorCode"], json!(error_code), "{:?}", reply.body);
    assert_eq!(reply.body["data"], Value::Null);
    let message = reply.body["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "message {message:?} should mention {needle:?}");
}

pub(super) async fn category(api: &Api, admin: &str, body: Value) -> Value {
    let reply = api.call("POST", "/api/v1/admin/categories", Some(admin), Some(body)).await;
    assert_ok(&reply).clone()
}

pub(super) async fn tag(api: &Api, admin: &str, body: Value) -> Value {
    let reply = api.call("POST", "/api/v1/admin/tags", Some(admin), Some(body)).await;
    assert_ok(&reply).clone()
}

pub(super) fn id(value: &Value) -> u64 {
    value["id"].as_str().unwrap().parse().unwrap()
}
