//! Data written before uploads were staged and markers were per owner: a marker
//! `OBJECT#<md5>#<size>` shared by every user's records of one content, records without
//! `objectMarker`, and PENDING records whose bytes went straight to their `fileKey`.

use blog_api::{
    files::{model::ObjectRecord, repo},
    ports::table::{Table, Update},
    records,
};
use serde_json::{json, Value};

use crate::{
    files::sharing::refs,
    files::steps::{
        assert_ok, confirm, download, file_id, file_of, md5_hex, payload, presign, upload,
        wait_for_object,
    },
    support::Api,
};

/// The id of the file of a presigned answer.
fn id_of(data: &Value) -> u64 {
    file_id(data).parse().unwrap()
}

/// The legacy marker of `bytes`: its `refs`, `None` when there is none.
async fn legacy_refs(table: &dyn Table, bytes: &[u8]) -> Option<i64> {
    let key = repo::legacy_object_key(&md5_hex(bytes), bytes.len() as u64);
    repo::find_object(table, &key).await.unwrap().map(|object| object.refs)
}

pub async fn records_counted_in_a_legacy_marker_still_release_it(api: Api) {
    let (first_id, first) = api.user("veteran").await;
    let (second_id, second) = api.user("follower").await;
    let bytes = payload("legacy");
    let (md5, size) = (md5_hex(&bytes), bytes.len() as u64);
    let original = upload(&api, &first, "old.png", &bytes, true).await;
    let key = original["fileKey"].as_str().unwrap().to_string();

    // As the previous code left it: one marker for the content, counting two users' records.
    let table = api.table.as_ref();
    let unnamed = Update::new().remove("objectMarker");
    table.update(&repo::file_key(id_of(&original)), unnamed, None).await.unwrap();
    table.delete(&repo::object_key(first_id, &md5, size, Default::default()), None).await.unwrap();
    let mut follower = repo::find(table, id_of(&original)).await.unwrap().unwrap();
    follower.id = repo::new_id(table).await.unwrap();
    follower.owner_id = second_id;
    follower.staging_key = None;
    repo::create(table, &follower).await.unwrap();
    let marker = ObjectRecord {
        md5: md5.clone(),
        file_size: size,
        file_key: key.clone(),
        refs: 2,
        image_width: None,
        image_height: None,
        create_time: "2025-01-01T00:00:00".into(),
    };
    let item = records::to_item(&marker, &repo::legacy_object_key(&md5, size)).unwrap();
    table.put(item, None).await.unwrap();

    let copy = assert_ok(&presign(&api, &second, "guess.png", &bytes, true).await).clone();
    assert_eq!(copy["instant"], json!(false), "a legacy marker grants no instant upload");
    let follower_path = format!("/api/v1/files/{}", follower.id);
    assert_ok(&api.call("DELETE", &follower_path, Some(&second), None).await);
    assert_eq!(legacy_refs(table, &bytes).await, Some(1));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(api.blobs().exists(&key).await.unwrap(), "the first record still points at it");
    assert_eq!(download(&api, &first, file_id(&original)).await.body, bytes);

    let original_path = format!("/api/v1/files/{}", file_id(&original));
    assert_ok(&api.call("DELETE", &original_path, Some(&first), None).await);
    wait_for_object(&api, &key, false).await;
    assert_eq!(legacy_refs(table, &bytes).await, None, "the marker went with the last record");
    assert_eq!(refs(&api, first_id, &bytes).await, None);
}

pub async fn a_pending_record_without_a_staging_key_confirms_the_bytes_at_its_key(api: Api) {
    let (owner_id, token) = api.user("early_adopter").await;
    let bytes = payload("unstaged");
    let data = assert_ok(&presign(&api, &token, "old.png", &bytes, true).await).clone();
    let key = data["fileKey"].as_str().unwrap();
    // The previous code signed upload URLs for the file's key itself.
    let table = api.table.as_ref();
    let unstaged = Update::new().remove("stagingKey");
    table.update(&repo::file_key(id_of(&data)), unstaged, None).await.unwrap();
    let spec = blog_api::ports::blobs::UploadSpec {
        key: key.to_string(),
        content_type: "image/png".into(),
        content_length: bytes.len() as u64,
        expires: std::time::Duration::from_secs(60),
    };
    let signed = api.blobs().presign_put(&spec).await.unwrap();
    assert_eq!(api.fetch("PUT", &signed.url, &signed.headers, bytes.clone()).await.status, 200);

    confirm(&api, &token, &data).await;
    assert_eq!(file_of(&api, &token, &data).await["uploadStatus"], json!(1));
    assert_eq!(download(&api, &token, file_id(&data)).await.body, bytes);
    assert_eq!(refs(&api, owner_id, &bytes).await, Some(1));
}
