//! The stack as template.yaml deploys it, on one machine and without Docker or an AWS account.
//!
//! Everything comes from the template at start: the resources are created on the emulators
//! (DynamoDB Local; moto for SQS and Secrets Manager; s3s-fs for S3; a Bedrock stub), each
//! function runs as its own process from its own build, under cargo-lambda's Lambda Runtime API
//! emulator, with the environment the template gives it (Globals merged, parameters resolved)
//! plus what Lambda itself sets; an HTTP front routes requests by the template's routes and
//! CORS configuration as API Gateway's HTTP API does; the queue's event source mapping and the
//! schedules invoke the functions as Lambda and EventBridge Scheduler do. Every AWS call a
//! function makes passes its own endpoint, which records the IAM actions it needs; the
//! [`iam`] check holds them against the function's policies in the template.

pub mod actions;
pub mod bedrock;
pub mod clients;
pub mod cors;
pub mod distribution;
pub mod existing;
pub mod forward;
pub mod front;
pub mod functions;
pub mod iam;
pub mod invoke;
pub mod invoke_api;
pub mod logs;
pub mod mapping;
pub mod payload;
pub mod pickup;
pub mod provision;
pub mod proxy;
pub mod recorder;
pub mod relay;
pub mod render;
pub mod report;
pub mod routes;
pub mod runtime_api;
pub mod schedule;
pub mod serving;
mod stack;
pub mod template;
pub mod testing;

/// The value behind `mutex`, also after a panic while it was held (the stack's state stays
/// usable for the rest of a test).
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub use stack::{key_prefix, symbolic, Finding, Row, Stack, StackOptions};
