//! Categories and tags: public reads, administration, and the article counters that the
//! articles feature changes inside its own transactions.

pub mod categories;
mod fields;
mod slugs;
pub mod tags;

use crate::ports::table::{Condition, Key, Update, Write};

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
