//! The embedded adapter's conditions, updates and key conditions: evaluated in Rust on the
//! stored items (conditions, updates) or rendered as SQL on the key and index columns (queries),
//! with DynamoDB's semantics.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use super::super::{
    s, AttributeValue, Condition, Index, Item, Key, Query, Scan, SortKey, TableError, Update, PK,
    SK,
};

pub(super) fn invalid(message: impl Into<String>) -> TableError {
    TableError::Invalid(message.into())
}

/// Rejects updates that touch the key or name one attribute twice (as DynamoDB does).
pub(super) fn check_update(update: &Update) -> Result<(), TableError> {
    let names = update
        .set
        .iter()
        .map(|(a, _)| a)
        .chain(&update.remove)
        .chain(update.add.iter().map(|(a, _)| a));
    let mut seen = HashSet::new();
    for name in names {
        if name == PK || name == SK {
            return Err(invalid(format!("an update cannot change the key attribute {name}")));
        }
        if !seen.insert(name) {
            return Err(invalid(format!("an update names {name} twice")));
        }
    }
    Ok(())
}

/// The item after `update`, starting from the stored item (even expired) or from the key.
pub(super) fn apply(stored: Option<Item>, key: &Key, update: &Update) -> Result<Item, TableError> {
    let mut item = stored.unwrap_or_else(|| {
        Item::from(HashMap::from([(PK.to_string(), s(&key.pk)), (SK.to_string(), s(&key.sk))]))
    });
    for (name, value) in &update.set {
        item.insert(name.clone(), value.clone());
    }
    for name in &update.remove {
        item.remove(name);
    }
    for (name, delta) in &update.add {
        let sum = match item.get(name) {
            None => delta.to_string(),
            Some(AttributeValue::N(n)) => add(n, *delta)
                .ok_or_else(|| invalid(format!("cannot add {delta} to {name} = {n}")))?,
            Some(_) => return Err(invalid(format!("cannot add to the non-number {name}"))),
        };
        item.insert(name.clone(), AttributeValue::N(sum));
    }
    Ok(item)
}

/// Whether the optional condition holds on the current (unexpired) item.
pub(super) fn holds(condition: Option<&Condition>, item: Option<&Item>) -> bool {
    let Some(condition) = condition else {
        return true;
    };
    match (condition, item) {
        (Condition::NotExists, item) => item.is_none(),
        (Condition::All(all), item) => all.iter().all(|c| holds(Some(c), item)),
        (_, None) => false,
        (Condition::Exists, Some(_)) => true,
        (Condition::Equals(name, value), Some(item)) => {
            item.get(name).is_some_and(|v| same(v, value))
        }
        (Condition::NotEquals(name, value), Some(item)) => {
            item.get(name).is_none_or(|v| !same(v, value))
        }
        (Condition::HasAttribute(name), Some(item)) => item.contains_key(name),
        (Condition::LacksAttribute(name), Some(item)) => !item.contains_key(name),
        (Condition::LessThan(name, bound), Some(item)) => {
            numeric(item, name, *bound, Ordering::Less)
        }
        (Condition::GreaterThan(name, bound), Some(item)) => {
            numeric(item, name, *bound, Ordering::Greater)
        }
    }
}

/// Whether the attribute is a number that compares to `bound` as `wanted` (false when it is
/// missing or not a number, as in DynamoDB).
fn numeric(item: &Item, name: &str, bound: i64, wanted: Ordering) -> bool {
    match item.get(name) {
        Some(AttributeValue::N(n)) => compare(n, &bound.to_string()) == Some(wanted),
        _ => false,
    }
}

/// DynamoDB equality: numbers by value, sets regardless of order, documents deeply.
fn same(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue::*;
    let num = |x: &String, y: &String| compare(x, y) == Some(Ordering::Equal);
    fn set<T>(x: &[T], y: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
        x.len() == y.len() && x.iter().all(|a| y.iter().any(|b| eq(a, b)))
    }
    match (a, b) {
        (N(x), N(y)) => num(x, y),
        (Ns(x), Ns(y)) => set(x, y, num),
        (Ss(x), Ss(y)) => set(x, y, |a, b| a == b),
        (Bs(x), Bs(y)) => set(x, y, |a, b| a == b),
        (L(x), L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (M(x), M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// Numeric order of two DynamoDB numbers (exact for integers).
fn compare(a: &str, b: &str) -> Option<Ordering> {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(a), Ok(b)) => Some(a.cmp(&b)),
        _ => a.parse::<f64>().ok()?.partial_cmp(&b.parse::<f64>().ok()?),
    }
}

/// `number + delta` (exact for integers).
fn add(number: &str, delta: i64) -> Option<String> {
    match number.parse::<i128>() {
        Ok(n) => n.checked_add(delta.into()).map(|sum| sum.to_string()),
        Err(_) => number.parse::<f64>().ok().map(|n| (n + delta as f64).to_string()),
    }
}

/// The SQL, arguments and `next` key attributes of a query.
pub(super) fn query_sql(
    query: &Query,
) -> Result<(String, Vec<String>, Vec<&'static str>), TableError> {
    if query.limit == Some(0) {
        return Err(invalid("a query limit must be at least 1"));
    }
    let (p, s) = query.index.key_attributes();
    let mut sql = format!("SELECT pk, sk, item FROM items WHERE {p} = ?");
    let mut args = vec![query.partition.clone()];
    let mut push = |clause: String, values: &[&String]| {
        sql.push_str(&clause);
        args.extend(values.iter().map(|v| v.to_string()));
    };
    match &query.sort {
        None => {}
        Some(SortKey::Eq(v)) => push(format!(" AND {s} = ?"), &[v]),
        Some(SortKey::Lt(v)) => push(format!(" AND {s} < ?"), &[v]),
        Some(SortKey::Le(v)) => push(format!(" AND {s} <= ?"), &[v]),
        Some(SortKey::Gt(v)) => push(format!(" AND {s} > ?"), &[v]),
        Some(SortKey::Ge(v)) => push(format!(" AND {s} >= ?"), &[v]),
        Some(SortKey::Between(a, b)) if a > b => {
            return Err(invalid("BETWEEN needs its lower bound first"));
        }
        Some(SortKey::Between(a, b)) => push(format!(" AND {s} BETWEEN ? AND ?"), &[a, b]),
        Some(SortKey::BeginsWith(v)) => push(
            format!(
                " AND {s} >= ? AND substr(CAST({s} AS BLOB), 1, length(CAST(? AS BLOB))) \
                 = CAST(? AS BLOB)"
            ),
            &[v, v, v],
        ),
    }
    // Order (and resume) by the index sort key, then by the table key to break ties.
    let order: Vec<&'static str> =
        if query.index == Index::Primary { vec![SK] } else { vec![s, PK, SK] };
    if let Some(start) = &query.start_after {
        let values = start_values(start, &order)?;
        let marks = vec!["?"; order.len()].join(", ");
        let op = if query.descending { "<" } else { ">" };
        push(format!(" AND ({}) {op} ({marks})", order.join(", ")), &values);
    }
    if args.iter().any(String::is_empty) {
        return Err(invalid("key condition values may not be empty (as in DynamoDB)"));
    }
    let direction = if query.descending { "DESC" } else { "ASC" };
    let columns: Vec<String> = order.iter().map(|c| format!("{c} {direction}")).collect();
    sql.push_str(&format!(" ORDER BY {}", columns.join(", ")));
    if let Some(limit) = query.limit {
        sql.push_str(&format!(" LIMIT {limit}"));
    }
    Ok((sql, args, key_attributes(query.index)))
}

/// The attributes of a page's `next` key: the table's, and the index's when on one.
fn key_attributes(index: Index) -> Vec<&'static str> {
    let (p, s) = index.key_attributes();
    let mut key_attrs = vec![PK, SK];
    if index != Index::Primary {
        key_attrs.extend([p, s]);
    }
    key_attrs
}

/// The string values of `attributes` in a `start_after` key.
fn start_values<'a>(start: &'a Item, attributes: &[&str]) -> Result<Vec<&'a String>, TableError> {
    attributes
        .iter()
        .map(|a| match start.get(*a) {
            Some(AttributeValue::S(v)) => Ok(v),
            _ => Err(invalid(format!("start_after needs the string attribute {a}"))),
        })
        .collect()
}

/// The SQL, arguments and `next` key attributes of a scan: the rows in an index (those whose
/// partition column is set) in the index's order, or every row in key order.
pub(super) fn scan_sql(
    scan: &Scan,
) -> Result<(String, Vec<String>, Vec<&'static str>), TableError> {
    if scan.limit == Some(0) {
        return Err(invalid("a scan limit must be at least 1"));
    }
    let (p, s) = scan.index.key_attributes();
    let order: Vec<&'static str> =
        if scan.index == Index::Primary { vec![PK, SK] } else { vec![p, s, PK, SK] };
    let mut sql = format!("SELECT pk, sk, item FROM items WHERE {p} IS NOT NULL");
    let mut args = Vec::new();
    if let Some(start) = &scan.start_after {
        args = start_values(start, &order)?.into_iter().cloned().collect();
        let marks = vec!["?"; order.len()].join(", ");
        sql.push_str(&format!(" AND ({}) > ({marks})", order.join(", ")));
    }
    sql.push_str(&format!(" ORDER BY {}", order.join(", ")));
    if let Some(limit) = scan.limit {
        sql.push_str(&format!(" LIMIT {limit}"));
    }
    Ok((sql, args, key_attributes(scan.index)))
}
