//! The outbox sweep runs on the schedule the template gives it (here every second instead of
//! its rate, which the stack allows for tests): an event left in the outbox a while ago reaches
//! the queue without anyone invoking the sweep, and leaves the outbox.

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use blog_stack::Stack;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn the_sweep_runs_on_its_schedule_and_delivers_what_the_outbox_holds() {
    let mut options =
        blog_stack::testing::options(("admin", "Admin12345", "a@example.com"), &[]).unwrap();
    options.schedule_period = Some(Duration::from_secs(1));
    let stack = Stack::start(options).await.unwrap();
    let clients = stack.clients();
    let created = chrono::Utc::now().timestamp_millis() - 120_000;
    let event = json!({"type": "ArticlePublishedEvent", "eventId": "e-scheduled", "articleId": "7",
        "version": 1, "publishTime": "2026-11-25T10:00:00", "createdAt": created});
    clients
        .dynamodb
        .put_item()
        .table_name(stack.reference("BlogTable").unwrap())
        .item("pk", AttributeValue::S("OUTBOX".into()))
        .item("sk", AttributeValue::S(format!("{created:015}#e-scheduled")))
        .item("body", AttributeValue::S(event.to_string()))
        .item("createdAt", AttributeValue::N(created.to_string()))
        .send()
        .await
        .unwrap();
    let queue = stack.reference("EventsQueue").unwrap().to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let body = loop {
        assert!(tokio::time::Instant::now() < deadline, "the schedule never delivered the event");
        let received = clients
            .sqs
            .receive_message()
            .queue_url(&queue)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        if let Some(message) = received.messages.unwrap_or_default().into_iter().next() {
            break message.body.unwrap();
        }
    };
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["eventId"], "e-scheduled");
    // The sweep deletes an event once the queue has it.
    loop {
        let left = clients
            .dynamodb
            .query()
            .table_name(stack.reference("BlogTable").unwrap())
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S("OUTBOX".into()))
            .send()
            .await
            .unwrap();
        if left.count == 0 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the event stayed in the outbox");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(stack.function("outbox-sweep").unwrap().cold_starts() >= 1);
    let violations = stack.iam_violations();
    assert!(violations.is_empty(), "{violations:?}");
}
