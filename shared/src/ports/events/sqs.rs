//! [`EventQueue`] on Amazon SQS (or moto), plus the consuming side used by the worker's tests
//! and by the local gateway when it runs against AWS: [`SqsQueue::receive`] and
//! [`SqsQueue::delete`]. Every SDK error becomes an `anyhow` error naming the operation and the
//! queue, followed by the service's error code and message (or, when the request got no service
//! answer, the SDK's error chain).

use crate::ports::aws::{LazyClient, SdkConfig};
use anyhow::{anyhow, Context};
use async_trait::async_trait;
use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_sqs::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_sqs::types::{MessageSystemAttributeName, QueueAttributeName};
use aws_sdk_sqs::Client;

use super::{EventQueue, Message};

/// One received message with the receipt handle that [`SqsQueue::delete`] needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The message; `receive_count` is SQS's `ApproximateReceiveCount`.
    pub message: Message,
    /// Receipt handle of this delivery (a later delivery of the same message has another one).
    pub receipt: String,
}

/// The SQS adapter of the [`EventQueue`] port, bound to one queue URL. Cheap to clone.
#[derive(Clone, Debug)]
pub struct SqsQueue {
    client: LazyClient<Client>,
    queue_url: String,
}

impl SqsQueue {
    /// An adapter for the queue at `queue_url` through `client`.
    pub fn new(client: Client, queue_url: impl Into<String>) -> Self {
        Self { client: LazyClient::built(client), queue_url: queue_url.into() }
    }

    /// An adapter built from the shared SDK configuration; `endpoint` overrides the endpoint of
    /// SQS only (`BLOG_SQS_ENDPOINT`; `AWS_ENDPOINT_URL` is already part of `sdk`).
    /// Its client is built on first use (see [`LazyClient`]).
    pub fn from_config(
        sdk: &SdkConfig,
        queue_url: impl Into<String>,
        endpoint: Option<&str>,
    ) -> Self {
        let mut config = aws_sdk_sqs::config::Builder::from(sdk);
        // Only an override replaces the endpoint the environment gave (`AWS_ENDPOINT_URL_*`).
        if let Some(endpoint) = endpoint {
            config.set_endpoint_url(Some(endpoint.to_owned()));
        }
        let config = config.build();
        let client = LazyClient::new(move || Client::from_conf(config.clone()));
        Self { client, queue_url: queue_url.into() }
    }

    /// The queue's URL.
    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }

    /// The underlying SDK client.
    pub fn client(&self) -> &Client {
        self.client.get()
    }

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

    /// An error for `operation` on this queue.
    fn error<E>(&self, operation: &str, error: SdkError<E>) -> anyhow::Error
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        sdk_error(operation, &self.queue_url, error)
    }
}

/// `<operation> <queue>: <code>: <message>` for a service error (one line, for logs), else
/// `<operation> <queue>: ` and the SDK's error chain (timeouts, connection failures, ...).
fn sdk_error<E>(operation: &str, queue: &str, error: SdkError<E>) -> anyhow::Error
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    match error.as_service_error() {
        Some(service) => anyhow!(
            "{operation} {queue}: {}: {}",
            service.code().unwrap_or("unknown error"),
            service.message().unwrap_or("no message")
        ),
        None => anyhow!("{operation} {queue}: {}", DisplayErrorContext(error)),
    }
}

#[async_trait]
impl EventQueue for SqsQueue {
    async fn send(&self, body: String) -> anyhow::Result<()> {
        self.client()
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .send()
            .await
            .map_err(|e| self.error("SendMessage", e))?;
        Ok(())
    }

    async fn ping(&self) -> anyhow::Result<Option<u64>> {
        let depth = aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessages;
        let attributes = self
            .client()
            .get_queue_attributes()
            .queue_url(&self.queue_url)
            .attribute_names(depth.clone())
            .send()
            .await
            .map_err(|e| self.error("GetQueueAttributes", e))?;
        Ok(attributes
            .attributes()
            .and_then(|attributes| attributes.get(&depth))
            .and_then(|depth| depth.parse().ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adapter_from_the_shared_configuration_builds_its_client_on_first_use() {
        let sdk = crate::ports::aws::example_config("eu-west-1");
        let queue =
            SqsQueue::from_config(&sdk, "http://127.0.0.1:9/1/q", Some("http://127.0.0.1:9"));
        assert!(!queue.client.is_built());
        let config = queue.client().config();
        assert!(queue.client.is_built());
        assert_eq!(config.region().map(|r| r.as_ref()), Some("eu-west-1"));
    }
}
