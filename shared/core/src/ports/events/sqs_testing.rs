//! The test side of the SQS adapter (feature `test-support`): clients and queues on the
//! emulator (production queues come from the CloudFormation template), and the consuming side
//! with which the tests play Lambda's event source mapping: [`SqsQueue::receive`] and
//! [`SqsQueue::delete`].

use anyhow::Context;
use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_sqs::types::{MessageSystemAttributeName, QueueAttributeName};
use aws_sdk_sqs::Client;

use super::{sdk_error, SqsQueue};
use crate::ports::events::Message;

/// One received message with the receipt handle that [`SqsQueue::delete`] needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The message; `receive_count` is SQS's `ApproximateReceiveCount`.
    pub message: Message,
    /// Receipt handle of this delivery (a later delivery of the same message has another one).
    pub receipt: String,
}

impl SqsQueue {
    /// Receives up to `max` messages (1 to 10), long-polling up to `wait_seconds` (0 to 20)
    /// when none is visible. An empty result means none arrived in time. Received messages stay
    /// invisible for the queue's visibility timeout, then come back unless deleted.
    pub async fn receive(&self, max: i32, wait_seconds: i32) -> anyhow::Result<Vec<Received>> {
        let output = self
            .client()
            .receive_message()
            .queue_url(&self.queue_url)
            .max_number_of_messages(max)
            .wait_time_seconds(wait_seconds)
            .message_system_attribute_names(MessageSystemAttributeName::ApproximateReceiveCount)
            .send()
            .await
            .map_err(|e| self.error("ReceiveMessage", e))?;
        output
            .messages
            .unwrap_or_default()
            .into_iter()
            .map(|message| {
                let id = message.message_id.context("ReceiveMessage: message without an id")?;
                let missing = |what: &str| format!("ReceiveMessage: message {id} without {what}");
                let receipt =
                    message.receipt_handle.with_context(|| missing("a receipt handle"))?;
                let body = message.body.with_context(|| missing("a body"))?;
                let receive_count = message
                    .attributes
                    .as_ref()
                    .and_then(|a| a.get(&MessageSystemAttributeName::ApproximateReceiveCount))
                    .with_context(|| missing("ApproximateReceiveCount"))?
                    .parse()
                    .with_context(|| missing("a numeric ApproximateReceiveCount"))?;
                Ok(Received { message: Message { id, body, receive_count }, receipt })
            })
            .collect()
    }

    /// Deletes the message delivered with `receipt`, so that it does not come back.
    pub async fn delete(&self, receipt: &str) -> anyhow::Result<()> {
        self.client()
            .delete_message()
            .queue_url(&self.queue_url)
            .receipt_handle(receipt)
            .send()
            .await
            .map_err(|e| self.error("DeleteMessage", e))?;
        Ok(())
    }

    /// Sets the queue's visibility timeout: how long a received message stays hidden before it
    /// is delivered again.
    pub async fn set_visibility_timeout(&self, seconds: u32) -> anyhow::Result<()> {
        self.client()
            .set_queue_attributes()
            .queue_url(&self.queue_url)
            .attributes(QueueAttributeName::VisibilityTimeout, seconds.to_string())
            .send()
            .await
            .map_err(|e| self.error("SetQueueAttributes", e))?;
        Ok(())
    }

    /// An SQS client for the emulator at `endpoint` with static test credentials (`test`/`test`,
    /// region us-east-1).
    pub fn test_client(endpoint: &str) -> Client {
        let credentials = Credentials::new("test", "test", None, None, "blog-tests");
        let config = aws_sdk_sqs::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials)
            .endpoint_url(endpoint)
            .build();
        Client::from_conf(config)
    }

    /// An adapter on the emulator at `endpoint` (see [`SqsQueue::test_client`]), its standard
    /// queue `queue_name` created when missing.
    pub async fn connect_for_tests(endpoint: &str, queue_name: &str) -> anyhow::Result<Self> {
        Self::create(&Self::test_client(endpoint), queue_name).await
    }

    /// Creates the standard queue `name` with default attributes (a no-op when it exists with
    /// them) and returns an adapter for it. For emulators and tests: production queues come
    /// from the CloudFormation template.
    pub async fn create(client: &Client, name: &str) -> anyhow::Result<Self> {
        let created = client.create_queue().queue_name(name).send().await;
        let url = created
            .map_err(|e| sdk_error("CreateQueue", name, e))?
            .queue_url
            .with_context(|| format!("CreateQueue {name}: no queue URL"))?;
        Ok(Self::new(client.clone(), url))
    }

    /// Creates the queue `<name>-dlq`, then the queue `name` with a redrive policy moving a
    /// message there once it has been received `max_receive_count` times without being deleted.
    /// Returns `(queue, dead_letter_queue)`. For emulators and tests, like [`SqsQueue::create`].
    pub async fn create_with_dead_letter_queue(
        client: &Client,
        name: &str,
        max_receive_count: u32,
    ) -> anyhow::Result<(Self, Self)> {
        let dlq = Self::create(client, &format!("{name}-dlq")).await?;
        let attributes = client
            .get_queue_attributes()
            .queue_url(&dlq.queue_url)
            .attribute_names(QueueAttributeName::QueueArn)
            .send()
            .await
            .map_err(|e| dlq.error("GetQueueAttributes", e))?;
        let dlq_arn = attributes
            .attributes
            .and_then(|mut a| a.remove(&QueueAttributeName::QueueArn))
            .with_context(|| format!("GetQueueAttributes {}: no QueueArn", dlq.queue_url))?;
        let redrive = serde_json::json!({
            "deadLetterTargetArn": dlq_arn,
            "maxReceiveCount": max_receive_count.to_string(),
        });
        let created = client
            .create_queue()
            .queue_name(name)
            .attributes(QueueAttributeName::RedrivePolicy, redrive.to_string())
            .send()
            .await;
        let url = created
            .map_err(|e| sdk_error("CreateQueue", name, e))?
            .queue_url
            .with_context(|| format!("CreateQueue {name}: no queue URL"))?;
        Ok((Self::new(client.clone(), url), dlq))
    }
}
