//! [`Embedder`] on Amazon Bedrock: Titan Text Embeddings V2 (or a compatible model) through
//! `InvokeModel`, asking for normalised float vectors of 256, 512 or 1024 dimensions.
//!
//! Titan V2 takes up to 8,192 tokens (about 50,000 characters of English). Only the first
//! [`MAX_INPUT_CHARS`] characters of a text are sent: an article's title and opening say what
//! it is about, every character is billed as tokens, and the cut stays under the token limit
//! even for text of about one token per character (code, CJK). Blank text is not sent: its
//! embedding is the zero vector.

use crate::ports::aws::SdkConfig;
use anyhow::{anyhow, bail, Context};
use async_trait::async_trait;
use aws_sdk_bedrockruntime::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::primitives::Blob;
use aws_sdk_bedrockruntime::Client;
use serde::{Deserialize, Serialize};

use super::{normalize, Embedder};

/// Titan Text Embeddings V2.
pub const DEFAULT_MODEL_ID: &str = "amazon.titan-embed-text-v2:0";
/// Dimensions Titan V2 accepts.
pub const DIMENSIONS: [usize; 3] = [256, 512, 1024];
/// Titan V2 at 512 dimensions keeps about 99% of its retrieval accuracy at 1024, in half the
/// space.
pub const DEFAULT_DIMENSIONS: usize = 512;
/// Characters of a text sent to the model at most (the rest is ignored).
pub const MAX_INPUT_CHARS: usize = 8_000;

/// The Bedrock adapter of the [`Embedder`] port. Cheap to clone.
#[derive(Clone, Debug)]
pub struct BedrockEmbedder {
    client: Client,
    model_id: String,
    dimensions: usize,
    max_input_chars: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a> {
    input_text: &'a str,
    dimensions: usize,
    normalize: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    embedding: Vec<f32>,
    input_text_token_count: Option<u64>,
}

impl BedrockEmbedder {
    /// An embedder calling `model_id` through `client` for `dimensions`-long vectors; an error
    /// unless `dimensions` is one of [`DIMENSIONS`].
    pub fn new(
        client: Client,
        model_id: impl Into<String>,
        dimensions: usize,
    ) -> anyhow::Result<Self> {
        if !DIMENSIONS.contains(&dimensions) {
            bail!("Bedrock embeddings: {dimensions} dimensions; expected one of {DIMENSIONS:?}");
        }
        let model_id = model_id.into();
        if model_id.is_empty() {
            bail!("Bedrock embeddings: empty model id");
        }
        Ok(Self { client, model_id, dimensions, max_input_chars: MAX_INPUT_CHARS })
    }

    /// An embedder built from the shared SDK configuration (see [`BedrockEmbedder::new`]);
    /// `endpoint` overrides the endpoint of Bedrock Runtime only (`AWS_ENDPOINT_URL` is already
    /// part of `sdk`).
    pub fn from_config(
        sdk: &SdkConfig,
        model_id: impl Into<String>,
        dimensions: usize,
        endpoint: Option<&str>,
    ) -> anyhow::Result<Self> {
        let mut config = aws_sdk_bedrockruntime::config::Builder::from(sdk);
        // Only an override replaces the endpoint the environment gave (`AWS_ENDPOINT_URL_*`).
        if let Some(endpoint) = endpoint {
            config.set_endpoint_url(Some(endpoint.to_owned()));
        }
        Self::new(Client::from_conf(config.build()), model_id, dimensions)
    }

    /// Sends at most `chars` characters of each text instead of [`MAX_INPUT_CHARS`] (at least 1):
    /// the tests' way to reach the cut with short texts (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub fn with_max_input_chars(mut self, chars: usize) -> Self {
        self.max_input_chars = chars.max(1);
        self
    }

    /// The underlying SDK client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// An error for `InvokeModel`: the service's error code and message when it answered, else
    /// the SDK's error chain (timeouts, connection failures, ...).
    fn error<E>(&self, error: SdkError<E>) -> anyhow::Error
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        match error.as_service_error() {
            Some(service) => anyhow!(
                "InvokeModel {}: {}: {}",
                self.model_id,
                service.code().unwrap_or("unknown error"),
                service.message().unwrap_or("no message")
            ),
            None => anyhow!("InvokeModel {}: {}", self.model_id, DisplayErrorContext(error)),
        }
    }
}

/// The first `max` characters of `text`.
fn truncate(text: &str, max: usize) -> &str {
    text.char_indices().nth(max).map_or(text, |(end, _)| &text[..end])
}

#[async_trait]
impl Embedder for BedrockEmbedder {
    async fn embed(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(vec![0.0; self.dimensions]);
        }
        let request = Request {
            input_text: truncate(text, self.max_input_chars),
            dimensions: self.dimensions,
            normalize: true,
        };
        let output = self
            .client
            .invoke_model()
            .model_id(&self.model_id)
            .content_type("application/json")
            .accept("application/json")
            .body(Blob::new(serde_json::to_vec(&request)?))
            .send()
            .await
            .map_err(|e| self.error(e))?;
        let response: Response = serde_json::from_slice(output.body().as_ref())
            .with_context(|| format!("InvokeModel {}: unexpected response body", self.model_id))?;
        let mut embedding = response.embedding;
        if embedding.len() != self.dimensions {
            bail!(
                "InvokeModel {}: {} dimensions in the response, {} asked for",
                self.model_id,
                embedding.len(),
                self.dimensions
            );
        }
        if !embedding.iter().all(|x| x.is_finite()) {
            bail!("InvokeModel {}: non-finite value in the embedding", self.model_id);
        }
        normalize(&mut embedding);
        tracing::debug!(
            model = %self.model_id,
            tokens = response.input_text_token_count,
            chars = request.input_text.chars().count(),
            "embedded"
        );
        Ok(embedding)
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate("héllo", 2), "hé");
        assert_eq!(truncate("東京の天気", 3), "東京の");
        assert_eq!(truncate("short", 100), "short");
        assert_eq!(truncate("", 1), "");
    }
}
