//! Pages of the administration's lists: the articles' [`Paging`] (the article list's page
//! object), cut from the items read, newest first; and the lists' id filters.

use blog_core::http::extract::parse_id;

use blog_core::http::ApiError;

use crate::envelope::CommentError;

/// A page of a list: the article list's page object.
pub use blog_articles::{Page as Paged, Paging};

/// An optional id filter.
pub fn id_filter(name: &str, raw: Option<&str>) -> Result<Option<u64>, CommentError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => parse_id(raw)
            .map(Some)
            .ok_or_else(|| CommentError::invalid(format!("{name} must be a positive integer id"))),
    }
}
