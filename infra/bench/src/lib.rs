//! Benchmarks of the blog backend, each writing its section of docs/performance.md (`make
//! bench` runs them all):
//!
//! - `capacity`: DynamoDB calls and capacity, SQS sends and embeddings per endpoint;
//! - `coldstart`: cold start, peak memory and size of every Lambda function's release
//!   `bootstrap`, against a hello-world lambda_http function;
//! - `loadtest`: throughput and latency of the release local gateway under oha, against a
//!   hello-world axum server;
//! - `benches/handlers.rs` (criterion): in-process latency of the handlers per endpoint.

pub mod coldstart;
pub mod comments;
pub mod corpus;
pub mod doc;
pub mod harness;
pub mod load;
pub mod measure;
pub mod meters;
pub mod pipeline;
pub mod report;
pub mod seed;
