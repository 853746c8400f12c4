//! Who reads an article, for counting its views: the signed-in user, else the client address
//! and user agent; stored only as the digest in the key of a view's marker.

use axum::{
    extract::Request,
    http::header::{AUTHORIZATION, USER_AGENT},
};
use sha2::{Digest, Sha256};

use blog_core::{access::tokens::claimed_subject, http::extract::ClientAddress, ports::table::Key};

/// A reader: what tells one from another (never stored as such).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reader(String);

impl Reader {
    /// The reader of `request`: the user its bearer token names (the token's signature is not
    /// checked: the public function holds no signing key, and a forged subject buys nothing a
    /// forged user agent does not), else its client address (API Gateway's `sourceIp`, the TCP
    /// peer locally) and `User-Agent`.
    pub fn of(request: &Request) -> Self {
        let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
        let now = blog_core::ports::table::now_epoch_seconds();
        let token = header(AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        match token.and_then(|token| claimed_subject(token.trim(), now)) {
            Some(user) => Self::user(&user),
            None => Self::client(&ClientAddress::of(request.extensions()), header(USER_AGENT)),
        }
    }

    /// The signed-in user `id`.
    pub fn user(id: &str) -> Self {
        Self(format!("user\0{id}"))
    }

    /// An anonymous client: its address and user agent (absent and empty alike).
    pub fn client(address: &str, user_agent: Option<&str>) -> Self {
        Self(format!("client\0{address}\0{}", user_agent.unwrap_or_default()))
    }
}

/// The marker of `reader`'s view of the article `article_id`: `VIEWED#<digest>`/`VIEWED`, the
/// digest (128 bits of SHA-256) of both, so the table holds no address and no marker tells
/// whose it is or which article it counts.
pub fn marker(article_id: u64, reader: &Reader) -> Key {
    let hash = Sha256::digest(format!("view\0{article_id}\0{}", reader.0).as_bytes());
    let digest: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    Key::new(format!("VIEWED#{digest}"), "VIEWED")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)], peer: Option<&str>) -> Request {
        let mut builder = Request::builder().uri("/api/v1/articles/7");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        if let Some(peer) = peer {
            let address: std::net::SocketAddr = format!("{peer}:40000").parse().unwrap();
            builder = builder.extension(axum::extract::ConnectInfo(address));
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    fn token(sub: &str) -> String {
        let keys = blog_core::access::TokenKeys::new(b"k", std::time::Duration::from_secs(60));
        keys.issue(sub.parse().unwrap(), "someone", &[]).unwrap()
    }

    #[test]
    fn an_anonymous_reader_is_its_address_and_user_agent() {
        let of = |ua, peer| Reader::of(&request(&[("user-agent", ua)], Some(peer)));
        assert_eq!(of("Firefox", "192.0.2.1"), Reader::client("192.0.2.1", Some("Firefox")));
        assert_ne!(of("Firefox", "192.0.2.1"), of("Chrome", "192.0.2.1"));
        assert_ne!(of("Firefox", "192.0.2.1"), of("Firefox", "192.0.2.2"));
        // A forwarded-for header is no address.
        let forwarded = request(&[("x-forwarded-for", "203.0.113.9")], Some("192.0.2.1"));
        assert_eq!(Reader::of(&forwarded), Reader::client("192.0.2.1", None));
    }

    #[test]
    fn a_signed_in_reader_is_the_user_wherever_they_read_from() {
        let bearer = format!("Bearer {}", token("42"));
        let at_home =
            request(&[("authorization", &bearer), ("user-agent", "A")], Some("192.0.2.1"));
        let at_work =
            request(&[("authorization", &bearer), ("user-agent", "B")], Some("192.0.2.2"));
        assert_eq!(Reader::of(&at_home), Reader::user("42"));
        assert_eq!(Reader::of(&at_work), Reader::user("42"));
        let other = format!("Bearer {}", token("43"));
        assert_ne!(Reader::of(&request(&[("authorization", &other)], None)), Reader::user("42"));
        // What is no token reads as anonymous.
        let junk = request(&[("authorization", "Bearer junk"), ("user-agent", "A")], None);
        assert_eq!(Reader::of(&junk), Reader::client("unknown", Some("A")));
    }

    #[test]
    fn a_marker_keys_the_digest_of_the_article_and_reader_only() {
        let reader = Reader::client("192.0.2.1", Some("Firefox"));
        let key = marker(7, &reader);
        assert_eq!(key.sk, "VIEWED");
        assert_eq!(key.pk.len(), "VIEWED#".len() + 32);
        assert!(!key.pk.contains("192") && !key.pk.contains("Firefox"), "{key}");
        assert_eq!(marker(7, &reader), key);
        assert_ne!(marker(8, &reader), key);
        assert_ne!(marker(7, &Reader::user("7")), key);
    }
}
