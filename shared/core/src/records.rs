//! Conversions between typed records and table items, shared by every repository.

use serde::{de::DeserializeOwned, Serialize};

use crate::ports::table::{
    s, AttributeValue, Condition, Item, Key, Query, Table, TableError, Update, PK, SK,
};

/// An item holding only a key.
pub fn key_item(key: &Key) -> Item {
    let mut item = Item::default();
    item.insert(PK.into(), s(&key.pk));
    item.insert(SK.into(), s(&key.sk));
    item
}

/// A record as an item stored under `key`.
pub fn to_item<T: Serialize>(record: &T, key: &Key) -> Result<Item, TableError> {
    let mut item: Item = serde_dynamo::to_item(record)
        .map_err(|e| TableError::Invalid(format!("record for {key}: {e}")))?;
    item.insert(PK.into(), s(&key.pk));
    item.insert(SK.into(), s(&key.sk));
    Ok(item)
}

/// A record read back from an item (key and unknown attributes ignored).
pub fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, TableError> {
    let key = Key::of(&item).map(|k| k.to_string()).unwrap_or_default();
    serde_dynamo::from_item(item).map_err(|e| TableError::Invalid(format!("record {key}: {e}")))
}

/// A numeric attribute, when present and numeric.
pub fn number(item: &Item, attribute: &str) -> Option<i64> {
    match item.get(attribute) {
        Some(AttributeValue::N(value)) => value.parse().ok(),
        _ => None,
    }
}

/// Every item of a query, following continuation keys (one call unless the result exceeds a
/// page of the store).
pub async fn query_all(table: &dyn Table, mut query: Query) -> Result<Vec<Item>, TableError> {
    let mut items = Vec::new();
    loop {
        let page = table.query(query.clone()).await?;
        items.extend(page.items);
        match page.next {
            Some(next) => query.start_after = Some(next),
            None => return Ok(items),
        }
    }
}

/// Applies `update` to the item at `key` when its `stamp` attribute (epoch milliseconds) is
/// older than `at`, or absent (an item written before it carried one); an absent item is
/// left absent. Whether it applied: a change stamped `at` therefore lands at most once, and
/// never over a newer one, whatever order the changes arrive in.
pub async fn update_if_older(
    table: &dyn Table,
    key: &Key,
    update: Update,
    stamp: &str,
    at: i64,
) -> Result<bool, TableError> {
    let update = update.set(stamp, crate::ports::table::n(at));
    let older = Condition::LessThan(stamp.into(), at);
    match table.update(key, update.clone(), Some(older)).await {
        Ok(_) => return Ok(true),
        Err(TableError::ConditionFailed) => {}
        Err(other) => return Err(other),
    }
    match table.update(key, update, Some(Condition::LacksAttribute(stamp.into()))).await {
        Ok(_) => Ok(true),
        Err(TableError::ConditionFailed) => Ok(false),
        Err(other) => Err(other),
    }
}
