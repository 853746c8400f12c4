//! Categories: the public tree, flat list and slug lookup, and their administration.

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
pub const BASE: &str = "/api/v1/categories";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/categories";

/// Public reads and administration (functions/categories).
pub const AREA: Area = Area::of::<CategoriesEndpoints>(
    "categories",
    "Category tree, list and administration (envelope: string `code` \"200\")",
    Needs::TOKENS,
);

/// The categories area's endpoints.
pub struct CategoriesEndpoints;

impl Endpoints for CategoriesEndpoints {
    type State = crate::TaxonomyState;

    fn routes() -> OpenApiRouter<crate::TaxonomyState> {
        let public = OpenApiRouter::new()
            .routes(routes!(handlers::list))
            .routes(routes!(handlers::tree))
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
