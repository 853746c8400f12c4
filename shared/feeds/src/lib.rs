//! Feeds and the sitemap: RSS 2.0 and Atom feeds of the latest published articles (the whole
//! blog, a category, a tag) and the sitemap of the public site (sitemaps.org 0.9), anonymous,
//! served by the articles function. They read articles and categories and tags only through
//! what those features export at their root (`articles::latest_published`, the taxonomy's slug
//! lookups), and point readers to the frontend's pages (`config::Site`). Errors answer in the
//! articles envelope.

mod handlers;
mod origin;
mod render;
mod sitemap;
mod sitemaps;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs},
    context::AppContext,
    http::caching,
};

pub use origin::Origin;

/// Base path of the area: the feeds are under `/feeds`, the sitemap at `/sitemap.xml` and its
/// files under `/sitemaps/`.
pub const BASE: &str = "/api/v1";

/// Content type of the RSS feeds.
pub const RSS: &str = "application/rss+xml; charset=utf-8";
/// Content type of the Atom feeds.
pub const ATOM: &str = "application/atom+xml; charset=utf-8";
/// Content type of the sitemap and its files.
pub const SITEMAP: &str = "application/xml; charset=utf-8";

/// Articles in a feed.
pub const FEED_SIZE: usize = 20;

/// The feeds and the sitemap, anonymous (functions/articles).
pub const AREA: Area = Area::of::<FeedEndpoints>(
    "feeds",
    "RSS and Atom feeds of the latest published articles and the sitemap of the public site, \
     anonymous (XML; errors in the articles envelope)",
    Needs::PUBLIC,
);

/// The feeds and the sitemap.
pub struct FeedEndpoints;

impl Endpoints for FeedEndpoints {
    type State = AppContext;

    /// Not behind the kept answers: the self links and the sitemap's locations follow the
    /// request's host, which the kept answers do not tell apart. Cached public reads (HTTP
    /// caching): the entity tag is the body's, so it follows the host too.
    fn routes() -> OpenApiRouter<AppContext> {
        let routes = OpenApiRouter::new()
            .routes(routes!(handlers::rss))
            .routes(routes!(handlers::atom))
            .routes(routes!(handlers::category_rss))
            .routes(routes!(handlers::category_atom))
            .routes(routes!(handlers::tag_rss))
            .routes(routes!(handlers::tag_atom))
            .routes(routes!(sitemaps::sitemap))
            .routes(routes!(sitemaps::file));
        OpenApiRouter::new().nest(BASE, caching::public_reads(routes))
    }

    /// Conditional requests and freshness, as every public read.
    fn layer(router: axum::Router<AppContext>, ctx: &AppContext) -> axum::Router<AppContext> {
        caching::conditional(router, ctx.config.public_cache_max_age)
    }
}
