//! Unique slugs of categories and tags: one marker item per slug, claimed with
//! `attribute_not_exists` in the same transaction as the entity, so two entities never share one.

use blog_core::{
    ports::table::{n, refused_by, Condition, Key, Table, TableError, Transaction, Write},
    records::{key_item, number},
};

/// The slug markers of one kind of entity.
pub struct SlugMarkers {
    /// Partition prefix and sort key of the markers (`CATSLUG`, `TAGSLUG`).
    pub kind: &'static str,
    /// Attribute holding the owner's id.
    pub owner_attribute: &'static str,
}

/// How a transaction that claims or releases slugs ended.
pub enum Committed {
    /// Every write landed.
    Done,
    /// The slug claimed at the given position belongs to another entity.
    SlugTaken,
    /// Another condition of the transaction failed.
    Refused,
}

impl SlugMarkers {
    fn key(&self, slug: &str) -> Key {
        Key::new(format!("{}#{slug}", self.kind), self.kind)
    }

    /// The write that claims `slug` for `owner` (fails when it is taken).
    pub fn claim(&self, slug: &str, owner: u64) -> Write {
        let mut item = key_item(&self.key(slug));
        item.insert(self.owner_attribute.into(), n(owner as i64));
        Write::Put { item, condition: Some(Condition::NotExists) }
    }

    /// The write that frees `slug`.
    pub fn release(&self, slug: &str) -> Write {
        Write::Delete { key: self.key(slug), condition: None }
    }

    /// The id of the entity holding `slug` (one GetItem).
    pub async fn owner(&self, table: &dyn Table, slug: &str) -> Result<Option<u64>, TableError> {
        let marker = table.get(&self.key(slug)).await?;
        Ok(marker.and_then(|m| number(&m, self.owner_attribute)).map(|id| id as u64))
    }
}

/// The name of the write that claims a slug in a taxonomy transaction.
pub const CLAIM: &str = "slug claim";

/// Commits `writes`; a refused [`CLAIM`] is [`Committed::SlugTaken`].
pub async fn commit(table: &dyn Table, writes: Transaction) -> Result<Committed, TableError> {
    match writes.commit(table).await {
        Ok(()) => Ok(Committed::Done),
        Err(error) if refused_by(&error, CLAIM) => Ok(Committed::SlugTaken),
        Err(TableError::Refused { .. }) => Ok(Committed::Refused),
        Err(other) => Err(other),
    }
}
