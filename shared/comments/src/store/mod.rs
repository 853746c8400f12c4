//! Storage of comments: keys, records, the thread and root entries, the bounded read of the
//! tree's pages, the rate windows, and the one-off move of the earlier layout.

pub mod keys;
pub mod model;
pub mod pages;
pub mod rate;
pub mod relayout;
pub mod repo;
pub mod roots;
pub mod thread;
pub mod tree;
