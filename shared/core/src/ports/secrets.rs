//! Secrets from AWS Secrets Manager, read once per cold start.

use anyhow::Context;

use crate::ports::aws::SdkConfig;

/// The string value of a secret (by ARN or name). `endpoint` overrides the endpoint of Secrets
/// Manager only (`BLOG_SECRETSMANAGER_ENDPOINT`; `AWS_ENDPOINT_URL[_SECRETS_MANAGER]` is already
/// part of `sdk`).
pub async fn secret_string(
    sdk: &SdkConfig,
    endpoint: Option<&str>,
    secret_id: &str,
) -> anyhow::Result<String> {
    let mut config = aws_sdk_secretsmanager::config::Builder::from(sdk);
    // Only an override replaces the endpoint the environment gave (`AWS_ENDPOINT_URL_*`).
    if let Some(endpoint) = endpoint {
        config.set_endpoint_url(Some(endpoint.to_owned()));
    }
    let client = aws_sdk_secretsmanager::Client::from_conf(config.build());
    let output = client
        .get_secret_value()
        .secret_id(secret_id)
        .send()
        .await
        .with_context(|| format!("reading secret {secret_id}"))?;
    output.secret_string.with_context(|| format!("secret {secret_id} has no string value"))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use axum::{body::Bytes, http::HeaderMap};

    use super::*;

    /// Operation and `SecretId` of each request a stub received.
    type Asked = Arc<Mutex<Vec<(String, String)>>>;

    /// A Secrets Manager stand-in on a free loopback port: answers every request with a secret
    /// whose value is `value`, and records what it was asked.
    async fn stub(value: &'static str) -> (String, Asked) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let recorded = asked.clone();
        let app = axum::Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let recorded = recorded.clone();
            async move {
                let target = headers.get("x-amz-target").and_then(|v| v.to_str().ok());
                let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let id = request["SecretId"].as_str().unwrap_or_default();
                recorded.lock().unwrap().push((target.unwrap_or_default().into(), id.into()));
                let answer = serde_json::json!({"Name": "blog-jwt-secret", "SecretString": value});
                ([("content-type", "application/x-amz-json-1.1")], answer.to_string())
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let endpoint = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("stub server") });
        (endpoint, asked)
    }

    /// What Lambda hands a function, with `AWS_ENDPOINT_URL_SECRETS_MANAGER` at `endpoint`.
    fn lambda_environment(endpoint: &str) -> SdkConfig {
        let vars = [
            ("AWS_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint),
        ];
        crate::ports::aws::from_environment(
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        )
    }

    #[tokio::test]
    async fn the_endpoint_override_replaces_the_environments_endpoint() {
        let (endpoint, asked) = stub("from-the-override").await;
        // Nothing listens on port 1: only the override can answer.
        let sdk = lambda_environment("http://127.0.0.1:1");
        let value = secret_string(&sdk, Some(&endpoint), "blog-jwt-secret").await.unwrap();
        assert_eq!(value, "from-the-override");
        let expected = ("secretsmanager.GetSecretValue".into(), "blog-jwt-secret".into());
        assert_eq!(*asked.lock().unwrap(), [expected]);
    }

    #[tokio::test]
    async fn without_an_override_the_environments_endpoint_is_used() {
        let (endpoint, asked) = stub("from-the-environment").await;
        let sdk = lambda_environment(&endpoint);
        let value = secret_string(&sdk, None, "blog-admin-password").await.unwrap();
        assert_eq!(value, "from-the-environment");
        let expected = ("secretsmanager.GetSecretValue".into(), "blog-admin-password".into());
        assert_eq!(*asked.lock().unwrap(), [expected]);
    }
}
