//! Handlers of the feeds: `/api/v1/feeds/rss.xml`, `/atom.xml`, and the same of a category or a
//! tag by slug (`/feeds/categories/{slug}/rss.xml`, ...).

use axum::{
    extract::{rejection::PathRejection, Path, State},
    http::header,
    response::{IntoResponse, Response},
};
use futures::try_join;

use blog_articles::ArticleErrors;
use blog_articles::{
    self as articles, ArticleError, ArticleErrorEnvelope, Listing, PublishedArticle,
};
use blog_core::http::responses::kinds::*;
use blog_core::{context::AppContext, http::Failure};
use blog_taxonomy::{self as taxonomy};

use super::{
    origin::Origin,
    render::{self, FeedHead},
    ATOM, FEED_SIZE, RSS,
};

/// Which feed format.
#[derive(Clone, Copy)]
enum Format {
    Rss,
    Atom,
}

/// Which articles a feed shows.
enum Scope {
    All,
    Category(String),
    Tag(String),
}

/// `Last-Modified`: the HTTP date of an instant.
fn http_date(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// A 404 naming the slug nobody holds (cut short: it comes from the path).
fn missing(kind: &str, slug: &str) -> ArticleError {
    let slug: String = slug.chars().take(60).collect();
    Failure::NotFound(format!("no {kind} has the slug `{slug}`")).into()
}

/// The slug of the path; a segment that does not decode to UTF-8 names no slug (empty).
fn slug(path: Result<Path<String>, PathRejection>) -> String {
    path.map(|Path(slug)| slug).unwrap_or_default()
}

/// Reads the feed's articles and writes it. Category and tag feeds read the slug's marker,
/// then the name together with the articles: three round trips; the whole blog two.
async fn feed(
    ctx: &AppContext,
    origin: &Origin,
    scope: Scope,
    format: Format,
) -> Result<Response, ArticleError> {
    let site = &ctx.config.site;
    let table = ctx.table.as_ref();
    let (title, page, articles): (String, String, Vec<PublishedArticle>) = match scope {
        Scope::All => {
            let articles = articles::latest_published(table, Listing::All, FEED_SIZE).await?;
            (site.title.clone(), site.home(), articles)
        }
        Scope::Category(slug) => {
            let id = taxonomy::category_id_by_slug(table, &slug)
                .await?
                .ok_or_else(|| missing("category", &slug))?;
            let (name, articles) = try_join!(
                taxonomy::category_name(table, id),
                articles::latest_published(table, Listing::Category(id), FEED_SIZE)
            )?;
            let name = name.ok_or_else(|| missing("category", &slug))?;
            (format!("{}: {name}", site.title), site.category(&slug), articles)
        }
        Scope::Tag(slug) => {
            let id = taxonomy::tag_id_by_slug(table, &slug)
                .await?
                .ok_or_else(|| missing("tag", &slug))?;
            let (name, articles) = try_join!(
                taxonomy::tag_name(table, id),
                articles::latest_published(table, Listing::Tag(id), FEED_SIZE)
            )?;
            let name = name.ok_or_else(|| missing("tag", &slug))?;
            (format!("{}: #{name}", site.title), site.tag(&slug), articles)
        }
    };
    let head = FeedHead { site, title, page, self_link: origin.url() };
    let (content_type, body) = match format {
        Format::Rss => (RSS, render::rss(&head, &articles, render::HTML_BUDGET)),
        Format::Atom => (ATOM, render::atom(&head, &articles, render::HTML_BUDGET)),
    };
    let mut response = ([(header::CONTENT_TYPE, content_type)], body).into_response();
    if let Some(newest) = render::newest_update(&articles) {
        if let Ok(value) = http_date(newest).parse() {
            response.headers_mut().insert(header::LAST_MODIFIED, value);
        }
    }
    Ok(response)
}

/// RSS 2.0 feed of the latest published articles.
///
/// The 20 latest by first publication (pinned ones take no precedence), each with its title,
/// link and guid (the article's page), dates, author (`dc:creator`), category and tag names,
/// summary (`description`) and sanitised HTML (`content:encoded`; the newest first, within
/// 4 MB of HTML: later items carry their summary only). `Last-Modified` is the newest change.
#[utoipa::path(
    get,
    path = "/feeds/rss.xml",
    operation_id = "rssFeed",
    tag = "feeds",
    responses(
        (status = 200, description = "RSS 2.0 document", body = String, content_type = "application/rss+xml; charset=utf-8"),
        ArticleErrors<Internal>,
    )
)]
pub async fn rss(State(ctx): State<AppContext>, origin: Origin) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::All, Format::Rss).await
}

/// Atom 1.0 feed of the latest published articles.
///
/// The same entries as the RSS feed: `id` and alternate link the article's page, `published`,
/// `updated`, author, categories, `summary` and `content` of type `html` (within the same
/// budget). `Last-Modified` is the newest change.
#[utoipa::path(
    get,
    path = "/feeds/atom.xml",
    operation_id = "atomFeed",
    tag = "feeds",
    responses(
        (status = 200, description = "Atom 1.0 document", body = String, content_type = "application/atom+xml; charset=utf-8"),
        ArticleErrors<Internal>,
    )
)]
pub async fn atom(State(ctx): State<AppContext>, origin: Origin) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::All, Format::Atom).await
}

/// RSS 2.0 feed of a category's latest published articles.
#[utoipa::path(
    get,
    path = "/feeds/categories/{slug}/rss.xml",
    operation_id = "categoryRssFeed",
    tag = "feeds",
    params(("slug" = String, Path, description = "The category's slug")),
    responses(
        (status = 200, description = "RSS 2.0 document", body = String, content_type = "application/rss+xml; charset=utf-8"),
        (status = 404, description = "No category has this slug (NOT_FOUND)", body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn category_rss(
    State(ctx): State<AppContext>,
    origin: Origin,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::Category(slug(path)), Format::Rss).await
}

/// Atom 1.0 feed of a category's latest published articles.
#[utoipa::path(
    get,
    path = "/feeds/categories/{slug}/atom.xml",
    operation_id = "categoryAtomFeed",
    tag = "feeds",
    params(("slug" = String, Path, description = "The category's slug")),
    responses(
        (status = 200, description = "Atom 1.0 document", body = String, content_type = "application/atom+xml; charset=utf-8"),
        (status = 404, description = "No category has this slug (NOT_FOUND)", body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn category_atom(
    State(ctx): State<AppContext>,
    origin: Origin,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::Category(slug(path)), Format::Atom).await
}

/// RSS 2.0 feed of the latest published articles carrying a tag.
#[utoipa::path(
    get,
    path = "/feeds/tags/{slug}/rss.xml",
    operation_id = "tagRssFeed",
    tag = "feeds",
    params(("slug" = String, Path, description = "The tag's slug")),
    responses(
        (status = 200, description = "RSS 2.0 document", body = String, content_type = "application/rss+xml; charset=utf-8"),
        (status = 404, description = "No tag has this slug (NOT_FOUND)", body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn tag_rss(
    State(ctx): State<AppContext>,
    origin: Origin,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::Tag(slug(path)), Format::Rss).await
}

/// Atom 1.0 feed of the latest published articles carrying a tag.
#[utoipa::path(
    get,
    path = "/feeds/tags/{slug}/atom.xml",
    operation_id = "tagAtomFeed",
    tag = "feeds",
    params(("slug" = String, Path, description = "The tag's slug")),
    responses(
        (status = 200, description = "Atom 1.0 document", body = String, content_type = "application/atom+xml; charset=utf-8"),
        (status = 404, description = "No tag has this slug (NOT_FOUND)", body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn tag_atom(
    State(ctx): State<AppContext>,
    origin: Origin,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ArticleError> {
    feed(&ctx, &origin, Scope::Tag(slug(path)), Format::Atom).await
}
