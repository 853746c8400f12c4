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
use chrono::{DateTime, Duration, Utc};

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        caching::NO_STORE,
        docs::{IdParam, Null},
        extract::PathId,
        Failure,
    },
    ports::table::{n, refused_by, s, Condition, Transaction, Write},
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
    model::Detail,
    read, BASE,
};

mod link;

use link::*;
pub use link::{PreviewInput, PreviewLink, ROBOTS};

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
