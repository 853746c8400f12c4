//! Extractors that turn bad input into a parameter error of the caller's envelope family
//! (never axum's plain-text rejections, never a 500), with messages naming the field.

use std::marker::PhantomData;

use axum::{
    body::Bytes,
    extract::{FromRequest, FromRequestParts, Path, Request},
    http::request::Parts,
};
use serde::de::DeserializeOwned;

use super::ApiError;

pub use crate::ids::MAX_ID;

/// A JSON request body of type `T`; failures answer `E::invalid` naming the field.
pub struct JsonBody<T, E>(pub T, pub PhantomData<E>);

impl<S, T, E> FromRequest<S> for JsonBody<T, E>
where
    S: Send + Sync,
    T: DeserializeOwned,
    E: ApiError,
{
    type Rejection = E;

    async fn from_request(req: Request, state: &S) -> Result<Self, E> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| E::invalid(format!("request body could not be read: {e}")))?;
        parse_json(&bytes).map(|value| Self(value, PhantomData)).map_err(E::invalid)
    }
}

/// Parses a JSON document; the error message names the offending field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("request body is required (a JSON object)".into());
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let detail = without_location(&inner.to_string());
        match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                format!("malformed JSON: {detail}")
            }
            _ if path == "." => detail,
            _ => format!("field `{path}`: {detail}"),
        }
    })
}

fn without_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// Query parameters of type `T`; failures answer `E::invalid` naming the parameter.
pub struct QueryParams<T, E>(pub T, pub PhantomData<E>);

impl<S, T, E> FromRequestParts<S> for QueryParams<T, E>
where
    S: Send + Sync,
    T: DeserializeOwned,
    E: ApiError,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, E> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer =
            serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer)
            .map(|value| Self(value, PhantomData))
            .map_err(|error| {
                let path = error.path().to_string();
                let inner = error.into_inner();
                if path == "." {
                    E::invalid(format!("invalid query: {inner}"))
                } else {
                    E::invalid(format!("query parameter `{path}`: {inner}"))
                }
            })
    }
}

/// A positive integer id from the only path parameter (at most [`MAX_ID`]).
pub struct PathId<E>(pub u64, pub PhantomData<E>);

impl<S, E> FromRequestParts<S> for PathId<E>
where
    S: Send + Sync,
    E: ApiError,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, E> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| E::invalid(format!("path id: {e}")))?;
        parse_id(&raw)
            .map(|id| Self(id, PhantomData))
            .ok_or_else(|| E::invalid(format!("id must be a positive integer, got `{raw}`")))
    }
}

/// Parses an id: a positive decimal integer of at most 53 bits.
pub fn parse_id(raw: &str) -> Option<u64> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse::<u64>().ok().filter(|id| (1..=MAX_ID).contains(id))
}

/// An id given as a JSON number or a numeric string (ids are strings in some responses).
pub fn id_from_json(field: &str, raw: &serde_json::Value) -> Result<u64, String> {
    let parsed = match raw {
        serde_json::Value::Number(number) => {
            number.as_u64().filter(|id| parse_id(&id.to_string()).is_some())
        }
        serde_json::Value::String(text) => parse_id(text),
        _ => None,
    };
    parsed.ok_or_else(|| format!("{field} must be a positive integer id"))
}

/// Deserialises a field that may be absent (`None`) or present, even as `null`
/// (`Some(Value::Null)`), so an update can tell "unchanged" from "clear".
pub fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    <serde_json::Value as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// The address of the client: inside Lambda, API Gateway's `sourceIp` (the TCP peer of its
/// edge); elsewhere the TCP peer of the connection. Never a header a client could set.
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(ClientAddress::of(&parts.extensions)))
    }
}

impl ClientAddress {
    /// The client address of a request from its extensions (for layers, which see the whole
    /// request): API Gateway's `sourceIp` in Lambda, else the TCP peer, else `unknown`.
    pub fn of(extensions: &axum::http::Extensions) -> String {
        #[cfg(feature = "lambda")]
        if let Some(lambda_http::request::RequestContext::ApiGatewayV2(context)) =
            extensions.get::<lambda_http::request::RequestContext>()
        {
            if let Some(ip) = &context.http.source_ip {
                return ip.clone();
            }
        }
        let peer = extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
        peer.map_or_else(|| "unknown".into(), |info| info.0.ip().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        age: Option<u8>,
    }

    #[test]
    fn ids_are_positive_53_bit_integers() {
        assert_eq!(parse_id("1"), Some(1));
        assert_eq!(parse_id("9007199254740991"), Some(MAX_ID));
        for bad in ["0", "-1", "+1", "1.5", "abc", "", "9007199254740992", " 1"] {
            assert_eq!(parse_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_missing_field_is_named() {
        let err = parse_json::<Body>(br#"{"age": 3}"#).unwrap_err();
        assert_eq!(err, "missing field `name`");
    }

    #[test]
    fn a_wrong_type_names_the_field() {
        let err = parse_json::<Body>(br#"{"name": "x", "age": "old"}"#).unwrap_err();
        assert!(err.starts_with("field `age`:"), "{err}");
    }

    #[test]
    fn malformed_json_and_an_empty_body_are_parameter_errors() {
        assert!(parse_json::<Body>(b"{").unwrap_err().starts_with("malformed JSON"));
        assert!(parse_json::<Body>(b"  ").unwrap_err().contains("required"));
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let body = parse_json::<Body>(br#"{"name": "x", "extra": [1]}"#).unwrap();
        assert_eq!(body.name, "x");
    }
}
