//! Authentication: registration, login, logout, password hashing and login throttling, on the
//! accounts of the users feature. Tokens are signed with [`crate::access::TokenKeys`]; callers
//! are identified for every area by [`crate::users::principal`].

pub mod bootstrap;
mod handlers;
pub mod password;
mod throttle;

use axum::{routing::post, Router};

use crate::context::AppContext;

/// Base path of the area.
pub const BASE: &str = "/api/v1/auth";

/// The auth area's operations (paths relative to [`BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(handlers::register, handlers::login, handlers::logout))]
pub struct AuthApi;

/// The auth area's routes, mounted under [`BASE`].
pub fn router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/register", post(handlers::register))
        .route("/login", post(handlers::login))
        .route("/logout", post(handlers::logout));
    crate::http::area(BASE, routes, ctx)
}
