//! The condition keys of a DynamoDB item request besides its leading keys, as DynamoDB fills
//! IAM's request context: `dynamodb:Attributes`, the top-level attribute names the request
//! reads, writes or evaluates (its key or item, the names of its update, condition and
//! projection expressions, and the legacy `AttributeUpdates`, `Expected`, `AttributesToGet`),
//! and `dynamodb:ReturnValues` of a single write (`NONE` when the request leaves it out; a
//! transaction's entries take none).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// `dynamodb:Attributes` of a read that returns every attribute (no projection): it matches
/// only a condition that allows any name (`StringLike` `*`), never a list of names.
pub const EVERY_ATTRIBUTE: &str = "*";

/// The words of an expression that are not attribute names.
const KEYWORDS: [&str; 9] = ["SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "BETWEEN", "IN"];

static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[#:]?[A-Za-z_][A-Za-z0-9_]*").expect("a valid pattern"));

/// The condition context of `request`, the item request of IAM action `action`
/// (`dynamodb:GetItem`, ...), whose key or item is its field `field`; `single` for a request
/// of its own, not an entry of a transaction (a single write always carries a ReturnValues).
pub(super) fn item(
    request: &Value,
    action: &str,
    field: &str,
    single: bool,
) -> BTreeMap<String, Vec<String>> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    let object_keys = |value: &Value| -> Vec<String> {
        value.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    names.extend(object_keys(&request[field]));
    let placeholders = &request["ExpressionAttributeNames"];
    for expression in ["UpdateExpression", "ConditionExpression", "ProjectionExpression"] {
        if let Some(text) = request[expression].as_str() {
            names.extend(expression_names(text, placeholders));
        }
    }
    names.extend(object_keys(&request["AttributeUpdates"]));
    names.extend(object_keys(&request["Expected"]));
    let listed = request["AttributesToGet"].as_array();
    names.extend(listed.into_iter().flatten().filter_map(Value::as_str).map(str::to_string));
    let reads_everything = action == "dynamodb:GetItem"
        && request["ProjectionExpression"].is_null()
        && request["AttributesToGet"].is_null();
    if reads_everything {
        names.insert(EVERY_ATTRIBUTE.to_string());
    }
    let mut context =
        BTreeMap::from([("dynamodb:Attributes".to_string(), names.into_iter().collect())]);
    let write = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"];
    if single && write.contains(&action) {
        let returns = request["ReturnValues"].as_str().unwrap_or("NONE").to_string();
        context.insert("dynamodb:ReturnValues".to_string(), vec![returns]);
    }
    context
}

/// The top-level attribute names an expression names: `#placeholders` resolved through
/// `placeholders`, bare names kept; values (`:v`), functions, keywords and the nested parts of
/// a path (`a.b`, `a[0]`) are not names of their own.
pub(super) fn expression_names(expression: &str, placeholders: &Value) -> Vec<String> {
    let mut names = vec![];
    for token in TOKEN.find_iter(expression) {
        let text = token.as_str();
        let before = expression[..token.start()].trim_end().chars().last();
        let after = expression[token.end()..].trim_start().chars().next();
        if text.starts_with(':') || before == Some('.') || after == Some('(') {
            continue;
        }
        if text.starts_with('#') {
            names.push(placeholders[text].as_str().unwrap_or(text).to_string());
        } else if !KEYWORDS.contains(&text.to_ascii_uppercase().as_str()) {
            names.push(text.to_string());
        }
    }
    names
}
