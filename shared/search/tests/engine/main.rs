//! The search engine's behaviour, through its public API.

mod bundle;
mod changes;
mod cjk;
mod highlights;
mod measure;
mod pages;
mod ranking;
mod support;
mod vectors;
mod words;
