//! The resized copies of public images: confirm of a PUBLIC image sends a FileConfirmedEvent
//! (written to the outbox with the completion), the worker makes the variants (320 and 640 px
//! wide here, never upscaled), stores them beside the image and lists them on the File object;
//! anyone reads them at their URLs; a redelivered event changes nothing; they go with the
//! image's last record. Private files and documents send no event.

use std::time::Duration;

use serde_json::{json, Value};

use super::steps::{assert_ok, confirm, file_id, file_of, md5_hex, put_bytes};
use crate::support::{Api, PASSWORD};
use blog_api::articles::followup::Outcome;

/// A 700×400 PNG photo-like gradient (opaque, so its variants are JPEG).
fn picture(seed: u8) -> Vec<u8> {
    let image = image::RgbImage::from_fn(700, 400, |x, y| {
        image::Rgb([(x / 3) as u8, (y / 2) as u8, seed.wrapping_add((x + y) as u8)])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("a PNG");
    bytes.into_inner()
}

async fn token(api: &Api, name: &str) -> String {
    api.register(name).await;
    api.login(name, PASSWORD).await
}

/// Presigned (with the MD5), PUT unless instant, confirm unless instant: the presigned data.
async fn upload(api: &Api, token: &str, bytes: &[u8], file_type: &str, policy: &str) -> Value {
    let body = json!({"fileName": if file_type == "application/pdf" { "a.pdf" } else { "a.png" },
        "fileSize": bytes.len(), "fileType": file_type, "md5": md5_hex(bytes),
        "accessPolicy": policy});
    let reply = api.call("POST", "/api/v1/files/presigned", Some(token), Some(body)).await;
    let data = assert_ok(&reply).clone();
    if data["instant"] == json!(false) {
        assert_eq!(put_bytes(api, &data, bytes).await.status, 200);
        confirm(api, token, &data).await;
    }
    data
}

/// No event within two seconds.
async fn assert_no_event(api: &Api, after: &str) {
    let event = tokio::time::timeout(Duration::from_secs(2), api.next_event()).await;
    assert!(matches!(event, Err(_) | Ok(None)), "{after} sent {event:?}");
}

/// Waits up to 10 s for `url` to stop answering 200 (the removal runs after the answer).
async fn assert_gone(api: &Api, url: &str) {
    for _ in 0..100 {
        if api.fetch("GET", url, &[], Vec::new()).await.status != 200 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{url} is still served");
}

async fn delete(api: &Api, token: &str, data: &Value) {
    let path = format!("/api/v1/files/{}", file_id(data));
    assert_ok(&api.call("DELETE", &path, Some(token), None).await);
}

pub async fn a_public_image_gets_resized_copies_that_anyone_reads_and_that_go_with_it(api: Api) {
    let token = token(&api, "photographer").await;
    let bytes = picture(1);
    let data = upload(&api, &token, &bytes, "image/png", "PUBLIC").await;
    assert_eq!(file_of(&api, &token, &data).await["variants"], json!([]), "none yet");
    let event = api.follow_up(1).await.remove(0);
    assert_eq!((&event["type"], &event["fileId"]), (&json!("FileConfirmedEvent"), &data["fileId"]));
    let file = file_of(&api, &token, &data).await;
    let variants = file["variants"].as_array().expect("variants").clone();
    let widths: Vec<u64> = variants.iter().map(|v| v["width"].as_u64().unwrap()).collect();
    assert_eq!(widths, [640, 320], "widest first, none above 700 px: {file}");
    for variant in &variants {
        let (width, height) =
            (variant["width"].as_u64().unwrap(), variant["height"].as_u64().unwrap());
        assert!(height.abs_diff(width * 400 / 700) <= 1, "aspect kept: {variant}");
        let url = variant["url"].as_str().unwrap();
        assert!(url.contains("/public/") && !url.contains('?'), "{url}");
        let served = api.fetch("GET", url, &[], Vec::new()).await;
        assert_eq!(served.status, 200, "{url} anonymously");
        let image = image::load_from_memory(&served.body).expect("an image");
        assert_eq!((u64::from(image.width()), u64::from(image.height())), (width, height));
    }
    // The event again (a redelivery) changes nothing.
    let again = api.handle_event(&event.to_string()).await.expect("handled");
    assert_eq!(again, Outcome::Skipped);
    assert_eq!(file_of(&api, &token, &data).await["variants"], json!(variants));
    // An instant upload of the image shares its object, and its variants.
    let copy = upload(&api, &token, &bytes, "image/png", "PUBLIC").await;
    assert_eq!(copy["instant"], json!(true), "{copy}");
    api.follow_up(1).await;
    assert_eq!(file_of(&api, &token, &copy).await["variants"], json!(variants));
    // The variants stay while a record points at the image, and go with the last one.
    delete(&api, &token, &data).await;
    let first = variants[0]["url"].as_str().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(api.fetch("GET", first, &[], Vec::new()).await.status, 200, "still shared");
    delete(&api, &token, &copy).await;
    for variant in &variants {
        assert_gone(&api, variant["url"].as_str().unwrap()).await;
    }
}

pub async fn private_images_and_documents_send_no_event_and_list_no_variants(api: Api) {
    let token = token(&api, "clerk").await;
    let private = upload(&api, &token, &picture(2), "image/png", "PRIVATE").await;
    assert_no_event(&api, "a private image").await;
    let pdf = upload(&api, &token, b"%PDF-1.4 a document", "application/pdf", "PRIVATE").await;
    assert_no_event(&api, "a document").await;
    for data in [&private, &pdf] {
        assert_eq!(file_of(&api, &token, data).await["variants"], json!([]));
    }
}

pub async fn an_image_whose_pixels_cannot_be_decoded_is_refused_once_and_not_retried(api: Api) {
    let token = token(&api, "forger").await;
    // The header is whole (confirm reads only that), the pixels are cut short.
    let mut bytes = picture(3);
    bytes.truncate(bytes.len() / 2);
    let data = upload(&api, &token, &bytes, "image/png", "PUBLIC").await;
    api.follow_up(1).await; // acknowledged: no failure, so no redelivery
    assert_eq!(file_of(&api, &token, &data).await["variants"], json!([]));
    let id: u64 = file_id(&data).parse().unwrap();
    let record = blog_api::files::repo::find(api.table.as_ref(), id).await.unwrap().unwrap();
    assert_eq!(record.variants, Some(vec![]));
    let error = record.variants_error.expect("why there are none");
    assert!(error.contains("cannot be decoded"), "{error}");
}
