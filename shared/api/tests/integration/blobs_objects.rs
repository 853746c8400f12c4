//! The blobs port's objects of the service's own, read and written whole on conditions of their
//! entity tags, on both adapters: the local store, and S3 on s3s-fs (ignored unless asked for,
//! as in `blobs_s3`). Two writers that read the same version never both write: the second is
//! told, reads again and writes on the new version.

use blog_api::ports::blobs::{local::LocalBlobs, Blobs, Fetched, Put, PutCondition};

const TYPE: &str = "application/octet-stream";

async fn stored(blobs: &dyn Blobs, key: &str, bytes: &[u8], condition: PutCondition) -> String {
    match blobs.put(key, bytes.to_vec(), TYPE, condition).await.unwrap() {
        Put::Stored { etag } => etag,
        Put::ConditionFailed => panic!("{key}: the condition should hold"),
    }
}

async fn refused(blobs: &dyn Blobs, key: &str, bytes: &[u8], condition: PutCondition) {
    let put = blobs.put(key, bytes.to_vec(), TYPE, condition.clone()).await.unwrap();
    assert_eq!(put, Put::ConditionFailed, "{key} with {condition:?}");
}

/// Creation once, replacement of the version read only, and reads that cost nothing when the
/// object is the one held.
async fn a_writer_replaces_only_the_version_it_read(blobs: &dyn Blobs) {
    let key = "state/one.bin";
    assert_eq!(blobs.get(key, None).await.unwrap(), Fetched::Missing);
    let first = stored(blobs, key, b"one", PutCondition::Absent).await;
    refused(blobs, key, b"two", PutCondition::Absent).await;
    let found = Fetched::Found { bytes: b"one".to_vec(), etag: first.clone() };
    assert_eq!(blobs.get(key, None).await.unwrap(), found);
    assert_eq!(blobs.get(key, Some(&first)).await.unwrap(), Fetched::Unchanged);

    let second = stored(blobs, key, b"two", PutCondition::Matches(first.clone())).await;
    assert_ne!(second, first);
    refused(blobs, key, b"three", PutCondition::Matches(first.clone())).await;
    let found = Fetched::Found { bytes: b"two".to_vec(), etag: second.clone() };
    assert_eq!(blobs.get(key, Some(&first)).await.unwrap(), found, "changed since `first`");

    let absent = "state/none.bin";
    refused(blobs, absent, b"x", PutCondition::Matches(second)).await;
    assert_eq!(blobs.get(absent, None).await.unwrap(), Fetched::Missing);
}

#[tokio::test]
async fn on_the_local_store_a_writer_replaces_only_the_version_it_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalBlobs::open(dir.path(), "http://blobs.test", b"key").unwrap();
    a_writer_replaces_only_the_version_it_read(&store).await;
}

#[tokio::test]
async fn on_the_local_store_of_concurrent_writers_of_one_version_exactly_one_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalBlobs::open(dir.path(), "http://blobs.test", b"key").unwrap();
    let key = "state/contended.bin";
    let read = stored(&store, key, b"0", PutCondition::Absent).await;
    let writers = (1..=8).map(|writer: u8| {
        let (store, read) = (store.clone(), read.clone());
        async move { store.put(key, vec![writer], TYPE, PutCondition::Matches(read)).await }
    });
    let puts = futures::future::try_join_all(writers).await.unwrap();
    let written: Vec<_> = puts.iter().filter(|put| matches!(put, Put::Stored { .. })).collect();
    assert_eq!(written.len(), 1, "{puts:?}");
    let Fetched::Found { bytes, etag } = store.get(key, None).await.unwrap() else {
        panic!("the object is there")
    };
    assert_eq!(written[0], &Put::Stored { etag }, "the one written is the one stored");
    assert_eq!(bytes.len(), 1);
}

#[cfg(all(feature = "s3", feature = "test-support"))]
#[tokio::test]
#[ignore = "needs s3s-fs; make test runs it"]
async fn on_s3_a_writer_replaces_only_the_version_it_read() {
    use blog_api::ports::blobs::s3::S3Blobs;
    let endpoint = std::env::var("BLOG_TEST_S3_ENDPOINT")
        .expect("BLOG_TEST_S3_ENDPOINT is not set: run through with-emulators.sh");
    let client = S3Blobs::test_client(&endpoint);
    let name = format!("objects-{}", uuid::Uuid::new_v4().simple());
    let bucket = S3Blobs::create_bucket(&client, &name).await.expect("create the bucket");
    a_writer_replaces_only_the_version_it_read(&bucket).await;
}
