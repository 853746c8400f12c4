//! blog-api's integration tests in one binary (one link of the AWS SDK instead of one per
//! file). None of them sets this process's environment, installs a global subscriber or loads
//! the process-wide SDK configuration (`ports::aws::sdk_config`); the two that do set
//! `AWS_*` variables for it, `admin_bootstrap` and `secrets_moto`, are binaries of their own.

mod aws_tls;
mod blobs_objects;
mod blobs_s3;
mod content_props;
mod content_xss;
mod crate_edges;
mod embedded_changes;
mod embedded_migration;
mod embedder_bedrock;
mod endpoints;
mod events_sqs;
mod function_context;
mod lambda_admin_bootstrap;
mod lambda_events;
mod openapi;
mod table_contract;
mod table_indexes;
mod template;
mod trust_roots;
mod xss;
