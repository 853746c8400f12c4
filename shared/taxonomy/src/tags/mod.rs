//! Tags: the public lists and slug lookup, and their administration.

mod handlers;
pub mod model;
pub mod repo;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs},
    http::caching,
};

/// Base path of the public area.
pub const BASE: &str = "/api/v1/tags";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/tags";

/// Public reads and administration (functions/tags).
pub const AREA: Area = Area::of::<TagsEndpoints>(
    "tags",
    "Tag lists and administration (same envelope as categories)",
    Needs::TOKENS,
);

/// The tags area's endpoints.
pub struct TagsEndpoints;

impl Endpoints for TagsEndpoints {
    type State = crate::TaxonomyState;

    fn routes() -> OpenApiRouter<crate::TaxonomyState> {
        let public = OpenApiRouter::new()
            .routes(routes!(handlers::list))
            .routes(routes!(handlers::hot))
            .routes(routes!(handlers::by_slug));
        let admin = OpenApiRouter::new()
            .routes(routes!(handlers::create))
            .routes(routes!(handlers::update, handlers::delete));
        let public = caching::public_reads(public);
        OpenApiRouter::new().nest(BASE, public).nest(ADMIN_BASE, admin)
    }

    /// The public reads' answers are kept (the layer passes everything but a `GET` through,
    /// and the administration has none), and cached by HTTP caches (only the routes marked
    /// public reads).
    fn layer(
        router: axum::Router<crate::TaxonomyState>,
        ctx: &crate::TaxonomyState,
    ) -> axum::Router<crate::TaxonomyState> {
        let kept = blog_core::http::answers::reused(router, ctx);
        caching::conditional(kept, ctx.config.public_cache_max_age)
    }
}
