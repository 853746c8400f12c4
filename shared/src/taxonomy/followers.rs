//! How a change of a category or tag reaches the articles that show it. Taxonomy declares what
//! it needs here and calls it; the articles feature implements it for the application context
//! (articles uses taxonomy, never the reverse). The articles follow before the answer is sent.

use std::future::Future;

use super::TagLabel;

/// The articles that show categories and tags, kept in step with them.
pub trait Followers {
    /// Shows category `category_id`'s new `name` in its articles.
    fn category_renamed(
        &self,
        category_id: u64,
        name: &str,
    ) -> impl Future<Output = anyhow::Result<()>> + Send;

    /// Shows a tag's new name, slug and colour in its articles.
    fn tag_changed(&self, tag: &TagLabel) -> impl Future<Output = anyhow::Result<()>> + Send;

    /// Removes tag `tag_id` from every article carrying it.
    fn tag_removed(&self, tag_id: u64) -> impl Future<Output = anyhow::Result<()>> + Send;
}
