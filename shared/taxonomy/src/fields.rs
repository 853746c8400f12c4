//! Validated values of categories and tags.

use std::sync::LazyLock;

use regex_lite::Regex;

static SLUG: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z0-9-]{1,50}$").expect("regex"));
static COLOR: LazyLock<Regex> = LazyLock::new(|| Regex::new("^#[0-9A-Fa-f]{6}$").expect("regex"));

/// A slug: `[a-z0-9-]{1,50}`.
pub fn slug(raw: &str) -> Result<String, String> {
    if SLUG.is_match(raw) {
        Ok(raw.to_string())
    } else {
        Err("slug must be 1-50 characters of a-z, 0-9 and -".into())
    }
}

/// A colour `#RRGGBB` (kept as written).
pub fn color(raw: &str) -> Result<String, String> {
    if COLOR.is_match(raw) {
        Ok(raw.to_string())
    } else {
        Err("color must be a colour code #RRGGBB".into())
    }
}

/// A name: trimmed, 1 to `max` characters.
pub fn name(raw: &str, max: usize) -> Result<String, String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > max {
        Err(format!("name must be 1-{max} characters"))
    } else {
        Ok(name.to_string())
    }
}

/// A description: at most 500 characters.
pub fn description(raw: &str) -> Result<String, String> {
    if raw.chars().count() > 500 {
        Err("description must be at most 500 characters".into())
    } else {
        Ok(raw.to_string())
    }
}

pub use blog_core::http::extract::{id_from_json as id, present};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slugs_are_lowercase_letters_digits_and_dashes() {
        assert!(slug("rust-2024").is_ok());
        for bad in ["", "Rust", "a b", "a_b", &"a".repeat(51)] {
            assert!(slug(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn colours_are_hash_and_six_hex_digits() {
        assert!(color("#1e90FF").is_ok());
        for bad in ["1e90ff", "#1e90f", "#1e90fg", "red"] {
            assert!(color(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_may_be_numbers_or_numeric_strings() {
        assert_eq!(id("parentId", &json!(5)), Ok(5));
        assert_eq!(id("parentId", &json!("5")), Ok(5));
        for bad in [json!(0), json!(-1), json!("x"), json!(1.5), json!(true)] {
            assert!(id("parentId", &bad).is_err(), "{bad}");
        }
    }
}
