//! The outbox sweep runs on the schedule the template gives it (here every second instead of
//! its rate, which the stack allows for tests): an event left in the outbox a while ago reaches
//! the queue without anyone invoking the sweep, and leaves the outbox; a draft scheduled through
//! the API is published at its time while the stack runs, once, with its event.

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

/// `method path` on the stack's front with `token`, answering (status, body).
async fn call(
    stack: &Stack,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", stack.url()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn a_scheduled_draft_is_published_by_the_running_schedule_at_its_time_once() {
    let mut options =
        blog_stack::testing::options(("admin", "Admin12345", "a@example.com"), &[]).unwrap();
    options.schedule_period = Some(Duration::from_secs(2));
    let stack = Stack::start(options).await.unwrap();
    // The events stay in the queue, where this test counts them.
    stack.set_event_sources_enabled(false);
    let login = json!({"username": "admin", "password": "Admin12345"});
    let (status, body) = call(&stack, "POST", "/api/v1/auth/login", None, Some(login)).await;
    assert_eq!(status, 200, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_string();
    let draft = json!({"title": "On the hour", "content": "Published by the schedule."});
    let (_, created) =
        call(&stack, "POST", "/api/v1/admin/articles", Some(&token), Some(draft)).await;
    let id = created["data"].as_str().unwrap().to_string();
    let at =
        (chrono::Utc::now() + chrono::Duration::seconds(4)).format("%Y-%m-%dT%H:%M:%S").to_string();
    let path = format!("/api/v1/admin/articles/{id}/schedule");
    let (status, body) =
        call(&stack, "PUT", &path, Some(&token), Some(json!({"publishAt": at}))).await;
    assert_eq!((status, body["data"].clone()), (200, json!(at)), "{body}");
    let public = format!("/api/v1/articles/{id}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let detail = loop {
        let (status, body) = call(&stack, "GET", &public, None, None).await;
        if status == 200 {
            break body["data"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "the schedule never published it");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let published_at = detail["publishTime"].as_str().unwrap().to_string();
    assert!(published_at >= at, "published at {published_at}, scheduled at {at}");
    let late = chrono::NaiveDateTime::parse_from_str(&published_at, "%Y-%m-%dT%H:%M:%S").unwrap()
        - chrono::NaiveDateTime::parse_from_str(&at, "%Y-%m-%dT%H:%M:%S").unwrap();
    assert!(late.num_seconds() <= 5, "published {}s after its time", late.num_seconds());
    // Runs overlap every two seconds while one waits for the time: one event all the same.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let queue = stack.reference("EventsQueue").unwrap().to_string();
    let mut events = Vec::new();
    loop {
        let received = stack
            .clients()
            .sqs
            .receive_message()
            .queue_url(&queue)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        let messages = received.messages.unwrap_or_default();
        if messages.is_empty() {
            break;
        }
        for message in messages {
            let body: serde_json::Value = serde_json::from_str(&message.body.unwrap()).unwrap();
            if body["articleId"] == json!(id) {
                events.push(body);
            }
        }
    }
    assert_eq!(events.len(), 1, "one ArticlePublishedEvent: {events:?}");
    assert_eq!(events[0]["publishTime"], json!(published_at));
    let violations = stack.iam_violations();
    assert!(violations.is_empty(), "{violations:?}");
}
