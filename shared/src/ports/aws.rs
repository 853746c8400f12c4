//! Shared AWS configuration for every SDK client the adapters build.

use aws_config::{BehaviorVersion, SdkConfig};

/// Loads the default AWS configuration chain with the latest behavior version.
///
/// Honours the usual environment: `AWS_REGION`, `AWS_ENDPOINT_URL` (and the service-specific
/// `AWS_ENDPOINT_URL_<SERVICE>`), credentials from the environment, profile files, the Lambda
/// execution role, etc. Call it once at cold start and build every client from the result.
pub async fn sdk_config() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest()).load().await
}
