//! The blog backend: features (one module each, owning its router, handlers, types and storage
//! access), the ports they use and the adapters behind those ports, and the composition that
//! the Lambda functions and the local gateway share.

pub mod access;
pub mod api;
pub mod area;
pub mod articles;
pub mod auth;
pub mod codes;
pub mod comments;
pub mod config;
pub mod context;
pub mod feeds;
pub mod files;
pub mod http;
pub mod ids;
pub mod index_migration;
#[cfg(feature = "lambda")]
pub mod lambda;
pub mod openapi;
pub mod ops;
pub mod ports;
pub mod private_files;
pub mod records;
pub mod setup;
pub mod taxonomy;
pub mod telemetry;
pub mod time;
pub mod users;
pub mod whole_body;
