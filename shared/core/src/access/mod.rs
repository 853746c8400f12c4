//! What every token check stands on, below the context that holds it: the keys that sign and
//! verify tokens, and the per-process cache of account status. Checking a caller
//! (`users::principal`) reads the account, which belongs to the users feature.

pub mod principals;
pub mod tokens;

pub use principals::{PrincipalCache, Snapshot};
pub use tokens::TokenKeys;
