//! The SQS adapter of the events port against moto at `BLOG_TEST_SQS_ENDPOINT`, one fresh queue
//! per test (ignored unless asked for: `infra/emulators/with-emulators.sh cargo test -p
//! blog-api --features sqs,test-support --test integration -- events_sqs --ignored`).
#![cfg(all(feature = "sqs", feature = "test-support"))]

use std::sync::Arc;
use std::time::Duration;

use blog_api::ports::events::sqs::{Received, SqsQueue};
use blog_api::ports::events::EventQueue;

/// Visibility timeout of the queues whose messages must come back, in seconds.
const VISIBILITY: u32 = 1;
/// Sleep that outlasts [`VISIBILITY`].
const PAST_VISIBILITY: Duration = Duration::from_millis(1_300);

fn endpoint() -> String {
    std::env::var("BLOG_TEST_SQS_ENDPOINT")
        .expect("BLOG_TEST_SQS_ENDPOINT is not set: run through infra/emulators/with-emulators.sh")
}

/// A queue name unique to this test and run (moto may outlive one run).
fn unique(test: &str) -> String {
    format!("{test}-{}", uuid::Uuid::new_v4().simple())
}

async fn queue(test: &str) -> SqsQueue {
    SqsQueue::connect_for_tests(&endpoint(), &unique(test)).await.expect("create the queue")
}

/// The only message of one receive.
async fn receive_one(queue: &SqsQueue) -> Received {
    let mut received = queue.receive(10, 2).await.expect("receive");
    assert_eq!(received.len(), 1, "expected one message, got {received:?}");
    received.remove(0)
}

async fn receive_none(queue: &SqsQueue, wait_seconds: i32) {
    let received = queue.receive(10, wait_seconds).await.expect("receive");
    assert!(received.is_empty(), "expected no message, got {received:?}");
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn a_sent_message_is_received_once_with_its_body_and_receive_count_1() {
    let queue = queue("sent-once").await;
    let port: Arc<dyn EventQueue> = Arc::new(queue.clone());
    port.send(r#"{"type":"ArticlePublished","id":"a1"}"#.into()).await.expect("send");

    let received = receive_one(&queue).await;
    assert_eq!(received.message.body, r#"{"type":"ArticlePublished","id":"a1"}"#);
    assert_eq!(received.message.receive_count, 1);
    assert!(!received.message.id.is_empty());
    assert!(!received.receipt.is_empty());
    receive_none(&queue, 0).await;
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn an_undeleted_message_comes_back_after_the_visibility_timeout_with_receive_count_2() {
    let queue = queue("comes-back").await;
    queue.set_visibility_timeout(VISIBILITY).await.expect("set the visibility timeout");
    queue.send("retry me".into()).await.expect("send");

    let first = receive_one(&queue).await;
    assert_eq!(first.message.receive_count, 1);
    tokio::time::sleep(PAST_VISIBILITY).await;
    let second = receive_one(&queue).await;
    assert_eq!(second.message.id, first.message.id);
    assert_eq!(second.message.body, "retry me");
    assert_eq!(second.message.receive_count, 2);
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn a_deleted_message_does_not_come_back() {
    let queue = queue("deleted").await;
    queue.set_visibility_timeout(VISIBILITY).await.expect("set the visibility timeout");
    queue.send("done".into()).await.expect("send");

    let received = receive_one(&queue).await;
    queue.delete(&received.receipt).await.expect("delete");
    tokio::time::sleep(PAST_VISIBILITY).await;
    receive_none(&queue, 1).await;
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn an_undeleted_message_moves_to_the_dead_letter_queue_after_max_receive_count_receives() {
    let client = SqsQueue::test_client(&endpoint());
    let (queue, dlq) = SqsQueue::create_with_dead_letter_queue(&client, &unique("to-dlq"), 2)
        .await
        .expect("create the queues");
    queue.set_visibility_timeout(VISIBILITY).await.expect("set the visibility timeout");
    queue.send("poison".into()).await.expect("send");

    let first = receive_one(&queue).await;
    tokio::time::sleep(PAST_VISIBILITY).await;
    assert_eq!(receive_one(&queue).await.message.receive_count, 2);
    tokio::time::sleep(PAST_VISIBILITY).await;
    receive_none(&queue, 1).await;

    let dead = receive_one(&dlq).await;
    assert_eq!((dead.message.id, dead.message.body), (first.message.id, "poison".to_owned()));
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn errors_name_the_operation_and_the_queue_and_give_the_service_message() {
    let missing = format!("{}/000000000000/{}", endpoint(), unique("missing"));
    let queue = SqsQueue::new(SqsQueue::test_client(&endpoint()), &missing);

    let error = queue.send("lost".into()).await.expect_err("send to a missing queue").to_string();
    assert!(error.starts_with(&format!("SendMessage {missing}: ")), "{error}");
    assert!(error.ends_with("The specified queue does not exist."), "{error}");
    let error = queue.receive(1, 0).await.expect_err("receive from a missing queue").to_string();
    assert!(error.starts_with(&format!("ReceiveMessage {missing}: ")), "{error}");
}
