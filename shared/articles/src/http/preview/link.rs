//! What a preview link is made of: its token and the digest the table keys it by, the two
//! items that store it, the body that asks for one and the answer that shows it.

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use blog_core::{
    http::{docs::api_time, extract::parse_json, Failure},
    ports::table::{s, Condition, Key, Table, TableError},
    records,
};

use crate::{envelope::ArticleError, keys, model::ArticleHead};

/// Hours a link works when the request does not say.
pub const DEFAULT_HOURS: i64 = 24;
/// Hours a link may work at most (a week).
pub const MAX_HOURS: i64 = 168;
/// Random bytes of a token (256 bits).
const TOKEN_BYTES: usize = 32;
/// Characters of a token: [`TOKEN_BYTES`] in base64url without padding.
pub(super) const TOKEN_CHARS: usize = 43;
/// Attempts of a change that lost a race with another one on the same article's link.
pub(super) const ATTEMPTS: usize = 5;
/// The message of every 404 of the read: it says nothing about why.
pub(super) const NO_SUCH_LINK: &str = "no such preview link (unknown, expired or revoked)";
/// `X-Robots-Tag` of every answer of the read: a preview is kept out of search engines.
pub const ROBOTS: &str = "noindex";

/// The names of the writes whose refusal says why a link's transaction failed.
pub(super) const ARTICLE: &str = "article";
pub(super) const LIVE_LINK: &str = "live link";

/// A preview link as stored (`PREVIEW#<digest>` / `PREVIEW`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StoredLink {
    pub(super) article_id: u64,
    pub(super) created_by: u64,
    pub(super) created_at: String,
    /// Epoch seconds: the table's TTL attribute.
    pub(super) expires_at: i64,
}

/// The article's live link as stored (`ARTICLE#<id>` / `A#PREVIEW`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LiveLink {
    pub(super) digest: String,
    pub(super) created_at: String,
    /// Epoch seconds, the link's: the pointer expires with it.
    pub(super) expires_at: i64,
}

/// The optional body of `POST /{id}/preview`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticlePreviewInput)]
pub struct PreviewInput {
    /// Hours the link works, an integer from 1 to 168 (a week); 24 when absent or null.
    #[schema(minimum = 1, maximum = 168, default = 24)]
    expires_in_hours: Option<i64>,
}

/// A preview link, as made (the token is shown this once: the table keeps only its digest).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticlePreviewLink)]
pub struct PreviewLink {
    /// The link's token: 43 characters of base64url (256 random bits).
    #[schema(min_length = 43, max_length = 43, pattern = "^[A-Za-z0-9_-]{43}$")]
    pub(super) token: String,
    /// The API path that reads the article with it: `/api/v1/articles/preview/<token>`.
    pub(super) path: String,
    /// When it stops working (UTC).
    #[schema(schema_with = api_time)]
    pub(super) expires_at: String,
}

/// A fresh token from the operating system's generator.
pub(super) fn new_token() -> Result<String, ArticleError> {
    use rand::TryRngCore;
    let mut bytes = [0u8; TOKEN_BYTES];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|error| ArticleError::from(anyhow::anyhow!("reading random bytes: {error}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The digest the table keys a link by: SHA-256 of the token, hex; `None` for a string that is
/// no token (so a read of it makes no call).
pub(super) fn digest(token: &str) -> Option<String> {
    let well_formed = token.len() == TOKEN_CHARS
        && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    well_formed
        .then(|| Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
}

/// `expiresInHours` of `body`: absent (an empty or `null` body, no field, `null`) is
/// [`DEFAULT_HOURS`].
pub(super) fn hours(body: &[u8]) -> Result<i64, ArticleError> {
    let asked = match body.iter().all(u8::is_ascii_whitespace) {
        true => None,
        false => parse_json::<Option<PreviewInput>>(body)
            .map_err(Failure::Invalid)?
            .and_then(|input| input.expires_in_hours),
    };
    match asked.unwrap_or(DEFAULT_HOURS) {
        hours @ 1..=MAX_HOURS => Ok(hours),
        _ => Err(Failure::Invalid(format!(
            "expiresInHours must be an integer from 1 to {MAX_HOURS}"
        ))
        .into()),
    }
}

/// The article's head and its live link, in one BatchGetItem.
pub(super) async fn head_and_live_link(
    table: &dyn Table,
    id: u64,
) -> Result<(Option<ArticleHead>, Option<LiveLink>), TableError> {
    let (mut head, mut live) = (None, None);
    for item in table.get_many(&[keys::head(id), keys::live_preview(id)]).await? {
        match Key::of(&item).map(|key| key.sk) {
            Some(sk) if sk == keys::HEAD => head = Some(records::from_item(item)?),
            Some(sk) if sk == keys::PREVIEW => live = Some(records::from_item(item)?),
            _ => {}
        }
    }
    Ok((head, live))
}

/// The condition that the article's live link is still `live` as read (none: still none).
pub(super) fn still(live: &Option<LiveLink>) -> Condition {
    match live {
        Some(live) => Condition::equals("digest", s(&live.digest)),
        None => Condition::NotExists,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blog_core::ports::table::n;
    use blog_core::ports::table::TTL;

    #[test]
    fn a_token_is_43_characters_of_base64url_and_only_such_a_string_has_a_digest() {
        let token = new_token().unwrap();
        assert_eq!(token.len(), TOKEN_CHARS);
        assert_ne!(token, new_token().unwrap());
        let digest = digest(&token).unwrap();
        assert_eq!(digest.len(), 64, "SHA-256 in hex");
        assert!(!digest.contains(&token), "the table keeps no token");
        for not_a_token in ["", "7", &token[1..], &format!("{token}A"), &"é".repeat(43)] {
            assert_eq!(super::digest(not_a_token), None, "{not_a_token}");
        }
        let dashed = format!("{}-_", "A".repeat(41));
        assert_eq!(super::digest(&dashed).map(|d| d.len()), Some(64));
    }

    #[test]
    fn expires_in_hours_takes_an_integer_from_1_to_168_and_defaults_to_24() {
        assert_eq!(hours(b"").unwrap(), DEFAULT_HOURS);
        assert_eq!(hours(b"  ").unwrap(), DEFAULT_HOURS);
        assert_eq!(hours(b"null").unwrap(), DEFAULT_HOURS);
        assert_eq!(hours(b"{}").unwrap(), DEFAULT_HOURS);
        assert_eq!(hours(br#"{"expiresInHours":null}"#).unwrap(), DEFAULT_HOURS);
        assert_eq!(hours(br#"{"expiresInHours":1}"#).unwrap(), 1);
        assert_eq!(hours(br#"{"expiresInHours":168}"#).unwrap(), 168);
        for refused in ["0", "169", "-1", "1.5", "\"24\"", "true", "99999999999999999999"] {
            let body = format!(r#"{{"expiresInHours":{refused}}}"#);
            let error = hours(body.as_bytes()).unwrap_err().to_string();
            assert!(error.contains("expiresInHours"), "{refused}: {error}");
        }
    }

    #[test]
    fn a_link_expires_by_the_tables_ttl_and_its_keys_stay_out_of_the_detail() {
        let link = StoredLink {
            article_id: 7,
            created_by: 1,
            created_at: "2030-01-01T00:00:00".into(),
            expires_at: 1_893_542_400,
        };
        let item = records::to_item(&link, &keys::preview_link("ab")).unwrap();
        assert_eq!(item[TTL], n(1_893_542_400));
        assert_eq!(item["pk"], s("PREVIEW#ab"));
        let live = keys::live_preview(7);
        assert_eq!(live.pk, keys::partition(7));
        let in_detail = live.sk.as_str() >= keys::BODY && live.sk.as_str() <= keys::HEAD;
        assert!(!in_detail, "{} would be read with the detail", live.sk);
        assert!(!live.sk.starts_with(keys::REVISION_PREFIX));
    }
}
