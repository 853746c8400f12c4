//! The rows of the embedded table: an item's DynamoDB JSON read back (decoded, or left to the
//! connection's cache), and written with its key, TTL and index columns, or removed.

use rusqlite::{params, Connection};

use super::{db, expr::invalid, is_expired, AttributeValue, Index, Item, Key, TableError, TTL};

pub(super) fn decode(json: &str) -> Result<Item, TableError> {
    serde_json::from_str(json)
        .map_err(|e| TableError::Backend(anyhow::anyhow!("corrupt item: {e}")))
}

/// Column `i` of a row, as text.
pub(super) fn text<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r str, TableError> {
    row.get_ref(i).map_err(db)?.as_str().map_err(|e| db(e.into()))
}

/// The stored item of `key`, expired or not, as `decode` makes it of the stored text.
pub(super) fn load(
    conn: &Connection,
    key: &Key,
    decode: impl FnOnce(&str) -> Result<Item, TableError>,
) -> Result<Option<Item>, TableError> {
    let mut stmt =
        conn.prepare_cached("SELECT item FROM items WHERE pk = ?1 AND sk = ?2").map_err(db)?;
    let mut rows = stmt.query(params![key.pk, key.sk]).map_err(db)?;
    match rows.next().map_err(db)? {
        Some(row) => decode(text(row, 0)?).map(Some),
        None => Ok(None),
    }
}

/// The item unless it has expired.
pub(super) fn live(item: Option<Item>, now: i64) -> Option<Item> {
    item.filter(|item| !is_expired(item, now))
}

/// Writes `item` (validated) with its TTL and index columns.
pub(super) fn store(conn: &Connection, key: &Key, item: &Item) -> Result<(), TableError> {
    let mut index = Vec::with_capacity(6);
    for idx in Index::SECONDARY {
        let (p, s) = idx.key_attributes();
        let value = |attr: &str| match item.get(attr) {
            None => Ok(None),
            Some(AttributeValue::S(v)) if !v.is_empty() => Ok(Some(v.clone())),
            Some(_) => Err(invalid(format!("index key {attr} must be a non-empty string"))),
        };
        let (p, s) = (value(p)?, value(s)?);
        let both = p.is_some() && s.is_some();
        index.extend([p.filter(|_| both), s.filter(|_| both)]);
    }
    let expires_at = match item.get(TTL) {
        Some(AttributeValue::N(n)) => n.parse::<f64>().ok().map(|t| t as i64),
        _ => None,
    };
    let json = serde_json::to_string(item).map_err(|e| TableError::Backend(e.into()))?;
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO items
                 (pk, sk, item, expires_at, gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .map_err(db)?;
    let i = &index;
    stmt.execute(params![key.pk, key.sk, json, expires_at, i[0], i[1], i[2], i[3], i[4], i[5]])
        .map_err(db)?;
    Ok(())
}

pub(super) fn remove(conn: &Connection, key: &Key) -> Result<(), TableError> {
    let mut stmt =
        conn.prepare_cached("DELETE FROM items WHERE pk = ?1 AND sk = ?2").map_err(db)?;
    stmt.execute(params![key.pk, key.sk]).map_err(db)?;
    Ok(())
}
