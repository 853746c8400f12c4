//! The API as it is deployed: which function serves which areas ([`api`]), the process setup
//! shared by the Lambda functions and the local gateway ([`setup`], [`lambda`]), the
//! cross-feature effects ([`effects`]), the OpenAPI
//! document ([`openapi`]) and the one-off moves of stored items ([`index_migration`]). The
//! features and the core are re-exported under their module names.

//!
//! Each area is a feature of this crate (`auth`, `articles`, ...; `all-areas`, the default,
//! has every one): a function's crate enables the areas it serves and depends on no other
//! feature crate.

pub mod api;
pub mod effects;
#[cfg(feature = "all-areas")]
pub mod index_migration;
#[cfg(feature = "lambda")]
pub mod lambda;
#[cfg(feature = "all-areas")]
pub mod openapi;
pub mod setup;
#[cfg(all(feature = "articles", feature = "files"))]
pub mod worker;

#[cfg(feature = "articles")]
pub use blog_articles as articles;
#[cfg(feature = "auth")]
pub use blog_auth as auth;
#[cfg(feature = "comments")]
pub use blog_comments as comments;
pub use blog_core::{
    access, area, codes, config, context, http, ids, ports, private_files, records, telemetry,
    time, whole_body,
};
#[cfg(feature = "feeds")]
pub use blog_feeds as feeds;
#[cfg(feature = "files")]
pub use blog_files as files;
#[cfg(feature = "ops")]
pub use blog_ops as ops;
#[cfg(feature = "taxonomy")]
pub use blog_taxonomy as taxonomy;
#[cfg(feature = "users")]
pub use blog_users as users;
