//! Generators of request parts: JSON values and bodies, query strings, path segments.

use proptest::{prelude::*, sample::select};
use serde_json::{Map, Value};

/// JSON values of every type, including the awkward ones (huge and negative numbers, numeric
/// strings, control characters, deep nesting).
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        select(vec![
            0i64,
            1,
            -1,
            2,
            100,
            101,
            9_007_199_254_740_991,
            9_007_199_254_740_992,
            i64::MIN
        ])
        .prop_map(Value::from),
        select(vec![
            "",
            " ",
            "1",
            "-1",
            "0",
            "1e3",
            "image/png",
            "a.png",
            "#FFF",
            "https://x.test",
            "x@y.z"
        ])
        .prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        (1usize..3000).prop_map(|n| Value::from("é".repeat(n))),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A JSON object with some of `fields`, each holding any value.
pub fn shaped(fields: &'static [String]) -> impl Strategy<Value = Value> {
    prop::collection::vec((select(fields), json_value()), 0..8)
        .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>()))
}

/// Request bodies: shaped objects, any JSON, cut-off JSON, any bytes.
pub fn body(fields: &'static [String]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => shaped(fields).prop_map(|v| v.to_string().into_bytes()),
        2 => json_value().prop_map(|v| v.to_string().into_bytes()),
        1 => (shaped(fields), any::<prop::sample::Index>()).prop_map(|(v, cut)| {
            let text = v.to_string().into_bytes();
            text[..cut.index(text.len() + 1)].to_vec()
        }),
        2 => prop::collection::vec(any::<u8>(), 0..300),
    ]
}

/// `Content-Type` headers (the body is parsed as JSON whatever it says).
pub fn content_type() -> impl Strategy<Value = Option<&'static str>> {
    select(vec![
        None,
        Some("application/json"),
        Some("text/plain"),
        Some("application/json; charset=utf-16"),
        Some("multipart/form-data; boundary=x"),
    ])
}

/// Percent-encodes every byte but the unreserved ones.
pub fn encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Values for query parameters and path segments (raw bytes, percent-encoded later).
pub fn raw_value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        select(vec![
            "",
            "0",
            "1",
            "-1",
            "+1",
            "1.5",
            "1e3",
            "abc",
            "100",
            "101",
            "9007199254740991",
            "9007199254740992",
            "18446744073709551616",
            " 1",
            "0x10",
            "name",
            "article_count",
            "create_time",
            "..",
            ".",
            "\u{0}",
            "中文",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        "\\PC{0,30}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..40),
    ]
}

/// Query strings: known and unknown parameters, repeated ones, and raw junk that is still a
/// valid URI.
pub fn query(names: &'static [String]) -> impl Strategy<Value = String> {
    let known = match names.is_empty() {
        true => raw_value().boxed(),
        false => select(names).prop_map(String::into_bytes).boxed(),
    };
    let name = prop_oneof![known, raw_value()];
    let pairs = prop::collection::vec((name, raw_value()), 0..5).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    });
    prop_oneof![4 => pairs, 1 => "[A-Za-z0-9&=%+;/?:@!$'()*,~._-]{0,40}"]
}
