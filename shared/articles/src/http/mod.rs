//! The handlers of the public and the admin areas, their inputs, answers and envelope, and the
//! write paths they run.

pub mod admin;
pub mod admin_reads;
pub mod compose;
pub mod envelope;
pub mod input;
pub mod lifecycle;
pub mod paging;
pub mod preview;
pub mod public;
pub mod response;
pub mod revisions;
pub mod search;
pub mod update;
