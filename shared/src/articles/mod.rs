//! Articles: the admin lifecycle, the content pipeline and the public reads.

pub mod content;
