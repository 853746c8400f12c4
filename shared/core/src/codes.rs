//! Domain values stored as numbers, as the table has always held them: flags as `0`/`1` and
//! enumerations as their codes. A record names the representation per field
//! (`#[serde(with = "crate::codes::flag")]` on a `bool`, `#[serde(with = "crate::codes::code")]`
//! on a [`Coded`] enum), so items keep their numeric attributes while the code works with `bool`s
//! and enums, parsed once when an item is read. A number outside the domain fails the read.

use serde::{de::Error, Deserialize, Deserializer, Serializer};

/// An enumeration stored as a number code.
pub trait Coded: Sized + Copy {
    /// What the code stands for, in errors ("article status").
    const WHAT: &'static str;

    /// The stored number.
    fn code(self) -> i64;

    /// The value of a stored number; `None` for one outside the domain.
    fn from_code(code: i64) -> Option<Self>;
}

/// A `bool` as the number `0` or `1`.
pub mod flag {
    use super::*;

    /// `1` for true, `0` for false.
    pub fn serialize<S: Serializer>(value: &bool, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(i64::from(*value))
    }

    /// `0` or `1`; any other number is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
        match i64::deserialize(deserializer)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(D::Error::custom(format!("a flag is 0 or 1, not {other}"))),
        }
    }
}

/// A [`Coded`] enumeration as its number.
pub mod code {
    use super::*;

    /// The value's code.
    pub fn serialize<T: Coded, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(value.code())
    }

    /// The value of a code; an unknown code is an error.
    pub fn deserialize<'de, T: Coded, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        let code = i64::deserialize(deserializer)?;
        T::from_code(code).ok_or_else(|| D::Error::custom(format!("unknown {} {code}", T::WHAT)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::{Deserialize, Serialize};
    use serde_dynamo::{AttributeValue, Item};

    use super::Coded;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Colour {
        Red,
        Blue,
    }

    impl Coded for Colour {
        const WHAT: &'static str = "colour";

        fn code(self) -> i64 {
            match self {
                Colour::Red => 0,
                Colour::Blue => 2,
            }
        }

        fn from_code(code: i64) -> Option<Self> {
            [Colour::Red, Colour::Blue].into_iter().find(|c| c.code() == code)
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Record {
        #[serde(with = "super::flag")]
        on: bool,
        #[serde(default, with = "super::flag")]
        gone: bool,
        #[serde(with = "super::code")]
        colour: Colour,
    }

    fn n(value: &str) -> AttributeValue {
        AttributeValue::N(value.into())
    }

    #[test]
    fn flags_and_codes_are_stored_as_numbers_and_read_back() {
        let record = Record { on: true, gone: false, colour: Colour::Blue };
        let item: Item = serde_dynamo::to_item(&record).unwrap();
        let expected = [("on", n("1")), ("gone", n("0")), ("colour", n("2"))];
        let expected = Item::from(
            expected.map(|(k, v)| (k.to_string(), v)).into_iter().collect::<HashMap<_, _>>(),
        );
        assert_eq!(item, expected);
        assert_eq!(serde_dynamo::from_item::<_, Record>(item).unwrap(), record);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json, serde_json::json!({"on": 1, "gone": 0, "colour": 2}));
    }

    #[test]
    fn a_missing_defaulted_flag_is_false_and_numbers_outside_the_domain_are_refused() {
        let read: Record = serde_json::from_str(r#"{"on": 0, "colour": 0}"#).unwrap();
        assert_eq!(read, Record { on: false, gone: false, colour: Colour::Red });
        let flag = serde_json::from_str::<Record>(r#"{"on": 2, "colour": 0}"#).unwrap_err();
        assert!(flag.to_string().contains("a flag is 0 or 1, not 2"), "{flag}");
        let code = serde_json::from_str::<Record>(r#"{"on": 1, "colour": 1}"#).unwrap_err();
        assert!(code.to_string().contains("unknown colour 1"), "{code}");
    }
}
