//! Secrets from AWS Secrets Manager, read once per cold start.

use anyhow::Context;

/// The string value of a secret (by ARN or name).
pub async fn secret_string(
    sdk: &crate::ports::aws::SdkConfig,
    secret_id: &str,
) -> anyhow::Result<String> {
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let output = client
        .get_secret_value()
        .secret_id(secret_id)
        .send()
        .await
        .with_context(|| format!("reading secret {secret_id}"))?;
    output.secret_string.with_context(|| format!("secret {secret_id} has no string value"))
}
