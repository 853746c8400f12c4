//! Articles: the admin lifecycle, the content pipeline and the public reads.

mod admin;
mod admin_reads;
pub mod content;
pub mod envelope;
pub mod events;
pub mod followup;
mod input;
mod keys;
mod lifecycle;
pub mod maintenance;
pub mod model;
mod notify;
mod public;
pub mod read;
pub mod related;
pub mod search;
pub mod store;
pub mod worker;

use axum::{
    routing::{get, put},
    Router,
};

use crate::context::AppContext;

/// Base path of the public area.
pub const BASE: &str = "/api/v1/articles";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/articles";

/// The public reads (paths relative to [`BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(public::list, public::detail, public::related))]
pub struct PublicApi;

/// The administration (paths relative to [`ADMIN_BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    admin_reads::list,
    admin::create,
    admin_reads::detail,
    admin::update,
    admin::delete,
    admin::publish,
    admin::archive,
    admin::unarchive
))]
pub struct AdminApi;

/// The public articles area (functions/articles).
pub fn public_router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/", get(public::list))
        .route("/{id}", get(public::detail))
        .route("/{id}/related", get(public::related));
    crate::http::area(BASE, crate::http::answers::reused(routes, &ctx), ctx)
}

/// The administration of articles (functions/admin-articles).
pub fn admin_router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/", get(admin_reads::list).post(admin::create))
        .route("/{id}", get(admin_reads::detail).put(admin::update).delete(admin::delete))
        .route("/{id}/publish", put(admin::publish))
        .route("/{id}/archive", put(admin::archive))
        .route("/{id}/unarchive", put(admin::unarchive));
    crate::http::area(ADMIN_BASE, routes, ctx)
}
