//! How the harness talks to the API: in-process through the gateway's router (tower
//! `oneshot`), or over HTTP (the gateway or the stack's front).

use std::net::{IpAddr, SocketAddr};

use axum::{body::Body, extract::ConnectInfo, http::Request};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::{header_of, headers_of, Api, Fetched, Reply, Transport, IN_PROCESS_BASE};

/// The host in-process requests for documents name.
const DOCUMENT_HOST: &str = "feeds.test";

impl Api {
    /// Sends a request to an absolute URL the API handed out (a signed upload or access URL):
    /// over HTTP as it is; in-process through the gateway's router (path and query only, with
    /// the `Content-Length` an HTTP client would send).
    pub async fn fetch(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> Fetched {
        match &self.transport {
            Transport::InProcess(router) => {
                let path =
                    url.strip_prefix(IN_PROCESS_BASE).expect("a URL of the in-process store");
                let mut request = Request::builder().method(method).uri(path);
                for (name, value) in headers {
                    request = request.header(name, value);
                }
                if method == "PUT" {
                    request = request.header("content-length", body.len().to_string());
                }
                let response =
                    router.clone().oneshot(request.body(Body::from(body)).unwrap()).await.unwrap();
                let status = response.status().as_u16();
                let content_type = header_of(response.headers(), "content-type");
                let headers = headers_of(response.headers());
                let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
                Fetched { status, content_type, body, headers }
            }
            Transport::Http { client, .. } => {
                let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
                let mut request = client.request(method, url).body(body);
                for (name, value) in headers {
                    request = request.header(name, value);
                }
                let response = request.send().await.expect("the storage answers");
                let status = response.status().as_u16();
                let content_type = header_of(response.headers(), "content-type");
                let headers = headers_of(response.headers());
                let body = response.bytes().await.unwrap().to_vec();
                Fetched { status, content_type, body, headers }
            }
        }
    }

    /// Sends any bytes as a request to `uri` (a path and query) with `headers`: the answer's
    /// status and body bytes.
    pub async fn send_bytes(
        &self,
        method: &str,
        uri: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> (u16, Vec<u8>) {
        match &self.transport {
            Transport::InProcess(router) => {
                let mut request = Request::builder().method(method).uri(uri);
                for (name, value) in headers {
                    request = request.header(*name, value);
                }
                let request = request.body(Body::from(body)).expect("a valid request");
                let response = router.clone().oneshot(request).await.unwrap();
                let status = response.status().as_u16();
                (status, response.into_body().collect().await.unwrap().to_bytes().to_vec())
            }
            Transport::Http { base, client } => {
                let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
                let mut request = client.request(method, format!("{base}{uri}")).body(body);
                for (name, value) in headers {
                    request = request.header(*name, value);
                }
                let response = request.send().await.expect("the API answers");
                let status = response.status().as_u16();
                (status, response.bytes().await.unwrap().to_vec())
            }
        }
    }

    /// Sends `method` `path` (path and query) with `headers` and no body: the answer's status,
    /// every header and the body's bytes (a HEAD or 304 answer's empty body included).
    pub async fn exchange(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> Fetched {
        self.exchange_with(method, path, headers, Vec::new()).await
    }

    /// [`Api::exchange`] with a body.
    pub async fn exchange_with(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Fetched {
        let owned: Vec<(String, String)> =
            headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let url = match &self.transport {
            Transport::InProcess(_) => format!("{IN_PROCESS_BASE}{path}"),
            Transport::Http { base, .. } => format!("{base}{path}"),
        };
        self.fetch(method, &url, &owned, body).await
    }

    /// A GET of `path` on the API, its body as bytes (for answers that are not JSON); under
    /// `/actuator`, with its token when it requires one.
    pub async fn text(&self, path: &str) -> Fetched {
        let bearer = self
            .actuator_token()
            .filter(|_| path.starts_with("/actuator"))
            .map(|token| vec![("authorization".to_string(), format!("Bearer {token}"))]);
        match &self.transport {
            Transport::InProcess(router) => {
                let mut request = Request::builder().uri(path);
                for (name, value) in bearer.iter().flatten() {
                    request = request.header(name, value);
                }
                let request = request.body(Body::empty()).unwrap();
                let response = router.clone().oneshot(request).await.unwrap();
                let status = response.status().as_u16();
                let content_type = header_of(response.headers(), "content-type");
                let headers = headers_of(response.headers());
                let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
                Fetched { status, content_type, body, headers }
            }
            Transport::Http { base, .. } => {
                let headers = bearer.unwrap_or_default();
                self.fetch("GET", &format!("{base}{path}"), &headers, Vec::new()).await
            }
        }
    }

    /// The configured base URL of the API that documents (feeds, sitemaps) build their absolute
    /// URLs of the API with (`BLOG_PUBLIC_BASE_URL`; on the stack, the articles function's).
    pub fn origin(&self) -> String {
        match &self.stack {
            Some(stack) => {
                let articles = stack.function("ArticlesFunction").expect("the articles function");
                let environment = articles.config().environment;
                let base = environment.iter().find(|(name, _)| name == "BLOG_PUBLIC_BASE_URL");
                let base = base.expect("the articles function's BLOG_PUBLIC_BASE_URL").1.clone();
                base.trim_end_matches('/').to_string()
            }
            None => self.ctx.config.public_base_url.clone(),
        }
    }

    /// A GET of `path` whose answer is a document (a feed, a sitemap), as a client on the
    /// network sends it: in-process with the `Host` header of a network client.
    pub async fn document(&self, path: &str) -> Fetched {
        self.document_with(path, &[]).await
    }

    /// [`Api::document`] with `headers` (a `Host` among them replaces the client's own).
    pub async fn document_with(&self, path: &str, headers: &[(&str, &str)]) -> Fetched {
        match &self.transport {
            Transport::InProcess(router) => {
                let mut request = Request::builder().uri(path);
                if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
                    request = request.header("host", DOCUMENT_HOST);
                }
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                let response =
                    router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
                let status = response.status().as_u16();
                let content_type = header_of(response.headers(), "content-type");
                let headers = headers_of(response.headers());
                let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
                Fetched { status, content_type, body, headers }
            }
            Transport::Http { base, .. } => {
                let owned: Vec<(String, String)> =
                    headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                self.fetch("GET", &format!("{base}{path}"), &owned, Vec::new()).await
            }
        }
    }

    /// Sends a request with optional bearer token and JSON body.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut headers = vec![];
        let auth;
        if let Some(token) = token {
            auth = format!("Bearer {token}");
            headers.push(("authorization", auth.as_str()));
        }
        if body.is_some() {
            headers.push(("content-type", "application/json"));
        }
        self.raw(method, path, &headers, body.map(|b| b.to_string())).await
    }

    /// Sends a request with raw headers and body.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Reply {
        self.send_from(None, method, path, headers, body).await
    }

    /// Signs in as `username` from the client address `from` (a loopback address other than
    /// 127.0.0.1 over HTTP; the connection's peer address in-process).
    pub async fn login_from(&self, from: IpAddr, username: &str, password: &str) -> Reply {
        let body = serde_json::json!({ "username": username, "password": password });
        let headers = [("content-type", "application/json")];
        self.send_from(Some(from), "POST", "/api/v1/auth/login", &headers, Some(body.to_string()))
            .await
    }

    /// Registers `username` (with [`super::PASSWORD`] and `<username>@example.com`) from the
    /// client address `from`, as [`Api::login_from`] signs in.
    pub async fn register_from(&self, from: IpAddr, username: &str) -> Reply {
        let body = serde_json::json!({
            "username": username, "password": super::PASSWORD,
            "email": format!("{username}@example.com"),
        });
        let headers = [("content-type", "application/json")];
        let path = "/api/v1/auth/register";
        self.send_from(Some(from), "POST", path, &headers, Some(body.to_string())).await
    }

    async fn send_from(
        &self,
        from: Option<IpAddr>,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Reply {
        match &self.transport {
            Transport::InProcess(router) => {
                let mut request = Request::builder().method(method).uri(path);
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                if let Some(ip) = from {
                    request = request.extension(ConnectInfo(SocketAddr::new(ip, 50_000)));
                }
                let request =
                    request.body(body.map(Body::from).unwrap_or_else(Body::empty)).unwrap();
                let response = router.clone().oneshot(request).await.unwrap();
                let status = response.status().as_u16();
                let headers = response
                    .headers()
                    .iter()
                    .map(|(k, v)| {
                        (k.as_str().to_string(), v.to_str().unwrap_or_default().to_string())
                    })
                    .collect();
                let bytes = response.into_body().collect().await.unwrap().to_bytes();
                Reply {
                    status,
                    headers,
                    body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                }
            }
            Transport::Http { base, client } => {
                let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
                let client = match from {
                    Some(ip) => super::http_client_builder().local_address(ip).build().unwrap(),
                    None => client.clone(),
                };
                let mut request = client.request(method, format!("{base}{path}"));
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                if let Some(body) = body {
                    request = request.body(body);
                }
                let response = request.send().await.expect("gateway answers");
                let status = response.status().as_u16();
                let headers = response
                    .headers()
                    .iter()
                    .map(|(k, v)| {
                        (k.as_str().to_string(), v.to_str().unwrap_or_default().to_string())
                    })
                    .collect();
                let bytes = response.bytes().await.unwrap();
                Reply {
                    status,
                    headers,
                    body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                }
            }
        }
    }
}
