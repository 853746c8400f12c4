//! Shared AWS configuration for every SDK client the adapters build.

use std::borrow::Cow;

use aws_credential_types::{
    provider::{self, error::CredentialsError, ProvideCredentials, SharedCredentialsProvider},
    Credentials,
};
use aws_smithy_runtime_api::client::behavior_version::BehaviorVersion;
use aws_types::{
    region::Region,
    service_config::{LoadServiceConfig, ServiceConfigKey},
};
use tokio::sync::OnceCell;

pub use aws_types::SdkConfig;

/// The AWS configuration of this process, loaded once (at cold start) and shared by every
/// client.
///
/// Inside Lambda the region and the execution role's credentials are always in the
/// environment, so only the environment is read ([`from_environment`]): the default chain
/// (profile files, SSO, web identity with its STS client, the container and instance metadata
/// endpoints) would only cost cold-start time and binary size there, and the function builds
/// leave it out. Elsewhere, with the `aws-chain` feature (the local gateway), the default
/// chain of `aws-config` applies, profiles and SSO included.
pub async fn sdk_config() -> SdkConfig {
    static CONFIG: OnceCell<SdkConfig> = OnceCell::const_new();
    CONFIG.get_or_init(load).await.clone()
}

async fn load() -> SdkConfig {
    #[cfg(feature = "aws-chain")]
    if !in_lambda() {
        return aws_config::defaults(BehaviorVersion::latest()).load().await;
    }
    from_environment(|name| std::env::var(name).ok())
}

/// Whether this process is a Lambda function: only there is the Runtime API's address set.
#[cfg(feature = "aws-chain")]
fn in_lambda() -> bool {
    std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some()
}

/// The configuration Lambda (and `sam local invoke`) hands a function in its environment, read
/// through `var`: the region (`AWS_REGION`, else `AWS_DEFAULT_REGION`), the credentials
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), and endpoint overrides
/// (`AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`). Retries and timeouts keep the SDK's
/// defaults.
pub fn from_environment(var: impl Fn(&str) -> Option<String>) -> SdkConfig {
    let var = |name: &str| var(name).filter(|value| !value.trim().is_empty());
    let region = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION"));
    let credentials = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
        (Some(key), Some(secret)) => {
            Ok(Credentials::new(key, secret, var("AWS_SESSION_TOKEN"), None, "Environment"))
        }
        _ => Err("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set"),
    };
    let endpoints = Endpoints {
        global: var("AWS_ENDPOINT_URL"),
        services: SERVICES
            .iter()
            .filter_map(|service| {
                var(&service_variable(service)).map(|url| (service.to_string(), url))
            })
            .collect(),
    };
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region.map(Region::new))
        .credentials_provider(SharedCredentialsProvider::new(EnvironmentCredentials(credentials)))
        .service_config(endpoints)
        .build()
}

/// The service ids of the clients this crate builds, as the SDK names them.
const SERVICES: [&str; 5] = ["DynamoDB", "SQS", "S3", "Bedrock Runtime", "Secrets Manager"];

/// `AWS_ENDPOINT_URL_<SERVICE>`: the service id in capitals, spaces as underscores.
fn service_variable(service_id: &str) -> String {
    format!("AWS_ENDPOINT_URL_{}", service_id.to_uppercase().replace(' ', "_"))
}

/// Endpoint overrides from the environment, the service-specific one first.
#[derive(Debug)]
struct Endpoints {
    global: Option<String>,
    services: Vec<(String, String)>,
}

impl LoadServiceConfig for Endpoints {
    fn load_config(&self, key: ServiceConfigKey<'_>) -> Option<String> {
        if key.env() != "AWS_ENDPOINT_URL" {
            return None;
        }
        self.services
            .iter()
            .find(|(service, _)| service == key.service_id())
            .map(|(_, url)| url.clone())
            .or_else(|| self.global.clone())
    }
}

/// The credentials read from the environment, or why there are none (reported on first use,
/// as the SDK's own environment provider does).
#[derive(Debug)]
struct EnvironmentCredentials(Result<Credentials, &'static str>);

impl ProvideCredentials for EnvironmentCredentials {
    fn provide_credentials<'a>(&'a self) -> provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        provider::future::ProvideCredentials::ready(
            self.0.clone().map_err(|why| CredentialsError::not_loaded(Cow::Borrowed(why))),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(vars: &[(&str, &str)]) -> SdkConfig {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        from_environment(|name| vars.get(name).cloned())
    }

    fn endpoint(config: &SdkConfig, service_id: &str) -> Option<String> {
        let key = ServiceConfigKey::builder()
            .service_id(service_id)
            .env("AWS_ENDPOINT_URL")
            .profile("endpoint_url")
            .build()
            .unwrap();
        config.service_config().unwrap().load_config(key)
    }

    #[tokio::test]
    async fn the_lambda_environment_gives_region_and_session_credentials() {
        let config = config(&[
            ("AWS_REGION", "eu-west-1"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_SESSION_TOKEN", "token"),
        ]);
        assert_eq!(config.region().map(|r| r.as_ref()), Some("eu-west-1"));
        let provider = config.credentials_provider().unwrap();
        let credentials = provider.provide_credentials().await.unwrap();
        assert_eq!(credentials.access_key_id(), "AKIDEXAMPLE");
        assert_eq!(credentials.secret_access_key(), "secret");
        assert_eq!(credentials.session_token(), Some("token"));
        assert_eq!(config.behavior_version(), Some(BehaviorVersion::latest()));
    }

    #[tokio::test]
    async fn missing_credentials_fail_on_use_with_the_variables_named() {
        let config = config(&[("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "A")]);
        assert_eq!(config.region().map(|r| r.as_ref()), Some("us-east-1"));
        let provider = config.credentials_provider().unwrap();
        let error = provider.provide_credentials().await.unwrap_err();
        assert!(format!("{error:?}").contains("AWS_SECRET_ACCESS_KEY"), "{error:?}");
    }

    #[test]
    fn a_service_endpoint_overrides_the_global_one_for_that_service_only() {
        let config = config(&[
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
            ("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:2"),
            ("AWS_ENDPOINT_URL_DYNAMODB", " "),
        ]);
        assert_eq!(endpoint(&config, "Secrets Manager").as_deref(), Some("http://127.0.0.1:2"));
        assert_eq!(endpoint(&config, "DynamoDB").as_deref(), Some("http://127.0.0.1:1"));
        assert_eq!(endpoint(&config, "SQS").as_deref(), Some("http://127.0.0.1:1"));
    }

    #[test]
    fn without_overrides_the_sdk_resolves_the_regional_endpoints() {
        let config = config(&[("AWS_REGION", "eu-west-1")]);
        assert_eq!(endpoint(&config, "DynamoDB"), None);
        assert_eq!(config.endpoint_url(), None);
    }
}
