//! The test side of the S3 adapter (feature `test-support`): a client and buckets on an
//! S3-compatible emulator (the production bucket comes from the CloudFormation template).

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::Client;

use super::{sdk_error, S3Blobs};

impl S3Blobs {
    /// An S3 client for the server at `endpoint` with static test credentials (`test`/`test`,
    /// region us-east-1, path-style addressing).
    pub fn test_client(endpoint: &str) -> Client {
        let credentials = Credentials::new("test", "test", None, None, "blog-tests");
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials)
            .endpoint_url(endpoint)
            .force_path_style(true)
            .build();
        Client::from_conf(config)
    }

    /// Creates `bucket` on the server behind `client` (an existing one is reused) and returns
    /// an adapter for it. For emulators and tests: the production bucket comes from the template.
    pub async fn create_bucket(client: &Client, bucket: &str) -> anyhow::Result<Self> {
        match client.create_bucket().bucket(bucket).send().await {
            Ok(_) => {}
            Err(e)
                if e.as_service_error().is_some_and(|e| {
                    e.is_bucket_already_owned_by_you() || e.is_bucket_already_exists()
                }) => {}
            Err(e) => return Err(sdk_error("CreateBucket", bucket, e)),
        }
        Ok(Self::new(client.clone(), bucket))
    }
}
