//! The HTTP API's `CorsConfiguration` applied the way API Gateway applies it: a preflight
//! (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered by the API itself
//! with 204, whatever the routes; on every other answer the integration's own CORS headers are
//! dropped and the API's are set for an allowed origin.

use anyhow::{Context, Result};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

/// A resolved `CorsConfiguration`.
#[derive(Clone, Debug, Default)]
pub struct Cors {
    origins: Vec<String>,
    methods: Vec<String>,
    headers: Vec<String>,
    expose: Vec<String>,
    max_age: Option<u64>,
    credentials: bool,
}

fn list(value: &Value, key: &str) -> Result<Vec<String>> {
    match &value[key] {
        Value::Null => Ok(vec![]),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string).with_context(|| format!("{key} item")))
            .collect(),
        other => Ok(vec![other.as_str().with_context(|| key.to_string())?.to_string()]),
    }
}

impl Cors {
    /// Reads a resolved `CorsConfiguration`.
    pub fn from_configuration(value: &Value) -> Result<Self> {
        Ok(Self {
            origins: list(value, "AllowOrigins")?,
            methods: list(value, "AllowMethods")?,
            headers: list(value, "AllowHeaders")?,
            expose: list(value, "ExposeHeaders")?,
            max_age: value["MaxAge"].as_u64(),
            credentials: value["AllowCredentials"].as_bool().unwrap_or(false),
        })
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, if it is allowed.
    fn allowed_origin(&self, origin: &str) -> Option<HeaderValue> {
        if self.origins.iter().any(|o| o == "*") {
            return Some(HeaderValue::from_static("*"));
        }
        let allowed = self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin));
        allowed.then(|| HeaderValue::from_str(origin).ok()).flatten()
    }

    /// The headers of API Gateway's answer to a preflight, when `method` and `request` make
    /// one.
    pub fn preflight(&self, method: &str, request: &HeaderMap) -> Option<HeaderMap> {
        let origin = request.get("origin")?.to_str().ok()?;
        if method != "OPTIONS" || !request.contains_key("access-control-request-method") {
            return None;
        }
        let mut headers = HeaderMap::new();
        let Some(allowed) = self.allowed_origin(origin) else { return Some(headers) };
        let mut set = |name: &'static str, value: String| {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        };
        set("access-control-allow-origin", allowed.to_str().unwrap_or("*").to_string());
        let echo = |key: &str| {
            request.get(key).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
        };
        let methods = if self.methods.iter().any(|m| m == "*") {
            echo("access-control-request-method")
        } else {
            self.methods.join(",")
        };
        set("access-control-allow-methods", methods);
        let allow_headers = if self.headers.iter().any(|h| h == "*") {
            echo("access-control-request-headers")
        } else {
            self.headers.iter().map(|h| h.to_ascii_lowercase()).collect::<Vec<_>>().join(",")
        };
        if !allow_headers.is_empty() {
            set("access-control-allow-headers", allow_headers);
        }
        if let Some(age) = self.max_age {
            set("access-control-max-age", age.to_string());
        }
        if self.credentials {
            set("access-control-allow-credentials", "true".into());
        }
        Some(headers)
    }

    /// Replaces the integration's CORS headers in `answer` with the API's for `request`.
    pub fn decorate(&self, request: &HeaderMap, answer: &mut HeaderMap) {
        let theirs: Vec<HeaderName> = answer
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .cloned()
            .collect();
        for name in theirs {
            answer.remove(name);
        }
        let origin = request.get("origin").and_then(|v| v.to_str().ok());
        let Some(allowed) = origin.and_then(|origin| self.allowed_origin(origin)) else {
            return;
        };
        answer.insert("access-control-allow-origin", allowed);
        if !self.expose.is_empty() {
            if let Ok(value) = HeaderValue::from_str(&self.expose.join(",")) {
                answer.insert("access-control-expose-headers", value);
            }
        }
        if self.credentials {
            answer.insert("access-control-allow-credentials", HeaderValue::from_static("true"));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (HeaderName::from_static(k), HeaderValue::from_static(v)))
            .collect()
    }

    #[test]
    fn a_preflight_gets_the_configured_methods_headers_and_age() {
        let config = json!({"AllowOrigins": ["*"], "AllowMethods": ["GET", "PUT"],
            "AllowHeaders": ["Authorization", "Content-Type"], "MaxAge": 600});
        let cors = Cors::from_configuration(&config).unwrap();
        let request =
            headers(&[("origin", "https://a.example"), ("access-control-request-method", "PUT")]);
        let answer = cors.preflight("OPTIONS", &request).unwrap();
        assert_eq!(answer["access-control-allow-origin"], "*");
        assert_eq!(answer["access-control-allow-methods"], "GET,PUT");
        assert_eq!(answer["access-control-allow-headers"], "authorization,content-type");
        assert_eq!(answer["access-control-max-age"], "600");
        assert!(cors.preflight("OPTIONS", &headers(&[("origin", "x")])).is_none(), "no method");
        assert!(cors.preflight("GET", &request).is_none());
    }

    #[test]
    fn only_listed_origins_get_headers_and_the_integrations_own_are_replaced() {
        let config = json!({"AllowOrigins": ["https://blog.example"], "ExposeHeaders": ["ETag"]});
        let cors = Cors::from_configuration(&config).unwrap();
        let mut answer = headers(&[("access-control-allow-origin", "*"), ("etag", "1")]);
        cors.decorate(&headers(&[("origin", "https://evil.example")]), &mut answer);
        assert!(!answer.contains_key("access-control-allow-origin"));
        cors.decorate(&headers(&[("origin", "https://blog.example")]), &mut answer);
        assert_eq!(answer["access-control-allow-origin"], "https://blog.example");
        assert_eq!(answer["access-control-expose-headers"], "ETag");
        assert_eq!(answer["etag"], "1");
    }
}
