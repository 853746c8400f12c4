//! What the worker hands over to comments: an author's rename.

pub mod renames;
