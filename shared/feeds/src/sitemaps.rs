//! Handlers of the sitemap: `/api/v1/sitemap.xml`, the whole site in one `<urlset>` up to the
//! per-file limit, else a `<sitemapindex>` of the files under `/api/v1/sitemaps/`.

use std::collections::BTreeSet;

use axum::{
    extract::{rejection::PathRejection, Path, State},
    http::header,
    response::{IntoResponse, Response},
};
use futures::try_join;

use blog_articles::ArticleErrors;
use blog_articles::{self as articles, ArticleError, ArticleErrorEnvelope, PublishedStamp};
use blog_core::http::responses::kinds::*;
use blog_core::{context::AppContext, http::Failure};
use blog_taxonomy::{self as taxonomy};

use super::{
    origin::Origin,
    sitemap::{self, article_range, file_of, File, Page},
    BASE, SITEMAP,
};

/// Pages of the sitemap (1,000 ids each) the one-file sitemap reads at most: with the bitmap
/// items beside them, a request reads fewer than 1,000 items. Published articles scattered over
/// more pages than this (more than 990,000 ids apart) are answered as an index, as past the
/// per-file limit.
const PAGES_READ: usize = 990;

fn xml(body: String) -> Response {
    ([(header::CONTENT_TYPE, SITEMAP)], body).into_response()
}

fn article_pages(ctx: &AppContext, stamps: Vec<PublishedStamp>) -> impl Iterator<Item = Page> + '_ {
    stamps.into_iter().map(|stamp| Page {
        loc: ctx.config.site.article(stamp.id),
        lastmod: sitemap::lastmod(&stamp.update_time),
    })
}

/// The index listing `pages.xml` and the range files `files`.
fn index(origin: &Origin, files: impl IntoIterator<Item = u64>) -> Response {
    let locs: Vec<String> = std::iter::once(File::Pages)
        .chain(files.into_iter().map(File::Articles))
        .map(|file| origin.at(&format!("{BASE}/sitemaps/{}", file.name())))
        .collect();
    xml(sitemap::index(&locs))
}

/// The sitemap of the public site (sitemaps.org 0.9).
///
/// Up to the per-file limit (`SitemapUrlsPerFile`, 50,000 at most): one `<urlset>` of the home
/// page, every category's and tag's page and every published article's page (`lastmod` its last
/// change). Past it: a `<sitemapindex>` of `sitemaps/pages.xml` and `sitemaps/articles-<k>.xml`
/// for each id range `[k·L+1, (k+1)·L]` that holds a published article, at absolute URLs of the
/// host the request was made to. The articles come from the sitemap's pages, which the worker
/// keeps (an article shows within seconds of its event): the bitmaps of the published ids
/// (one Query), then for one `<urlset>` the pages of 1,000 ids that hold any (at most 990).
#[utoipa::path(
    get,
    path = "/sitemap.xml",
    operation_id = "sitemap",
    tag = "feeds",
    responses(
        (status = 200, description = "A `<urlset>`, or past the per-file limit a `<sitemapindex>`",
            body = String, content_type = "application/xml; charset=utf-8"),
        ArticleErrors<Internal>,
    )
)]
pub async fn sitemap(
    State(ctx): State<AppContext>,
    origin: Origin,
) -> Result<Response, ArticleError> {
    let table = ctx.table.as_ref();
    let per_file = ctx.config.site.sitemap_urls_per_file;
    let (published, categories, tags) = try_join!(
        articles::published_ids(table),
        taxonomy::category_slugs(table),
        taxonomy::tag_slugs(table)
    )?;
    let mut pages = sitemap::site_pages(&ctx.config.site, categories, tags);
    let held = published.pages();
    if pages.len() as u64 + published.count() <= per_file as u64 && held.len() <= PAGES_READ {
        let stamps = articles::published_stamps_of_pages(table, &held).await?;
        if pages.len() + stamps.len() <= per_file {
            pages.extend(article_pages(&ctx, stamps));
            return Ok(xml(sitemap::urlset(&pages)));
        }
        // More were published than counted when the count was read: the files of those read.
        let files: BTreeSet<u64> = stamps.iter().map(|s| file_of(s.id, per_file)).collect();
        return Ok(index(&origin, files));
    }
    let files: BTreeSet<u64> = published.ids().map(|id| file_of(id, per_file)).collect();
    Ok(index(&origin, files))
}

/// A file of the sitemap index.
///
/// `pages.xml`: the home page and every category's and tag's page. `articles-<k>.xml`: every
/// published article whose id is in `[k·L+1, (k+1)·L]`, L the per-file limit. Every file answers
/// whether or not the sitemap is an index at the moment; a range that holds no published
/// article names no file (404).
#[utoipa::path(
    get,
    path = "/sitemaps/{file}",
    operation_id = "sitemapFile",
    tag = "feeds",
    params(("file" = String, Path, description = "`pages.xml` or `articles-<k>.xml` (k = 0, 1, ...)",
        pattern = r"^(pages|articles-(0|[1-9][0-9]*))\.xml$")),
    responses(
        (status = 200, description = "A `<urlset>`", body = String,
            content_type = "application/xml; charset=utf-8"),
        (status = 400, description = "Not a file name of the sitemap (PARAM_ERROR)",
            body = ArticleErrorEnvelope),
        (status = 404, description = "No published article in the file's id range (NOT_FOUND)",
            body = ArticleErrorEnvelope),
        ArticleErrors<Internal>,
    )
)]
pub async fn file(
    State(ctx): State<AppContext>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ArticleError> {
    let name = path.map(|Path(name)| name).unwrap_or_default();
    let file = File::parse(&name).map_err(Failure::Invalid)?;
    let table = ctx.table.as_ref();
    match file {
        File::Pages => {
            let (categories, tags) =
                try_join!(taxonomy::category_slugs(table), taxonomy::tag_slugs(table))?;
            Ok(xml(sitemap::urlset(&sitemap::site_pages(&ctx.config.site, categories, tags))))
        }
        File::Articles(k) => {
            let empty = || -> ArticleError {
                Failure::NotFound(format!(
                    "no sitemap file {}: its id range holds no published article",
                    file.name()
                ))
                .into()
            };
            let ids = article_range(k, ctx.config.site.sitemap_urls_per_file).ok_or_else(empty)?;
            let stamps = articles::published_stamps(table, ids).await?;
            if stamps.is_empty() {
                return Err(empty());
            }
            Ok(xml(sitemap::urlset(&article_pages(&ctx, stamps).collect::<Vec<_>>())))
        }
    }
}
