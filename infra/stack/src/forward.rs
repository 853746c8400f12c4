//! Forwarding a request unchanged to an upstream base URL: method, path and query, headers
//! with `Host` as the client sent it (SigV4 signatures cover it), body; only the hop-by-hop
//! headers (RFC 9110 §7.6.1) and those `Connection` names are dropped, both ways. The whole
//! request is read before the upstream is called, and the whole answer before it is returned.
//! hyper-util's pooled client rather than reqwest: it adds no default header (reqwest adds
//! `Accept`) and sends the path and query as given.

use anyhow::{bail, Context, Result};
use axum::{
    body::{Body, Bytes},
    http::{
        header, request::Parts, uri::PathAndQuery, HeaderMap, HeaderName, Method, Uri, Version,
    },
    response::Response,
};
use http_body_util::{BodyExt, Full};
use hyper_util::{
    client::legacy::{connect::HttpConnector, Client},
    rt::TokioExecutor,
};

/// Headers that concern one connection only; `expect` too, as the body is read already.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
];

/// A forwarder to one plain-HTTP upstream; cheap to clone (the connection pool is shared).
#[derive(Clone, Debug)]
pub struct Forwarder {
    client: Client<HttpConnector, Full<Bytes>>,
    base: Uri,
}

impl Forwarder {
    /// A forwarder to `upstream`, a base URL such as `http://127.0.0.1:8000` (no path).
    pub fn new(upstream: &str) -> Result<Self> {
        let base: Uri = upstream.parse().with_context(|| format!("upstream URL {upstream}"))?;
        let plain = base.scheme_str() == Some("http") && base.authority().is_some();
        if !plain || !matches!(base.path(), "" | "/") || base.query().is_some() {
            bail!("upstream {upstream} is not a plain http:// base URL");
        }
        Ok(Self { client: Client::builder(TokioExecutor::new()).build_http(), base })
    }

    /// Sends the request of `parts` and `body` upstream; its whole answer.
    pub async fn send(&self, mut parts: Parts, body: Bytes) -> Result<Response> {
        let path = parts.uri.path_and_query().cloned().unwrap_or(PathAndQuery::from_static("/"));
        let mut uri = self.base.clone().into_parts();
        uri.path_and_query = Some(path);
        parts.uri = Uri::from_parts(uri)?;
        parts.version = Version::HTTP_11;
        strip_hop_by_hop(&mut parts.headers);
        parts.headers.insert(header::CONTENT_LENGTH, body.len().into());
        let head = parts.method == Method::HEAD;
        let request = axum::http::Request::from_parts(parts, Full::new(body));
        let response = self.client.request(request).await.context("calling the upstream")?;
        let (mut parts, body) = response.into_parts();
        let body = body.collect().await.context("reading the upstream's answer")?.to_bytes();
        strip_hop_by_hop(&mut parts.headers);
        // A HEAD answer keeps its length (the object's: HeadObject reads it); others get the
        // one of the body as read.
        if !head {
            parts.headers.remove(header::CONTENT_LENGTH);
        }
        Ok(Response::from_parts(parts, Body::from(body)))
    }
}

/// Removes the hop-by-hop headers and those that `Connection` names.
pub fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    for name in named {
        headers.remove(name);
    }
}
