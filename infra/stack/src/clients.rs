//! The emulators and the SDK clients the stack itself uses on them (to create the resources,
//! to poll the queues as Lambda's event source mapping does, and for the tests to look under
//! the hood). They accept the static credentials `test`/`test` in us-east-1.

use anyhow::{Context, Result};
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

/// Base URLs of the emulators.
#[derive(Clone, Debug)]
pub struct Emulators {
    /// DynamoDB Local.
    pub dynamodb: String,
    /// moto in server mode (SQS, Secrets Manager).
    pub moto: String,
    /// s3s-fs.
    pub s3: String,
}

impl Emulators {
    /// The emulators `infra/emulators/with-emulators.sh` started (its `BLOG_TEST_*_ENDPOINT`
    /// variables).
    pub fn from_env() -> Result<Self> {
        let var = |name: &str| {
            std::env::var(name).with_context(|| {
                format!("{name} is not set: run under infra/emulators/with-emulators.sh")
            })
        };
        Ok(Self {
            dynamodb: var("BLOG_TEST_DYNAMODB_ENDPOINT")?,
            moto: var("BLOG_TEST_SQS_ENDPOINT")?,
            s3: var("BLOG_TEST_S3_ENDPOINT")?,
        })
    }
}

/// SDK clients on the emulators.
#[derive(Clone, Debug)]
pub struct Clients {
    /// DynamoDB Local.
    pub dynamodb: aws_sdk_dynamodb::Client,
    /// SQS on moto.
    pub sqs: aws_sdk_sqs::Client,
    /// Secrets Manager on moto.
    pub secrets: aws_sdk_secretsmanager::Client,
    /// S3 on s3s-fs (path-style addressing).
    pub s3: aws_sdk_s3::Client,
}

/// The credentials every emulator accepts.
pub fn credentials() -> Credentials {
    Credentials::new("test", "test", None, None, "blog-stack")
}

impl Clients {
    /// Clients of `emulators`.
    pub fn new(emulators: &Emulators) -> Self {
        let region = Region::new(crate::template::intrinsics::REGION);
        let latest = BehaviorVersion::latest();
        let dynamodb = aws_sdk_dynamodb::Config::builder()
            .behavior_version(latest)
            .region(region.clone())
            .credentials_provider(credentials())
            .endpoint_url(&emulators.dynamodb)
            .build();
        let sqs = aws_sdk_sqs::Config::builder()
            .behavior_version(latest)
            .region(region.clone())
            .credentials_provider(credentials())
            .endpoint_url(&emulators.moto)
            .build();
        let secrets = aws_sdk_secretsmanager::Config::builder()
            .behavior_version(latest)
            .region(region.clone())
            .credentials_provider(credentials())
            .endpoint_url(&emulators.moto)
            .build();
        let s3 = aws_sdk_s3::Config::builder()
            .behavior_version(latest)
            .region(region)
            .credentials_provider(credentials())
            .endpoint_url(&emulators.s3)
            .force_path_style(true)
            .build();
        Self {
            dynamodb: aws_sdk_dynamodb::Client::from_conf(dynamodb),
            sqs: aws_sdk_sqs::Client::from_conf(sqs),
            secrets: aws_sdk_secretsmanager::Client::from_conf(secrets),
            s3: aws_sdk_s3::Client::from_conf(s3),
        }
    }
}
