//! Public files: an image uploaded with `accessPolicy: PUBLIC` is served to anyone at a
//! permanent `cdnUrl` (the public files' distribution in AWS and on the stack, the store itself
//! locally), without signature or expiry; nothing else of the bucket is. Confirm reads an
//! image's width and height from its bytes.

use serde_json::{json, Value};

use super::steps::{assert_error, assert_ok, confirm, file_of, md5_hex, put_bytes};
use crate::support::{Api, PASSWORD};

/// A real PNG image of 1×1 pixel.
const PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f,
    0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba, 0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

async fn presign(api: &Api, token: &str, extra: Value) -> crate::support::Reply {
    let mut body = json!({"fileName": "cover.png", "fileSize": PNG.len(), "fileType": "image/png",
        "md5": md5_hex(&PNG)});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    api.call("POST", "/api/v1/files/presigned", Some(token), Some(body)).await
}

async fn token(api: &Api, name: &str) -> String {
    api.register(name).await;
    api.login(name, PASSWORD).await
}

pub async fn a_public_image_is_served_to_anyone_at_a_url_that_never_expires(api: Api) {
    let token = token(&api, "painter").await;
    let extra = json!({"accessPolicy": "PUBLIC", "refType": "ARTICLE", "refId": "42"});
    let data = assert_ok(&presign(&api, &token, extra).await).clone();
    let key = data["fileKey"].as_str().unwrap();
    let url = data["cdnUrl"].as_str().expect("a public upload names its cdnUrl").to_string();
    assert!(key.starts_with("public/") && url.ends_with(key) && !url.contains('?'), "{data}");
    let early = api.fetch("GET", &url, &[], Vec::new()).await;
    assert_ne!(early.status, 200, "nothing is served before the upload is confirmed");
    assert_eq!(put_bytes(&api, &data, &PNG).await.status, 200);
    confirm(&api, &token, &data).await;
    let file = file_of(&api, &token, &data).await;
    assert_eq!(
        (&file["accessPolicy"], &file["cdnUrl"], &file["refType"], &file["refId"]),
        (&json!("PUBLIC"), &json!(url), &json!("ARTICLE"), &json!("42")),
        "{file}"
    );
    assert_eq!((&file["imageWidth"], &file["imageHeight"]), (&json!(1), &json!(1)), "{file}");
    // Anyone, with no token and no signature.
    let served = api.fetch("GET", &url, &[], Vec::new()).await;
    assert_eq!((served.status, served.body.as_slice()), (200, PNG.as_slice()));
    assert_eq!(served.content_type, "image/png");
    // The same image again is instant, public at once; a private one of it is not shared.
    let again = assert_ok(&presign(&api, &token, json!({"accessPolicy": "PUBLIC"})).await).clone();
    assert_eq!((&again["instant"], &again["cdnUrl"]), (&json!(true), &json!(url)), "{again}");
    let copy = file_of(&api, &token, &again).await;
    assert_eq!((&copy["imageWidth"], &copy["imageHeight"]), (&json!(1), &json!(1)), "{copy}");
    let private = assert_ok(&presign(&api, &token, json!({})).await).clone();
    assert_eq!((&private["instant"], &private["cdnUrl"]), (&json!(false), &Value::Null));
}

pub async fn only_images_are_public_and_the_rest_of_the_bucket_stays_private(api: Api) {
    let token = token(&api, "archivist").await;
    let pdf = json!({"fileName": "a.pdf", "fileSize": 10, "fileType": "application/pdf",
        "accessPolicy": "PUBLIC"});
    let refused = api.call("POST", "/api/v1/files/presigned", Some(&token), Some(pdf)).await;
    assert_error(&refused, 400, 11002);
    let public = assert_ok(&presign(&api, &token, json!({"accessPolicy": "public"})).await).clone();
    let private =
        assert_ok(&presign(&api, &token, json!({"accessPolicy": "PRIVATE"})).await).clone();
    for data in [&public, &private] {
        assert_eq!(put_bytes(&api, data, &PNG).await.status, 200);
        confirm(&api, &token, data).await;
    }
    let file = file_of(&api, &token, &private).await;
    assert_eq!((&file["accessPolicy"], &file["cdnUrl"]), (&json!("PRIVATE"), &Value::Null));
    let key = private["fileKey"].as_str().unwrap();
    assert!(key.starts_with("uploads/"), "{key}");
    // Where the public file is served, the private one is not.
    let public_url = public["cdnUrl"].as_str().unwrap();
    let base = public_url.strip_suffix(public["fileKey"].as_str().unwrap()).unwrap();
    let attempt = api.fetch("GET", &format!("{base}{key}"), &[], Vec::new()).await;
    assert_ne!(attempt.status, 200, "a private file is never served without a signature");
}

pub async fn a_bad_access_policy_or_reference_is_refused_with_10001(api: Api) {
    let token = token(&api, "clerk").await;
    for extra in [
        json!({"accessPolicy": "SHARED"}),
        json!({"refId": "42"}),
        json!({"refType": "POST"}),
        json!({"refType": "ARTICLE", "refId": "forty-two"}),
    ] {
        let reply = presign(&api, &token, extra.clone()).await;
        assert_error(&reply, 400, 10001);
        assert!(!reply.body["message"].as_str().unwrap().is_empty(), "{extra}");
    }
    let avatar = assert_ok(&presign(&api, &token, json!({"refType": "avatar"})).await).clone();
    let file = file_of(&api, &token, &avatar).await;
    assert_eq!((&file["refType"], &file["refId"]), (&json!("AVATAR"), &Value::Null));
}
