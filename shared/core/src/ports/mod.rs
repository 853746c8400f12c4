//! Ports (what features need from the outside world) beside their adapters.
//! Ports know nothing of features; features reach AWS only through them.

#[cfg(feature = "aws")]
pub mod aws;
pub mod blobs;
pub mod embedder;
pub mod events;
#[cfg(feature = "secrets")]
pub mod secrets;
pub mod table;
pub mod tally;
