//! What a change of a category or a tag causes beyond the taxonomy: the articles that show them
//! are rewritten. Taxonomy declares what it needs ([`WhenTaxonomyChanges`]) and calls it before
//! the answer is sent; the implementation is wired where the features are composed (taxonomy
//! knows no article).

use std::sync::Arc;

use async_trait::async_trait;
use blog_core::{area::Port, context::AppContext, ports::table::Table};

use crate::TagLabel;

/// What follows a change of a category or a tag elsewhere.
#[async_trait]
pub trait WhenTaxonomyChanges: Send + Sync {
    /// Category `category_id` was renamed to `name`.
    async fn category_renamed(
        &self,
        table: &dyn Table,
        category_id: u64,
        name: &str,
    ) -> anyhow::Result<()>;

    /// A tag's name, slug or colour changed.
    async fn tag_changed(&self, table: &dyn Table, tag: &TagLabel) -> anyhow::Result<()>;

    /// Tag `tag_id` is about to be deleted.
    async fn tag_removed(&self, table: &dyn Table, tag_id: u64) -> anyhow::Result<()>;
}

/// The effects of taxonomy changes a process was wired with
/// ([`AppContext::with_effect`]), taken by the categories and tags areas when they start.
#[derive(Clone)]
pub struct TaxonomyEffects(Arc<dyn WhenTaxonomyChanges>);

impl TaxonomyEffects {
    /// The effects `what_follows` carries out.
    pub fn new(what_follows: impl WhenTaxonomyChanges + 'static) -> Self {
        Self(Arc::new(what_follows))
    }
}

impl std::ops::Deref for TaxonomyEffects {
    type Target = dyn WhenTaxonomyChanges;

    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}

impl Port for TaxonomyEffects {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        ctx.require_effect()
    }
}
