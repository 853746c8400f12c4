//! [`EventQueue`] on Amazon SQS (or moto). Every SDK error becomes an `anyhow` error naming the
//! operation and the queue, followed by the service's error code and message (or, when the
//! request got no service answer, the SDK's error chain). The queues of the emulators and the
//! consuming side the tests play Lambda's event source mapping with are in `sqs_testing.rs`
//! (feature `test-support`).

use crate::ports::aws::{LazyClient, SdkConfig};
use anyhow::anyhow;
use async_trait::async_trait;
use aws_sdk_sqs::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_sqs::Client;

use super::EventQueue;

#[cfg(feature = "test-support")]
#[path = "sqs_testing.rs"]
mod testing;
#[cfg(feature = "test-support")]
pub use testing::Received;

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
