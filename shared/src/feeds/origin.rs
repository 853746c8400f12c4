//! Where a request was made, as an absolute URL: the feeds' self links and the sitemap's
//! locations. API Gateway passes the host the client called in `Host` and its scheme in
//! `X-Forwarded-Proto`; without a usable host (a request made in-process) the configured
//! public base URL stands in.

use std::convert::Infallible;

use axum::{
    extract::{FromRef, FromRequestParts, OriginalUri},
    http::{header::HOST, request::Parts, uri::Authority},
};

use crate::context::AppContext;

/// The origin (`scheme://host[:port]`) and the path a request was made at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// `scheme://host[:port]`, without a trailing `/`.
    pub base: String,
    /// The path as requested (the area's base included).
    pub path: String,
}

impl Origin {
    /// The absolute URL of the request (without its query).
    pub fn url(&self) -> String {
        format!("{}{}", self.base, self.path)
    }

    /// The absolute URL of another path on the same origin.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The origin of a request with these headers, or `fallback`.
    pub fn of(parts: &Parts, fallback: &str) -> Origin {
        let host = parts
            .headers
            .get(HOST)
            .and_then(|value| value.to_str().ok())
            .or_else(|| parts.uri.authority().map(Authority::as_str))
            .and_then(|host| host.parse::<Authority>().ok())
            .filter(|host| !host.as_str().contains('@') && !host.host().is_empty());
        let scheme = parts
            .headers
            .get("x-forwarded-proto")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(',').next())
            .map(|scheme| scheme.trim().to_ascii_lowercase())
            .filter(|scheme| scheme == "http" || scheme == "https")
            .or_else(|| parts.uri.scheme_str().map(str::to_string))
            .unwrap_or_else(|| "http".into());
        let base = match host {
            Some(host) => format!("{scheme}://{host}"),
            None => fallback.trim_end_matches('/').to_string(),
        };
        let path = match parts.extensions.get::<OriginalUri>() {
            Some(OriginalUri(original)) => original.path().to_string(),
            None => parts.uri.path().to_string(),
        };
        Origin { base, path }
    }
}

impl<S> FromRequestParts<S> for Origin
where
    S: Send + Sync,
    AppContext: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Infallible> {
        let ctx = AppContext::from_ref(state);
        Ok(Origin::of(parts, &ctx.config.public_base_url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn origin(uri: &str, headers: &[(&str, &str)]) -> Origin {
        let mut request = Request::builder().uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let (parts, ()) = request.body(()).unwrap().into_parts();
        Origin::of(&parts, "http://127.0.0.1:3000/")
    }

    #[test]
    fn api_gateways_host_and_scheme_make_the_origin() {
        let behind = origin(
            "/api/v1/feeds/rss.xml?x=1",
            &[("host", "abc.execute-api.eu-west-1.amazonaws.com"), ("x-forwarded-proto", "https")],
        );
        assert_eq!(
            behind.url(),
            "https://abc.execute-api.eu-west-1.amazonaws.com/api/v1/feeds/rss.xml"
        );
        let local = origin("/api/v1/sitemap.xml", &[("host", "127.0.0.1:8080")]);
        assert_eq!(
            local.at("/api/v1/sitemaps/pages.xml"),
            "http://127.0.0.1:8080/api/v1/sitemaps/pages.xml"
        );
    }

    #[test]
    fn a_missing_or_unusable_host_falls_back_to_the_public_base_url() {
        assert_eq!(origin("/a", &[]).url(), "http://127.0.0.1:3000/a");
        assert_eq!(origin("/a", &[("host", "evil@example.com")]).base, "http://127.0.0.1:3000");
        assert_eq!(origin("/a", &[("host", "bad host")]).base, "http://127.0.0.1:3000");
        let odd_scheme = origin("/a", &[("host", "h.example"), ("x-forwarded-proto", "gopher")]);
        assert_eq!(odd_scheme.base, "http://h.example");
    }
}
