//! Questions to template.yaml's policies in the template's own terms (resources by logical id,
//! as [`crate::report::symbolic_policies`] resolves them): "may this function take this action
//! on this resource, with these keys and attributes?", answered by [`Policy::decide`] as AWS
//! answers it. The template tests ask them of what each function must never be able to do.

use super::{Decision, Policy};
use crate::actions::Action;

/// The table's logical id.
pub const TABLE: &str = "BlogTable";
/// The uploads bucket's logical id.
pub const BUCKET: &str = "UploadsBucket";

/// `dynamodb:<action>` on the table's items of partition `key` (e.g. `GetItem`, `USER#7`).
pub fn item(action: &str, key: &str) -> Action {
    Action::new(&format!("dynamodb:{action}"), TABLE).keys(&[key])
}

/// An UpdateItem of partition `key` naming `attributes` (keys, updated and conditioned ones).
pub fn update(key: &str, attributes: &[&str]) -> Action {
    item("UpdateItem", key).with("dynamodb:Attributes", attributes)
}

/// A Query of the table's index `index` (e.g. `gsi3`) for partition `key` of that index.
pub fn index_query(index: &str, key: &str) -> Action {
    Action::new("dynamodb:Query", format!("{TABLE}/index/{index}")).keys(&[key]).on_an_index()
}

/// `s3:<action>` on the object `key` of the uploads bucket.
pub fn object(action: &str, key: &str) -> Action {
    Action::new(&format!("s3:{action}"), format!("{BUCKET}/{key}"))
}

/// A listing of the uploads bucket under `prefix` (`None`: no prefix, the whole bucket).
pub fn listing(prefix: Option<&str>) -> Action {
    let action = Action::new("s3:ListBucket", BUCKET);
    match prefix {
        Some(prefix) => action.with("s3:prefix", &[prefix]),
        None => action,
    }
}

/// Whether `policy` allows `action`.
pub fn allows(policy: &Policy, action: &Action) -> bool {
    matches!(policy.decide(action), Decision::Allowed(_))
}
