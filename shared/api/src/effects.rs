//! What one feature's change causes in another, wired here, where the features are composed:
//! the feature that changes declares what it needs (a trait and a handle it takes when its
//! router or loop starts), and the implementations below call the feature that follows.
//! [`wire`] gives a context every one of them (the local gateway); a function takes only those
//! its areas need ([`crate::api::Function::effects`]), so its binary links only the features
//! it serves.

#[cfg(feature = "articles")]
use async_trait::async_trait;

#[cfg(feature = "comments")]
use crate::articles::{AuthorEffects, AuthorRename, WhenAnAuthorIsRenamed};
use crate::context::AppContext;
#[cfg(feature = "articles")]
use crate::{
    articles,
    ports::table::Table,
    taxonomy::{TagLabel, TaxonomyEffects, WhenTaxonomyChanges},
};

/// `ctx` with every cross-feature effect: the articles follow their categories and tags, the
/// comments follow their authors' renames.
#[cfg(feature = "all-areas")]
pub fn wire(ctx: AppContext) -> AppContext {
    authors(taxonomy(ctx))
}

/// `ctx` as it is: the areas of a function that cause nothing in another feature.
pub fn none(ctx: AppContext) -> AppContext {
    ctx
}

/// `ctx` with the effects of taxonomy changes (the categories and tags areas).
#[cfg(feature = "articles")]
pub fn taxonomy(ctx: AppContext) -> AppContext {
    ctx.with_effect(TaxonomyEffects::new(ArticlesShowTheirCategoryAndTags))
}

/// `ctx` with the effects of an author's rename (the worker).
#[cfg(feature = "comments")]
pub fn authors(ctx: AppContext) -> AppContext {
    ctx.with_effect(AuthorEffects::new(CommentsShowTheirAuthorsNewName))
}

/// When a category is renamed, or a tag renamed, re-slugged or recoloured, the denormalised
/// names in its articles are rewritten; when a tag is deleted, it is first removed from every
/// article carrying it (each article in its own transaction, its version raised).
#[cfg(feature = "articles")]
struct ArticlesShowTheirCategoryAndTags;

#[cfg(feature = "articles")]
#[async_trait]
impl WhenTaxonomyChanges for ArticlesShowTheirCategoryAndTags {
    async fn category_renamed(
        &self,
        table: &dyn Table,
        category_id: u64,
        name: &str,
    ) -> anyhow::Result<()> {
        Ok(articles::maintenance::refresh_category(table, category_id, name).await?)
    }

    async fn tag_changed(&self, table: &dyn Table, tag: &TagLabel) -> anyhow::Result<()> {
        Ok(articles::maintenance::refresh_tag(table, tag).await?)
    }

    async fn tag_removed(&self, table: &dyn Table, tag_id: u64) -> anyhow::Result<()> {
        Ok(articles::maintenance::detach_tag(table, tag_id).await?)
    }
}

/// When an author changes their nickname or avatar, their comments and the replies to them
/// show the new ones (after the articles' heads, in the worker).
#[cfg(feature = "comments")]
struct CommentsShowTheirAuthorsNewName;

#[cfg(feature = "comments")]
#[async_trait]
impl WhenAnAuthorIsRenamed for CommentsShowTheirAuthorsNewName {
    async fn author_renamed(&self, table: &dyn Table, rename: &AuthorRename) -> anyhow::Result<()> {
        crate::comments::show_renamed_author(table, rename).await
    }
}
