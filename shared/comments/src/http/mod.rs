//! The handlers of the public, likes, reports and administration areas, their inputs, answers
//! and envelope, and the write paths they run.

pub mod admin;
pub mod caller;
pub mod detail;
pub mod edit;
pub mod envelope;
pub mod likes;
pub mod paging;
pub mod post;
pub mod public;
pub mod reports;
