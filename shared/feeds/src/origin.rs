//! Where a document is served, as an absolute URL: the feeds' self links and the sitemap
//! index's locations. The origin is the configured base URL of the API
//! ([`blog_core::config::Config::public_base_url`]), never a request header: `Host`,
//! `X-Forwarded-Host` and `Forwarded` are the client's to write, and a document a cache keeps
//! would carry another client's host to every reader.

use std::convert::Infallible;

use axum::{
    extract::{FromRef, FromRequestParts, OriginalUri},
    http::request::Parts,
};

use blog_core::context::AppContext;

/// The origin (`scheme://host[:port]`, with the API's base path if it has one) and the path a
/// request was made at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The configured base URL, without a trailing `/`.
    pub base: String,
    /// The path as requested (the area's base included).
    pub path: String,
}

impl Origin {
    /// The absolute URL of the request (without its query).
    pub fn url(&self) -> String {
        format!("{}{}", self.base, self.path)
    }

    /// The absolute URL of another path of the API.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The origin of a request for a path of the API at `base`; its headers play no part.
    pub fn of(parts: &Parts, base: &str) -> Origin {
        let path = match parts.extensions.get::<OriginalUri>() {
            Some(OriginalUri(original)) => original.path().to_string(),
            None => parts.uri.path().to_string(),
        };
        Origin { base: base.trim_end_matches('/').to_string(), path }
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
        Origin::of(&parts, "https://api.blog.example.com/")
    }

    #[test]
    fn the_configured_base_and_the_requested_path_make_the_url() {
        let feed = origin("/api/v1/feeds/rss.xml?x=1", &[]);
        assert_eq!(feed.url(), "https://api.blog.example.com/api/v1/feeds/rss.xml");
        assert_eq!(
            feed.at("/api/v1/sitemaps/pages.xml"),
            "https://api.blog.example.com/api/v1/sitemaps/pages.xml"
        );
    }

    #[test]
    fn no_request_header_changes_the_origin() {
        let forged = origin(
            "http://evil.example/api/v1/sitemap.xml",
            &[
                ("host", "evil.example"),
                ("x-forwarded-host", "evil.example"),
                ("x-forwarded-proto", "http"),
                ("forwarded", "host=evil.example;proto=http"),
            ],
        );
        assert_eq!(forged.url(), "https://api.blog.example.com/api/v1/sitemap.xml");
    }
}
