//! Articles: the admin lifecycle, the content pipeline and the public reads, in rooms by role:
//! `http/` (the handlers of both areas, their inputs, answers and envelope, and the write paths
//! they run: compose, update, lifecycle, revisions, search), `store/` (keys, records, reads, the
//! transaction of a change, what other features read), `worker/` (the follow-ups of the queue's
//! events, related articles, the sitemap's pages, notifications, scheduled publishing),
//! `search/` (the search index: what it holds, where it is stored, how it is kept and loaded),
//! `content/` (the Markdown pipeline) and `views/` (reader statistics).

mod http;
pub mod search;
pub mod store;
pub mod worker;

pub mod content;
pub mod views;

// Each module of the rooms at the crate's root, where the rest of the crate and the other
// crates name it.
use http::{
    admin, admin_reads, compose, input, lifecycle, paging, preview, public, response, update,
};
pub use http::{envelope, revisions};
use store::{keys, published, reactions};
pub use store::{maintenance, model, read};
pub use worker::{authors, events, followup, related, sitemap_pages};
use worker::{notify, schedule};

use std::sync::Arc;

pub use authors::{AuthorEffects, AuthorRename, WhenAnAuthorIsRenamed};
pub use content::render_comment;
pub use envelope::{ArticleError, ArticleErrorEnvelope, ArticleErrors};
pub use model::Page;
pub use paging::Paging;
pub use published::{
    latest_published, published_ids, published_stamps, published_stamps_of_pages, Listing,
    PublishedArticle, PublishedIds, PublishedStamp,
};
pub use reactions::{
    counter_add, counter_while, reaction_target, ReactionTarget, COMMENT_COUNT, LIKE_COUNT,
};
pub use schedule::{publish_due, run_local as run_local_schedule};

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs, WithPort},
    context::AppContext,
    http::caching,
    ports::events::EventQueue,
};

/// Base path of the public area.
pub const BASE: &str = "/api/v1/articles";
/// Base path of the public area's pages of a tag or category, which sit beside the taxonomy's
/// reads by slug (`/tags/slug/{slug}/articles`, `/categories/slug/{slug}/articles`).
const BY_SLUG_BASE: &str = "/api/v1";
/// Base path of the search (`/api/v1/search`).
const SEARCH_BASE: &str = "/api/v1";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/articles";

/// The public reads and the search, anonymous (functions/articles): the search index is an
/// object of the bucket, and semantic search embeds the query.
pub const PUBLIC: Area = Area::of::<PublicEndpoints>(
    "articles",
    "Published articles and their search, anonymous (envelope: `code` 200, `errorCode` on errors)",
    Needs { blobs: true, embedder: true, ..Needs::PUBLIC },
);

/// The article lifecycle for administrators (functions/admin-articles).
pub const ADMIN: Area = Area::of::<AdminEndpoints>(
    "admin-articles",
    "Article lifecycle for administrators (same envelope as articles)",
    Needs::TOKENS_AND_EVENTS,
);

/// The worker's state: the context, the embedder that follow-ups need, the search index it
/// keeps and what follows an author's rename elsewhere.
pub type Embedding = WithPort<WorkerPorts>;

/// What the worker takes when it starts.
#[derive(Clone)]
pub struct WorkerPorts {
    /// The embedder of the follow-ups.
    pub embedder: Arc<dyn blog_core::ports::embedder::Embedder>,
    /// The search index, kept in the bucket.
    pub search: Arc<search::IndexKeeper>,
    /// What follows an author's rename beside the articles' heads.
    pub authors: AuthorEffects,
}

impl blog_core::area::Port for WorkerPorts {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        Ok(Self {
            embedder: ctx.require_embedder()?,
            search: Arc::new(search::IndexKeeper::new(ctx.require_blobs()?)),
            authors: ctx.require_effect()?,
        })
    }
}

/// The public area's state: the context and what it searches with.
pub type Reading = WithPort<search::Searching>;

/// The public reads.
pub struct PublicEndpoints;

impl Endpoints for PublicEndpoints {
    type State = Reading;

    fn routes() -> OpenApiRouter<Reading> {
        let routes = OpenApiRouter::new()
            .routes(routes!(public::list))
            .routes(routes!(public::detail))
            .routes(routes!(public::related));
        let by_slug = OpenApiRouter::new()
            .routes(routes!(public::by_tag))
            .routes(routes!(public::by_category));
        let search = OpenApiRouter::new().routes(routes!(http::search::search));
        // Not a public read: no cache keeps it, no search engine lists it (every answer says
        // so), and it counts no view.
        let preview = OpenApiRouter::new()
            .routes(routes!(preview::read))
            .route_layer(axum::middleware::map_response(preview::private));
        OpenApiRouter::new()
            .nest(BASE, caching::public_reads(routes).merge(preview))
            .nest(BY_SLUG_BASE, caching::public_reads(by_slug))
            .nest(SEARCH_BASE, caching::public_reads(search))
    }

    /// Every answer but a preview's is a public read's: kept while the table is unchanged; the
    /// HTTP caching outside; a detail read counts its view outside both, seeing the reader's
    /// answer: a kept answer counts, a revalidated read (304) does not. A preview's answers
    /// carry headers the kept answers never keep and no tag, and count no view.
    fn layer(router: axum::Router<Reading>, ctx: &Reading) -> axum::Router<Reading> {
        let reused = blog_core::http::answers::reused(router, ctx);
        views::counted(caching::conditional(reused, ctx.config.public_cache_max_age), ctx)
    }
}

/// The administration's state: the context and the queue that publishing sends events to.
pub type Publishing = WithPort<Arc<dyn EventQueue>>;

/// The administration.
pub struct AdminEndpoints;

impl Endpoints for AdminEndpoints {
    type State = Publishing;

    fn routes() -> OpenApiRouter<Publishing> {
        let routes = OpenApiRouter::new()
            .routes(routes!(admin_reads::list, admin::create))
            .routes(routes!(admin_reads::detail, update::update, admin::delete))
            .routes(routes!(admin::publish))
            .routes(routes!(admin::archive))
            .routes(routes!(admin::unarchive))
            .routes(routes!(schedule::schedule, schedule::unschedule))
            .routes(routes!(revisions::list))
            .routes(routes!(revisions::detail))
            .routes(routes!(revisions::restore))
            .routes(routes!(preview::create, preview::revoke));
        OpenApiRouter::new().nest(ADMIN_BASE, routes)
    }
}
