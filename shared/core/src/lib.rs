//! What every feature builds on: ids and time, the configuration, the ports with their adapters,
//! the HTTP plumbing (the core error, extractors, caching, CORS), telemetry, the token keys, the
//! context every handler receives and the areas features export. It knows no feature.

pub mod access;
pub mod area;
pub mod codes;
pub mod config;
pub mod context;
pub mod http;
pub mod ids;
pub mod ports;
pub mod private_files;
pub mod records;
pub mod routes;
pub mod telemetry;
pub mod time;
pub mod whole_body;
