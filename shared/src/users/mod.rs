//! User accounts: their records and storage, own profile, administration of other accounts,
//! the envelope auth and users answer in, and who is calling (`principal`), which every area's
//! protected routes use.

pub mod envelope;
mod handlers;
pub mod model;
pub mod principal;
pub mod repo;

use axum::{routing::get, Router};

use crate::context::AppContext;

/// Base path of the area.
pub const BASE: &str = "/api/v1/users";

/// The users area's operations (paths relative to [`BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    handlers::me,
    handlers::update_me,
    handlers::get_user,
    handlers::update_user,
    handlers::delete_user
))]
pub struct UsersApi;

/// The users area's routes, mounted under [`BASE`].
pub fn router(ctx: AppContext) -> Router {
    let routes = Router::new().route("/me", get(handlers::me).put(handlers::update_me)).route(
        "/{id}",
        get(handlers::get_user).put(handlers::update_user).delete(handlers::delete_user),
    );
    crate::http::area(BASE, routes, ctx)
}
