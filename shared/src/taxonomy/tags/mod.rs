//! Tags: the public lists and slug lookup, and their administration.

mod handlers;
pub mod model;
pub mod repo;

use axum::{
    routing::{get, post, put},
    Router,
};

use crate::context::AppContext;

/// Base path of the public area.
pub const BASE: &str = "/api/v1/tags";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/tags";

/// The public reads (paths relative to [`BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(handlers::list, handlers::hot, handlers::by_slug))]
pub struct PublicApi;

/// The administration (paths relative to [`ADMIN_BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(handlers::create, handlers::update, handlers::delete))]
pub struct AdminApi;

/// The tags area (public reads and administration).
pub fn router(ctx: AppContext) -> Router {
    let public = Router::new()
        .route("/", get(handlers::list))
        .route("/hot", get(handlers::hot))
        .route("/slug/{slug}", get(handlers::by_slug));
    let admin = Router::new()
        .route("/", post(handlers::create))
        .route("/{id}", put(handlers::update).delete(handlers::delete));
    let public = crate::http::answers::reused(public, &ctx);
    crate::http::areas(vec![(BASE, public), (ADMIN_BASE, admin)], ctx)
}
