//! Lambda's SQS event source mapping: it long-polls the queue, gathers up to `BatchSize`
//! messages for at most `MaximumBatchingWindowInSeconds`, invokes the function with the SQS
//! event Lambda builds, and deletes the messages the function handled: with
//! `ReportBatchItemFailures`, all but the ones in `batchItemFailures`; without, all of them
//! when the invocation succeeded. A failed invocation deletes none. What is not deleted comes
//! back after the queue's visibility timeout, and the queue's redrive policy moves a message
//! to its dead-letter queue after `maxReceiveCount` receives. The mapping can be disabled and
//! enabled, as `aws lambda update-event-source-mapping --enabled` does.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Duration,
};

use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, Message, MessageSystemAttributeName};
use axum::body::Bytes;
use serde_json::{json, Value};

use crate::{
    functions::{Function, Outcome},
    template::intrinsics::REGION,
};

/// One SQS event source mapping.
pub struct Mapping {
    /// The queue's URL.
    pub queue_url: String,
    /// The queue's ARN (`eventSourceARN`).
    pub queue_arn: String,
    /// `BatchSize`.
    pub batch_size: i32,
    /// `MaximumBatchingWindowInSeconds`.
    pub batching_window: Duration,
    /// `ReportBatchItemFailures`.
    pub reports_item_failures: bool,
    /// Whether it polls.
    pub enabled: Arc<AtomicBool>,
}

impl Mapping {
    /// Polls the queue for `function` for as long as the runtime runs.
    pub fn spawn(self, sqs: aws_sdk_sqs::Client, function: Arc<Function>) {
        tokio::spawn(async move {
            loop {
                if !self.enabled.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
                match self.batch(&sqs).await {
                    Ok(messages) if messages.is_empty() => {}
                    Ok(messages) => self.deliver(&sqs, &function, messages).await,
                    Err(error) => {
                        eprintln!("[stack] polling {}: {error:#}", self.queue_url);
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        });
    }

    async fn receive(
        &self,
        sqs: &aws_sdk_sqs::Client,
        max: i32,
        wait: i32,
    ) -> anyhow::Result<Vec<Message>> {
        let received = sqs
            .receive_message()
            .queue_url(&self.queue_url)
            .max_number_of_messages(max.clamp(1, 10))
            .wait_time_seconds(wait)
            .message_system_attribute_names(MessageSystemAttributeName::All)
            .message_attribute_names("All")
            .send()
            .await?;
        Ok(received.messages.unwrap_or_default())
    }

    /// Up to a batch, gathered within the batching window.
    async fn batch(&self, sqs: &aws_sdk_sqs::Client) -> anyhow::Result<Vec<Message>> {
        let mut batch = self.receive(sqs, self.batch_size, 1).await?;
        if batch.is_empty() {
            return Ok(batch);
        }
        let deadline = tokio::time::Instant::now() + self.batching_window;
        while (batch.len() as i32) < self.batch_size && tokio::time::Instant::now() < deadline {
            let more = self.receive(sqs, self.batch_size - batch.len() as i32, 0).await?;
            if more.is_empty() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            batch.extend(more);
        }
        Ok(batch)
    }

    fn event(&self, messages: &[Message]) -> Value {
        let records: Vec<Value> = messages
            .iter()
            .map(|message| {
                let attributes: serde_json::Map<String, Value> = message
                    .attributes()
                    .map(|map| {
                        map.iter().map(|(k, v)| (k.as_str().to_string(), json!(v))).collect()
                    })
                    .unwrap_or_default();
                json!({
                    "messageId": message.message_id(),
                    "receiptHandle": message.receipt_handle(),
                    "body": message.body(),
                    "attributes": attributes,
                    "messageAttributes": {},
                    "md5OfBody": message.md5_of_body(),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": self.queue_arn,
                    "awsRegion": REGION,
                })
            })
            .collect();
        json!({ "Records": records })
    }

    async fn deliver(
        &self,
        sqs: &aws_sdk_sqs::Client,
        function: &Function,
        messages: Vec<Message>,
    ) {
        let payload = Bytes::from(self.event(&messages).to_string());
        let failed: Option<Vec<String>> = match function.invoke(payload).await {
            Ok(Outcome::Answered(answer)) if self.reports_item_failures => {
                let answer: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
                match answer["batchItemFailures"].as_array() {
                    Some(failures) => Some(
                        failures
                            .iter()
                            .filter_map(|f| f["itemIdentifier"].as_str().map(str::to_string))
                            .collect(),
                    ),
                    // Lambda treats an unreadable batch response as a failure of every message.
                    None if answer.is_null() || answer == json!({}) => Some(vec![]),
                    None => None,
                }
            }
            Ok(Outcome::Answered(_)) => Some(vec![]),
            Ok(Outcome::Failed(_)) | Err(_) => None,
        };
        let Some(failed) = failed else { return };
        let entries: Vec<DeleteMessageBatchRequestEntry> = messages
            .iter()
            .filter(|m| !failed.iter().any(|id| Some(id.as_str()) == m.message_id()))
            .enumerate()
            .filter_map(|(n, m)| {
                DeleteMessageBatchRequestEntry::builder()
                    .id(n.to_string())
                    .receipt_handle(m.receipt_handle()?)
                    .build()
                    .ok()
            })
            .collect();
        if entries.is_empty() {
            return;
        }
        let deleted =
            sqs.delete_message_batch().queue_url(&self.queue_url).set_entries(Some(entries));
        if let Err(error) = deleted.send().await {
            eprintln!("[stack] deleting handled messages: {error}");
        }
    }
}
