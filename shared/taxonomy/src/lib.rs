//! Categories and tags: public reads, administration, and what the articles and feeds features
//! use of them, all exported here at the root: the counters articles change inside their own
//! transactions, the listing partitions, lookups that decode the records for them
//! ([`category_name`], [`tag_labels`], [`published_count`], the slug lookups of the articles
//! of a tag or category and of the feeds, the slug lists of the sitemap), and what their
//! changes cause in the articles ([`WhenTaxonomyChanges`], wired where the features are
//! composed).

pub mod categories;
mod effects;
pub mod envelope;
mod fields;
mod lookups;
mod slugs;
pub mod tags;

/// The state of the categories and tags areas: the context and the effects of their changes.
pub type TaxonomyState = blog_core::area::WithPort<TaxonomyEffects>;

pub use effects::{TaxonomyEffects, WhenTaxonomyChanges};
pub use lookups::{
    category_id_by_slug, category_listing_head, category_name, category_slugs, published_count,
    tag_id_by_slug, tag_labels, tag_listing_head, tag_name, tag_slugs, TagLabel,
};

use blog_core::ports::table::{s, Condition, Index, Item, Key, TableError, Update, Write};

/// gsi1 partition of a category's published articles (listing items written by the articles
/// feature, sorted `<isTop>#<publishTime>#<id16>`).
pub fn category_listing(category_id: u64) -> String {
    format!("PUBCAT#{category_id}")
}

/// gsi1 partition of a tag's published articles.
pub fn tag_listing(tag_id: u64) -> String {
    format!("PUBTAG#{tag_id}")
}

/// gsi1 sort key of a category or tag item in its own listing partition: above every listing
/// key, so a descending listing Query reads the item (and its `articleCount`) first, with the
/// page, instead of in a further call.
pub const LISTING_HEAD: &str = "~";

/// The item of a new category or tag, placed at the head of its listing partition.
fn listed_item<T: serde::Serialize>(
    record: &T,
    key: &Key,
    listing: String,
) -> Result<Item, TableError> {
    let mut item = blog_core::records::to_item(record, key)?;
    let (pk, sk) = Index::Gsi1.key_attributes();
    item.insert(pk.into(), s(listing));
    item.insert(sk.into(), s(LISTING_HEAD));
    Ok(item)
}

/// The write that moves a category's counters with an article change: `published` moves
/// `articleCount` (PUBLISHED, non-deleted articles), `referenced` moves `refCount` (non-deleted
/// articles of any status, which keep the category from being deleted). Fails the transaction
/// when the category does not exist.
pub fn category_count_write(category_id: u64, published: i64, referenced: i64) -> Write {
    count_write(categories::repo::category_key(category_id), published, referenced)
}

/// The same for a tag.
pub fn tag_count_write(tag_id: u64, published: i64, referenced: i64) -> Write {
    count_write(tags::repo::tag_key(tag_id), published, referenced)
}

fn count_write(key: Key, published: i64, referenced: i64) -> Write {
    Write::Update {
        key,
        update: Update::new().add("articleCount", published).add("refCount", referenced),
        condition: Some(Condition::Exists),
    }
}
