//! HTTP calls of the smoke test: JSON requests to the API and the checks of its envelopes.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use reqwest::{Method, StatusCode};
use serde_json::Value;

/// An API area's envelope, by the `code` it answers on success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// Authentication and users: `{code: 0, message, data}`.
    Accounts,
    /// Public and admin articles: `{code: 200, message, data}`.
    Articles,
    /// Files: `{code: 0, message, data, timestamp}`.
    Files,
}

impl Area {
    /// The `code` of a successful answer.
    pub fn success_code(self) -> i64 {
        match self {
            Area::Accounts | Area::Files => 0,
            Area::Articles => 200,
        }
    }
}

/// One answer: status and body (JSON, or the text as a JSON string when it is not JSON).
#[derive(Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: StatusCode,
    /// The body; `Null` when empty.
    pub body: Value,
}

/// A client of the API at one base URL.
pub struct Api {
    base: String,
    http: reqwest::Client,
}

/// The base URL without trailing slashes, or why it is not one.
pub fn normalise_base(url: &str) -> Result<String> {
    let trimmed = url.trim().trim_end_matches('/');
    if trimmed.is_empty() {
        bail!("no URL given: pass --url or set URL (the stack's ApiUrl output)");
    }
    let parsed = reqwest::Url::parse(trimmed).with_context(|| {
        format!(
            "`{url}` is not a URL (expected e.g. https://abc.execute-api.us-east-1.amazonaws.com)"
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        bail!("`{url}` is not an http(s) URL with a host");
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        bail!("`{url}` has a query or fragment; give the API's base URL only");
    }
    Ok(trimmed.to_string())
}

/// Installs the TLS provider the workspace uses and builds an HTTP client with `timeout` per
/// request.
pub fn http_client(timeout: Duration) -> Result<reqwest::Client> {
    // Already installed (a second client in one process) is fine.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .build()
        .context("building the HTTP client")
}

/// A short excerpt of a body for messages.
pub fn excerpt(body: &Value) -> String {
    let text = match body {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// `data` of an envelope answered with `status`, when both say success for `area`.
pub fn envelope_data(area: Area, status: StatusCode, body: &Value) -> Result<Value> {
    let code = body.get("code").and_then(Value::as_i64);
    if status.is_success() && code == Some(area.success_code()) {
        return Ok(body.get("data").cloned().unwrap_or(Value::Null));
    }
    match (code, body.get("message").and_then(Value::as_str)) {
        (Some(code), Some(message)) => bail!("HTTP {status}, code {code}: {message}"),
        _ => bail!("HTTP {status}, not the expected envelope: {}", excerpt(body)),
    }
}

impl Api {
    /// A client of the API at `base` (see [`normalise_base`]).
    pub fn new(base: &str, timeout: Duration) -> Result<Api> {
        Ok(Api { base: normalise_base(base)?, http: http_client(timeout)? })
    }

    /// The absolute URL of `path_or_url`: a path of the API, or already an absolute URL (a
    /// signed URL of the object storage).
    pub fn url(&self, path_or_url: &str) -> String {
        if path_or_url.starts_with("http://") || path_or_url.starts_with("https://") {
            path_or_url.to_string()
        } else {
            format!("{}/{}", self.base, path_or_url.trim_start_matches('/'))
        }
    }

    /// Sends a JSON request (`body` when given, `token` as a bearer token when given).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Reply> {
        let mut request = self.http.request(method.clone(), self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.with_context(|| format!("{method} {path}"))?;
        let status = response.status();
        let text = response.text().await.with_context(|| format!("{method} {path}: body"))?;
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        Ok(Reply { status, body })
    }

    /// `data` of a successful answer in `area`'s envelope; any other answer is an error
    /// naming the request, the status and the envelope's message.
    pub async fn data(
        &self,
        area: Area,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Value> {
        let reply = self.call(method.clone(), path, token, body).await?;
        envelope_data(area, reply.status, &reply.body).with_context(|| format!("{method} {path}"))
    }

    /// PUTs `bytes` to a signed URL with only `Content-Type`, as a browser's `fetch` does.
    /// Errors leave the URL out: its signature (and in AWS a session token) is a credential.
    pub async fn upload(&self, url: &str, content_type: &str, bytes: Vec<u8>) -> Result<()> {
        let response = self
            .http
            .put(self.url(url))
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(bytes)
            .send()
            .await
            .map_err(reqwest::Error::without_url)
            .context("PUT to the upload URL")?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            bail!(
                "PUT to the upload URL answered HTTP {status}: {}",
                excerpt(&Value::String(text))
            );
        }
        Ok(())
    }

    /// GETs the bytes behind a signed URL (errors leave the URL out, as for uploads).
    pub async fn download(&self, url: &str) -> Result<Vec<u8>> {
        let response = self
            .http
            .get(self.url(url))
            .send()
            .await
            .map_err(reqwest::Error::without_url)
            .context("GET the access URL")?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(reqwest::Error::without_url)
            .context("GET the access URL: body")?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            bail!("GET the access URL answered HTTP {status}: {}", excerpt(&Value::String(text)));
        }
        Ok(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn base_urls_lose_trailing_slashes_and_keep_a_path_prefix() {
        assert_eq!(normalise_base("http://127.0.0.1:3000/").unwrap(), "http://127.0.0.1:3000");
        assert_eq!(normalise_base(" https://h.example/prod// ").unwrap(), "https://h.example/prod");
    }

    #[test]
    fn anything_but_an_http_base_url_is_refused_with_a_reason() {
        for (url, reason) in [
            ("", "no URL given"),
            ("localhost:3000", "not an http(s) URL"),
            ("127.0.0.1:3000", "not a URL"),
            ("ftp://h.example", "not an http(s) URL"),
            ("http://h.example/?a=1", "query or fragment"),
        ] {
            let error = normalise_base(url).unwrap_err().to_string();
            assert!(error.contains(reason), "{url}: {error}");
        }
    }

    #[test]
    fn paths_join_the_base_and_absolute_urls_stay_as_they_are() {
        let api = Api::new("https://h.example/prod/", Duration::from_secs(1)).unwrap();
        assert_eq!(api.url("/actuator/health"), "https://h.example/prod/actuator/health");
        assert_eq!(api.url("http://s3.local/b/k?X-Amz=1"), "http://s3.local/b/k?X-Amz=1");
    }

    #[test]
    fn an_envelope_succeeds_only_with_its_areas_code_and_a_2xx() {
        let ok = json!({"code": 200, "message": "ok", "data": "17"});
        assert_eq!(envelope_data(Area::Articles, StatusCode::OK, &ok).unwrap(), json!("17"));
        let error = envelope_data(Area::Accounts, StatusCode::OK, &ok).unwrap_err();
        assert_eq!(error.to_string(), "HTTP 200 OK, code 200: ok");
        let refused = json!({"code": 401, "message": "wrong username or password", "data": null});
        let error = envelope_data(Area::Accounts, StatusCode::UNAUTHORIZED, &refused).unwrap_err();
        assert_eq!(
            error.to_string(),
            "HTTP 401 Unauthorized, code 401: wrong username or password"
        );
        let html = Value::String("<html>bad gateway</html>".into());
        let error = envelope_data(Area::Files, StatusCode::BAD_GATEWAY, &html).unwrap_err();
        assert!(error.to_string().contains("not the expected envelope: <html>"), "{error}");
    }

    #[test]
    fn excerpts_are_cut_at_200_characters() {
        let long = Value::String("é".repeat(500));
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), 201);
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt(&json!({"a": 1})), r#"{"a":1}"#);
    }
}
