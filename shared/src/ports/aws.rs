//! Shared AWS configuration for every SDK client the adapters build.

use aws_config::{
    environment::{EnvironmentVariableCredentialsProvider, EnvironmentVariableRegionProvider},
    BehaviorVersion, SdkConfig,
};
use tokio::sync::OnceCell;

/// The AWS configuration of this process, loaded once (at cold start) and shared by every
/// client: all of them then share one HTTP client and its connection pool.
///
/// Honours the usual environment: `AWS_REGION`, `AWS_ENDPOINT_URL` (and the service-specific
/// `AWS_ENDPOINT_URL_<SERVICE>`), credentials, profile files. Inside Lambda the region and
/// the execution role's credentials are always in the environment, so only the environment is
/// read: the default chain (profile files, SSO, web identity with its STS client, the container
/// and instance metadata endpoints) would only cost cold-start time there.
pub async fn sdk_config() -> SdkConfig {
    static CONFIG: OnceCell<SdkConfig> = OnceCell::const_new();
    CONFIG.get_or_init(load).await.clone()
}

async fn load() -> SdkConfig {
    let loader = aws_config::defaults(BehaviorVersion::latest());
    let loader = if in_lambda() {
        loader
            .region(EnvironmentVariableRegionProvider::new())
            .credentials_provider(EnvironmentVariableCredentialsProvider::new())
    } else {
        loader
    };
    loader.load().await
}

/// Whether this process is a Lambda function: only there is the Runtime API's address set.
fn in_lambda() -> bool {
    std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some()
}
