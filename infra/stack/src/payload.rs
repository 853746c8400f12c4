//! The Lambda proxy integration of an HTTP API, payload format 2.0: the event API Gateway
//! sends a function for a request, and how it turns the function's answer back into HTTP.
//!
//! Requests: header names in lower case, repeated headers joined with commas, `Cookie`
//! headers moved into `cookies`, repeated query parameters joined with commas, the path
//! parameters of the route, a text body as is and any other body base64-encoded. Answers: an
//! object with `statusCode` gives status, headers (`multiValueHeaders` too), `cookies` as
//! `Set-Cookie` headers and the body (base64-decoded when `isBase64Encoded`); any other valid
//! JSON is a 200 `application/json` answer carrying it; anything else is API Gateway's 500.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::{json, Map, Value};

use crate::routes::Matched;

/// The parts of an HTTP request the event is made of.
pub struct Request<'a> {
    /// Method.
    pub method: &'a str,
    /// Path as requested (still percent-encoded).
    pub raw_path: &'a str,
    /// Query string as requested, without `?`.
    pub raw_query: &'a str,
    /// Headers.
    pub headers: &'a HeaderMap,
    /// Body.
    pub body: &'a [u8],
    /// The client's address.
    pub source_ip: String,
}

/// Identifies the API in request contexts.
pub struct Api<'a> {
    /// API id (`!Ref HttpApi`).
    pub id: &'a str,
    /// Account of the stack.
    pub account: &'a str,
}

/// The payload 2.0 event of `request` on `route`.
pub fn event(api: &Api, route: &Matched, request: &Request) -> Value {
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    let mut cookies = vec![];
    for (name, value) in request.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        if name == "cookie" {
            cookies
                .extend(value.split(';').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()));
            continue;
        }
        headers
            .entry(name.as_str().to_string())
            .and_modify(|joined| {
                joined.push(',');
                joined.push_str(&value);
            })
            .or_insert(value);
    }
    let forwarded = match headers.get("x-forwarded-for") {
        Some(chain) => format!("{chain}, {}", request.source_ip),
        None => request.source_ip.clone(),
    };
    headers.insert("x-forwarded-for".into(), forwarded);
    headers.insert("x-forwarded-proto".into(), "http".into());
    let now = chrono::Utc::now();
    let trace = format!("Root=1-{:08x}-{}", now.timestamp(), &hex_id()[..24]);
    headers.entry("x-amzn-trace-id".into()).or_insert(trace);
    let host = headers.get("host").cloned().unwrap_or_else(|| "localhost".into());
    let user_agent = headers.get("user-agent").cloned().unwrap_or_default();

    let mut event = Map::new();
    event.insert("version".into(), json!("2.0"));
    event.insert("routeKey".into(), json!(route.key));
    event.insert("rawPath".into(), json!(request.raw_path));
    event.insert("rawQueryString".into(), json!(request.raw_query));
    if !cookies.is_empty() {
        event.insert("cookies".into(), json!(cookies));
    }
    event.insert("headers".into(), json!(headers));
    let query = query_parameters(request.raw_query);
    if !query.is_empty() {
        event.insert("queryStringParameters".into(), json!(query));
    }
    if !route.path_parameters.is_empty() {
        event.insert("pathParameters".into(), json!(route.path_parameters));
    }
    event.insert(
        "requestContext".into(),
        json!({
            "accountId": api.account,
            "apiId": api.id,
            "domainName": host,
            "domainPrefix": host.split('.').next().unwrap_or_default(),
            "http": {
                "method": request.method,
                "path": request.raw_path,
                "protocol": "HTTP/1.1",
                "sourceIp": request.source_ip,
                "userAgent": user_agent,
            },
            "requestId": &hex_id()[..16],
            "routeKey": route.key,
            "stage": "$default",
            "time": now.format("%d/%b/%Y:%H:%M:%S +0000").to_string(),
            "timeEpoch": now.timestamp_millis(),
        }),
    );
    if !request.body.is_empty() {
        let text = is_text(request.headers).then(|| std::str::from_utf8(request.body).ok());
        match text.flatten() {
            Some(text) => {
                event.insert("body".into(), json!(text));
                event.insert("isBase64Encoded".into(), json!(false));
            }
            None => {
                event.insert("body".into(), json!(STANDARD.encode(request.body)));
                event.insert("isBase64Encoded".into(), json!(true));
            }
        }
    } else {
        event.insert("isBase64Encoded".into(), json!(false));
    }
    Value::Object(event)
}

fn hex_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Bodies API Gateway passes as text: no content type, or a textual one.
fn is_text(headers: &HeaderMap) -> bool {
    let Some(kind) = headers.get("content-type").and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let kind = kind.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    kind.starts_with("text/")
        || kind.ends_with("+json")
        || kind.ends_with("+xml")
        || matches!(
            kind.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-www-form-urlencoded"
        )
}

/// Query parameters, percent-decoded, repeated names joined with commas.
fn query_parameters(raw: &str) -> BTreeMap<String, String> {
    let mut parameters: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in form_urlencoded::parse(raw.as_bytes()) {
        parameters
            .entry(name.into_owned())
            .and_modify(|joined| {
                joined.push(',');
                joined.push_str(&value);
            })
            .or_insert_with(|| value.into_owned());
    }
    parameters
}

/// An answer turned into HTTP.
pub struct Answer {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Vec<u8>,
}

/// Reads a function's answer to an HTTP API event.
pub fn answer(payload: &[u8]) -> Result<Answer> {
    let value: Value = serde_json::from_slice(payload).context("the answer is not JSON")?;
    let Some(status) = value.get("statusCode") else {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        return Ok(Answer { status: StatusCode::OK, headers, body: payload.to_vec() });
    };
    let status = status.as_u64().context("statusCode is not a number")?;
    let status = StatusCode::from_u16(u16::try_from(status)?).context("statusCode")?;
    let mut headers = HeaderMap::new();
    let mut add = |name: &str, value: &Value| -> Result<()> {
        let name = HeaderName::from_bytes(name.as_bytes())?;
        let text = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        headers.append(name, HeaderValue::from_str(&text)?);
        Ok(())
    };
    if let Some(single) = value["headers"].as_object() {
        for (name, value) in single {
            add(name, value)?;
        }
    }
    if let Some(multi) = value["multiValueHeaders"].as_object() {
        for (name, values) in multi {
            if value["headers"].get(name).is_some() {
                continue;
            }
            for value in values.as_array().context("multiValueHeaders holds lists")? {
                add(name, value)?;
            }
        }
    }
    for cookie in value["cookies"].as_array().into_iter().flatten() {
        add("set-cookie", cookie)?;
    }
    let body = match (&value["body"], value["isBase64Encoded"].as_bool().unwrap_or(false)) {
        (Value::Null, _) => vec![],
        (Value::String(text), true) => STANDARD.decode(text).context("a base64 body")?,
        (Value::String(text), false) => text.clone().into_bytes(),
        (other, _) => bail!("body is {other}, not a string"),
    };
    Ok(Answer { status, headers, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route() -> Matched {
        Matched {
            key: "GET /things/{id}".into(),
            function: 0,
            path_parameters: BTreeMap::from([("id".into(), "7".into())]),
        }
    }

    #[test]
    fn the_event_carries_the_route_headers_cookies_query_and_body() {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("127.0.0.1:3000"));
        headers.append("x-tag", HeaderValue::from_static("a"));
        headers.append("x-tag", HeaderValue::from_static("b"));
        headers.insert("cookie", HeaderValue::from_static("s=1; t=2"));
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        let request = Request {
            method: "GET",
            raw_path: "/things/7",
            raw_query: "q=a%20b&q=c&empty=",
            headers: &headers,
            body: b"{\"x\":1}",
            source_ip: "10.0.0.1".into(),
        };
        let api = Api { id: "abc123", account: "123456789012" };
        let event = event(&api, &route(), &request);
        assert_eq!(event["routeKey"], "GET /things/{id}");
        assert_eq!(event["requestContext"]["routeKey"], "GET /things/{id}");
        assert_eq!(event["pathParameters"], json!({"id": "7"}));
        assert_eq!(event["queryStringParameters"], json!({"q": "a b,c", "empty": ""}));
        assert_eq!(event["headers"]["x-tag"], "a,b");
        assert!(event["headers"].get("cookie").is_none());
        assert_eq!(event["cookies"], json!(["s=1", "t=2"]));
        assert_eq!(
            (event["body"].as_str(), event["isBase64Encoded"].as_bool()),
            (Some("{\"x\":1}"), Some(false))
        );
        assert_eq!(event["requestContext"]["http"]["sourceIp"], "10.0.0.1");
        assert_eq!(event["requestContext"]["stage"], "$default");
    }

    #[test]
    fn a_binary_body_is_base64_encoded() {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("image/png"));
        let request = Request {
            method: "PUT",
            raw_path: "/things/7",
            raw_query: "",
            headers: &headers,
            body: &[0x89, 0x50],
            source_ip: "127.0.0.1".into(),
        };
        let event = event(&Api { id: "a", account: "1" }, &route(), &request);
        assert_eq!(
            (event["body"].as_str(), event["isBase64Encoded"].as_bool()),
            (Some("iVA="), Some(true))
        );
        assert!(event.get("queryStringParameters").is_none());
    }

    #[test]
    fn answers_become_http_as_api_gateway_reads_them() {
        let structured = json!({
            "statusCode": 201,
            "headers": {"content-type": "text/plain"},
            "multiValueHeaders": {"x-many": ["1", "2"]},
            "cookies": ["a=1"],
            "body": "aGk=",
            "isBase64Encoded": true,
        });
        let answer = answer(structured.to_string().as_bytes()).unwrap();
        assert_eq!(answer.status, 201);
        assert_eq!(answer.body, b"hi");
        assert_eq!(answer.headers.get_all("x-many").iter().count(), 2);
        assert_eq!(answer.headers["set-cookie"], "a=1");
        let bare = super::answer(b"{\"ok\":true}").unwrap();
        assert_eq!(
            (bare.status, bare.headers["content-type"].to_str().unwrap()),
            (StatusCode::OK, "application/json")
        );
        assert!(super::answer(b"not json").is_err());
    }
}
