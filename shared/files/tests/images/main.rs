//! The image core of uploads (`blog_files::images`): what `inspect` reads and refuses, what
//! `variants` makes, what the worker makes of a public image (`blog_files::variants::make`), and
//! the measurement `make bench-images` runs.

mod inspect;
mod measure;
mod support;
mod variants;
mod worker;
