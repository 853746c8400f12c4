//! The worker's handler of FileConfirmedEvent (`blog_files::variants::make`) on the embedded
//! table and the local blob store: what it makes, lists and skips.

use blog_core::ports::{
    blobs::{local::LocalBlobs, Blobs, PutCondition},
    table::embedded::SqliteTable,
};
use blog_files::{
    model::{AccessPolicy, FileRecord, UploadStatus},
    repo,
    variants::{make, Outcome},
};
use image::{DynamicImage, ImageFormat};

use super::support::{encoded, picture, png_header};

struct World {
    table: SqliteTable,
    blobs: LocalBlobs,
    _dir: tempfile::TempDir,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let blobs = LocalBlobs::open(dir.path(), "http://blobs.test", b"test-key").unwrap();
    World { table: SqliteTable::in_memory().unwrap(), blobs, _dir: dir }
}

fn record(id: u64, file_type: &str, access_policy: AccessPolicy) -> FileRecord {
    FileRecord {
        id,
        owner_id: 2,
        file_name: "a.png".into(),
        file_size: 1,
        file_type: file_type.into(),
        file_key: format!("public/2026/11/29/{id:032x}.png"),
        staging_key: None,
        md5: None,
        object_marker: None,
        storage_type: "LOCAL".into(),
        bucket_name: "local".into(),
        upload_status: UploadStatus::Completed,
        image_width: Some(700),
        image_height: Some(400),
        variants: None,
        variants_error: None,
        access_policy,
        ref_type: None,
        ref_id: None,
        deleted: false,
        create_time: "2026-11-29T00:00:00".into(),
        update_time: "2026-11-29T00:00:00".into(),
    }
}

async fn store(world: &World, record: &FileRecord, bytes: Vec<u8>) {
    repo::create(&world.table, record).await.unwrap();
    let stored = world.blobs.put(&record.file_key, bytes, "image/png", PutCondition::Absent);
    stored.await.unwrap();
}

fn event(id: u64) -> String {
    format!(r#"{{"type":"FileConfirmedEvent","eventId":"e{id}","fileId":"{id}","createdAt":1}}"#)
}

fn png(width: u32, height: u32) -> Vec<u8> {
    encoded(&DynamicImage::ImageRgba8(picture(width, height)), ImageFormat::Png)
}

#[tokio::test]
async fn a_public_image_gets_its_variants_stored_and_listed_once() {
    let world = world().await;
    let file = record(1, "image/png", AccessPolicy::Public);
    store(&world, &file, png(700, 400)).await;
    assert_eq!(make(&world.table, &world.blobs, &event(1)).await.unwrap(), Outcome::Made(2));
    let listed = repo::find(&world.table, 1).await.unwrap().unwrap();
    let variants = listed.variants.clone().expect("listed");
    let sizes: Vec<_> = variants.iter().map(|v| (v.width, v.height)).collect();
    assert_eq!(sizes, [(640, 366), (320, 183)]);
    for variant in &variants {
        assert!(variant.key.starts_with("public/2026/11/29/") && variant.key.ends_with(".jpg"));
        assert_eq!(variant.content_type, "image/jpeg", "an opaque image's variants are JPEG");
        assert!(world.blobs.exists(&variant.key).await.unwrap(), "{}", variant.key);
    }
    let again = make(&world.table, &world.blobs, &event(1)).await.unwrap();
    assert_eq!(again, Outcome::Skipped, "a redelivery changes nothing");
    assert_eq!(repo::find(&world.table, 1).await.unwrap().unwrap(), listed);
}

#[tokio::test]
async fn an_image_whose_pixels_cannot_be_decoded_gets_an_empty_list_and_the_reason() {
    let world = world().await;
    let file = record(2, "image/png", AccessPolicy::Public);
    store(&world, &file, png_header(700, 400, 8, 2)).await;
    assert_eq!(make(&world.table, &world.blobs, &event(2)).await.unwrap(), Outcome::Refused);
    let listed = repo::find(&world.table, 2).await.unwrap().unwrap();
    assert_eq!(listed.variants, Some(vec![]));
    assert!(listed.variants_error.unwrap().contains("cannot be decoded"));
    let again = make(&world.table, &world.blobs, &event(2)).await.unwrap();
    assert_eq!(again, Outcome::Skipped, "refused once, never tried again");
}

#[tokio::test]
async fn private_deleted_pending_and_document_files_are_skipped_with_nothing_written() {
    let world = world().await;
    let skipped = [
        record(3, "image/png", AccessPolicy::Private),
        FileRecord { deleted: true, ..record(4, "image/png", AccessPolicy::Public) },
        FileRecord {
            upload_status: UploadStatus::Pending,
            ..record(5, "image/png", AccessPolicy::Public)
        },
        record(6, "application/pdf", AccessPolicy::Public),
    ];
    for file in &skipped {
        store(&world, file, png(700, 400)).await;
        let outcome = make(&world.table, &world.blobs, &event(file.id)).await.unwrap();
        assert_eq!(outcome, Outcome::Skipped, "{file:?}");
        assert_eq!(&repo::find(&world.table, file.id).await.unwrap().unwrap(), file);
    }
    assert_eq!(world.blobs.list("public/").await.unwrap().len(), skipped.len(), "originals only");
    let missing = make(&world.table, &world.blobs, &event(99)).await.unwrap();
    assert_eq!(missing, Outcome::Skipped, "no such record");
}

#[tokio::test]
async fn a_missing_object_or_a_malformed_event_is_an_error_for_the_queue_to_retry() {
    let world = world().await;
    let file = record(7, "image/png", AccessPolicy::Public);
    repo::create(&world.table, &file).await.unwrap();
    assert!(make(&world.table, &world.blobs, &event(7)).await.is_err());
    assert!(make(&world.table, &world.blobs, "{not an event").await.is_err());
}
