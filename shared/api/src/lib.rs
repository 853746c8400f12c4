//! The API as it is deployed: which function serves which areas ([`api`]), the process setup
//! shared by the Lambda functions and the local gateway ([`setup`], [`lambda`]), the
//! cross-feature effects ([`effects`]), the OpenAPI
//! document ([`openapi`]) and the one-off moves of stored items ([`index_migration`]). The
//! features and the core are re-exported under their module names.

pub mod api;
pub mod effects;
pub mod index_migration;
#[cfg(feature = "lambda")]
pub mod lambda;
pub mod openapi;
pub mod setup;

pub use blog_articles as articles;
pub use blog_auth as auth;
pub use blog_comments as comments;
pub use blog_core::{
    access, area, codes, config, context, http, ids, ports, private_files, records, telemetry,
    time, whole_body,
};
pub use blog_feeds as feeds;
pub use blog_files as files;
pub use blog_ops as ops;
pub use blog_taxonomy as taxonomy;
pub use blog_users as users;
