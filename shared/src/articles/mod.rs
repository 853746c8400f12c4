//! Articles: the admin lifecycle, the content pipeline and the public reads.

mod admin;
pub mod content;
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

/// The public articles area (functions/articles).
pub fn public_router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/", get(public::list))
        .route("/{id}", get(public::detail))
        .route("/{id}/related", get(public::related));
    crate::http::area(BASE, routes, ctx)
}

/// The administration of articles (functions/admin-articles).
pub fn admin_router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/", get(admin::list).post(admin::create))
        .route("/{id}", get(admin::detail).put(admin::update).delete(admin::delete))
        .route("/{id}/publish", put(admin::publish))
        .route("/{id}/archive", put(admin::archive))
        .route("/{id}/unarchive", put(admin::unarchive));
    crate::http::area(ADMIN_BASE, routes, ctx)
}
