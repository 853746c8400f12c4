//! Preview links: an administrator makes a link to an article's current text
//! (`POST /api/v1/admin/articles/{id}/preview`, `expiresInHours` 1-168, default 24) and can
//! revoke it (`DELETE .../preview`); anyone holding the link reads the article's detail,
//! whatever its status, through `GET /api/v1/articles/preview/{token}` until it expires.
//!
//! The token is 256 bits from the operating system's generator, base64url (43 characters); the
//! table holds only its SHA-256 digest, so a copy of the table opens no preview. A link is two
//! items: `PREVIEW#<digest>` / `PREVIEW` (the article's id, who made it and when, `expiresAt`:
//! the table's TTL), which the read finds with one GetItem, and `ARTICLE#<id>` / `A#PREVIEW`
//! (the digest of the article's live link, the same `expiresAt`), through which a new link
//! revokes the one before it (one live link per article) and `DELETE` finds it. Both are
//! written in one transaction conditioned on the link it replaces, so concurrent requests leave
//! one live link, never an orphan. The read answers every failure alike (404, `NOT_FOUND`): an
//! unknown, malformed, expired or revoked token and a link to a deleted article cannot be told
//! apart; every answer of the route says `Cache-Control: no-store` and `X-Robots-Tag: noindex`
//! ([`private`]), which also keeps it out of the kept answers (their allow-list of headers) and
//! of every cache; it counts no view (the views layer counts `GET /api/v1/articles/<id>` only).

use axum::{
    body::Bytes,
    extract::{rejection::PathRejection, Path, State},
    http::{header::CACHE_CONTROL, HeaderName, HeaderValue},
    response::Response,
};
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        caching::NO_STORE,
        docs::{api_time, IdParam, Null},
        extract::{parse_json, PathId},
        Failure,
    },
    ports::table::{n, refused_by, s, Condition, Key, Table, TableError, Transaction, Write},
    records,
};
use blog_users::principal::AdminOnly;

use crate::envelope::ArticleErrors;
use crate::{
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleFault,
        ArticleOk,
    },
    keys,
    model::{ArticleHead, Detail},
    read, BASE,
};

/// Hours a link works when the request does not say.
pub const DEFAULT_HOURS: i64 = 24;
/// Hours a link may work at most (a week).
pub const MAX_HOURS: i64 = 168;
/// Random bytes of a token (256 bits).
const TOKEN_BYTES: usize = 32;
/// Characters of a token: [`TOKEN_BYTES`] in base64url without padding.
const TOKEN_CHARS: usize = 43;
/// Attempts of a change that lost a race with another one on the same article's link.
const ATTEMPTS: usize = 5;
/// The message of every 404 of the read: it says nothing about why.
const NO_SUCH_LINK: &str = "no such preview link (unknown, expired or revoked)";
/// `X-Robots-Tag` of every answer of the read: a preview is kept out of search engines.
pub const ROBOTS: &str = "noindex";

/// The names of the writes whose refusal says why a link's transaction failed.
const ARTICLE: &str = "article";
const LIVE_LINK: &str = "live link";

/// A preview link as stored (`PREVIEW#<digest>` / `PREVIEW`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredLink {
    article_id: u64,
    created_by: u64,
    created_at: String,
    /// Epoch seconds: the table's TTL attribute.
    expires_at: i64,
}

/// The article's live link as stored (`ARTICLE#<id>` / `A#PREVIEW`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LiveLink {
    digest: String,
    created_at: String,
    /// Epoch seconds, the link's: the pointer expires with it.
    expires_at: i64,
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
    token: String,
    /// The API path that reads the article with it: `/api/v1/articles/preview/<token>`.
    path: String,
    /// When it stops working (UTC).
    #[schema(schema_with = api_time)]
    expires_at: String,
}

/// A fresh token from the operating system's generator.
fn new_token() -> Result<String, ArticleError> {
    use rand::TryRngCore;
    let mut bytes = [0u8; TOKEN_BYTES];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|error| ArticleError::from(anyhow::anyhow!("reading random bytes: {error}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The digest the table keys a link by: SHA-256 of the token, hex; `None` for a string that is
/// no token (so a read of it makes no call).
fn digest(token: &str) -> Option<String> {
    let well_formed = token.len() == TOKEN_CHARS
        && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    well_formed
        .then(|| Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
}

/// `expiresInHours` of `body`: absent (an empty or `null` body, no field, `null`) is
/// [`DEFAULT_HOURS`].
fn hours(body: &[u8]) -> Result<i64, ArticleError> {
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
async fn head_and_live_link(
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
fn still(live: &Option<LiveLink>) -> Condition {
    match live {
        Some(live) => Condition::equals("digest", s(&live.digest)),
        None => Condition::NotExists,
    }
}

/// Makes a preview link to an article in any status (administrators); any earlier link of the
/// article stops working.
///
/// The link reads the article's current text, as the public detail shows it, through
/// `GET /api/v1/articles/preview/{token}` until `expiresAt`, also after the article is
/// published; revoke it with `DELETE`. The token is shown only in this answer.
#[utoipa::path(
    post,
    path = "/{id}/preview",
    operation_id = "createArticlePreview",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body(content = Option<PreviewInput>, description = "Optional: how long the link \
        works (24 hours without a body)"),
    responses(
        (status = 200, description = "The new link; the article's earlier one is revoked",
            body = Envelope<PreviewLink>),
        (status = 400, description = "A bad id or body, or `expiresInHours` not an integer from \
            1 to 168 (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        (status = 409, description = "Its link kept changing under concurrent requests \
            (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn create(
    State(ctx): State<AppContext>,
    AdminOnly(admin, ..): AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
    body: Bytes,
) -> Result<ArticleOk<PreviewLink>, ArticleError> {
    let hours = hours(&body)?;
    let table = ctx.table.as_ref();
    let token = new_token()?;
    let digest = digest(&token).ok_or_else(|| anyhow::anyhow!("a token of the wrong shape"))?;
    let now: DateTime<Utc> = Utc::now();
    let expires = now + Duration::hours(hours);
    let link = StoredLink {
        article_id: id,
        created_by: admin.id,
        created_at: blog_core::time::format(now),
        expires_at: expires.timestamp(),
    };
    let live = LiveLink {
        digest: digest.clone(),
        created_at: link.created_at.clone(),
        expires_at: link.expires_at,
    };
    for _ in 0..ATTEMPTS {
        let (head, before) = head_and_live_link(table, id).await?;
        head.filter(|h| !h.is_deleted).ok_or(ArticleFault::ArticleNotFound)?;
        let not_deleted = Condition::NotEquals("isDeleted".into(), n(1));
        let mut writes = Transaction::new()
            .with(ARTICLE, Write::Check { key: keys::head(id), condition: not_deleted })
            .with(
                "link",
                Write::Put {
                    item: records::to_item(&link, &keys::preview_link(&digest))?,
                    condition: Some(Condition::NotExists),
                },
            )
            .with(
                LIVE_LINK,
                Write::Put {
                    item: records::to_item(&live, &keys::live_preview(id))?,
                    condition: Some(still(&before)),
                },
            );
        if let Some(before) = &before {
            let key = keys::preview_link(&before.digest);
            writes.push("revoked link", Write::Delete { key, condition: None });
        }
        match writes.commit(table).await {
            Ok(()) => {
                let answer = PreviewLink {
                    path: format!("{BASE}/preview/{token}"),
                    token,
                    expires_at: blog_core::time::format(expires),
                };
                // Never the token: it opens the article.
                let revoked = before.is_some();
                let expires_at = &answer.expires_at;
                tracing::info!(article_id = id, admin_id = admin.id, revoked, %expires_at,
                    "preview link created");
                return Ok(ArticleOk::ok(answer).saying("preview link created"));
            }
            Err(error) if refused_by(&error, ARTICLE) => {
                return Err(ArticleFault::ArticleNotFound.into())
            }
            Err(error) if refused_by(&error, LIVE_LINK) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(ArticleFault::VersionConflict.into())
}

/// Revokes an article's preview link (administrators); an article without one is left as it
/// is.
#[utoipa::path(
    delete,
    path = "/{id}/preview",
    operation_id = "revokeArticlePreview",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The article has no working preview link (any more)",
            body = Envelope<Null>),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        (status = 409, description = "Its link kept changing under concurrent requests \
            (VERSION_CONFLICT)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn revoke(
    State(ctx): State<AppContext>,
    AdminOnly(admin, ..): AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
) -> Result<ArticleOk<()>, ArticleError> {
    let table = ctx.table.as_ref();
    for _ in 0..ATTEMPTS {
        let (head, live) = head_and_live_link(table, id).await?;
        head.filter(|h| !h.is_deleted).ok_or(ArticleFault::ArticleNotFound)?;
        let Some(live) = live else { return Ok(ArticleOk::ok(())) };
        let still_live = Some(Condition::equals("digest", s(&live.digest)));
        let writes = Transaction::new()
            .with(LIVE_LINK, Write::Delete { key: keys::live_preview(id), condition: still_live })
            .with(
                "revoked link",
                Write::Delete { key: keys::preview_link(&live.digest), condition: None },
            );
        match writes.commit(table).await {
            Ok(()) => {
                tracing::info!(article_id = id, admin_id = admin.id, "preview link revoked");
                return Ok(ArticleOk::ok(()));
            }
            Err(error) if refused_by(&error, LIVE_LINK) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(ArticleFault::VersionConflict.into())
}

/// Adds `Cache-Control: no-store` and `X-Robots-Tag: noindex` to every answer of the read,
/// its 404s included: no cache keeps a preview, no search engine lists one.
pub async fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(NO_STORE));
    headers.insert(HeaderName::from_static("x-robots-tag"), HeaderValue::from_static(ROBOTS));
    response
}

/// An article through its preview link: the detail `GET /api/v1/articles/{id}` answers, in any
/// status (a draft's `publishTime` is `null`), until the link expires or is revoked.
///
/// One GetItem (the link), then the detail's one Query. Counts no view. Every answer says
/// `Cache-Control: no-store` and `X-Robots-Tag: noindex`.
#[utoipa::path(
    get,
    path = "/preview/{token}",
    operation_id = "getArticlePreview",
    tag = "articles",
    params(("token" = String, Path, description = "The link's token (43 characters of \
        base64url), as `POST /api/v1/admin/articles/{id}/preview` answered it")),
    responses(
        (status = 200, description = "The article the link was made for, in any status",
            body = Envelope<Detail>, headers(
                ("Cache-Control" = String, description = "`no-store`"),
                ("X-Robots-Tag" = String, description = "`noindex`"),
            )),
        (status = 404, description = "No such link: unknown, malformed, expired or revoked, or \
            its article was deleted; all alike (NOT_FOUND)", body = Error, headers(
                ("Cache-Control" = String, description = "`no-store`"),
                ("X-Robots-Tag" = String, description = "`noindex`"),
            )),
        ArticleErrors<Internal>,
    )
)]
pub async fn read(
    State(ctx): State<AppContext>,
    token: Result<Path<String>, PathRejection>,
) -> Result<ArticleOk<Detail>, ArticleError> {
    let not_found = || ArticleError::from(Failure::NotFound(NO_SUCH_LINK.into()));
    // A segment that does not decode to UTF-8 is no token either.
    let Some(digest) = token.ok().and_then(|Path(token)| digest(&token)) else {
        return Err(not_found());
    };
    let table = ctx.table.as_ref();
    let Some(item) = table.get(&keys::preview_link(&digest)).await? else {
        return Err(not_found());
    };
    let link: StoredLink = records::from_item(item)?;
    // The table hides an expired item already; the time is checked here too.
    if link.expires_at <= Utc::now().timestamp() {
        return Err(not_found());
    }
    match read::load(table, link.article_id).await? {
        Some((head, body)) if !head.is_deleted => Ok(ArticleOk::ok(Detail::new(&head, body))),
        _ => Err(not_found()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
