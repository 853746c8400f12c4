//! Authentication: registration (limited per client address), login, logout, password hashing
//! and login throttling, on the accounts of the users feature. Tokens are signed with [`blog_core::access::TokenKeys`]; callers
//! are identified for every area by [`blog_users::principal`].

pub mod bootstrap;
mod handlers;
pub mod password;
mod signups;
mod throttle;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs},
    context::AppContext,
};

/// Base path of the area.
pub const BASE: &str = "/api/v1/auth";

/// Registration, sign-in and sign-out (functions/auth).
pub const AREA: Area = Area::of::<AuthEndpoints>(
    "auth",
    "Registration, sign-in and sign-out (envelope: integer `code` 0 on success)",
    Needs::TOKENS,
);

/// The auth area's endpoints.
pub struct AuthEndpoints;

impl Endpoints for AuthEndpoints {
    type State = AppContext;

    /// A token, or why none was issued: for the caller only.
    const PRIVATE: bool = true;

    fn routes() -> OpenApiRouter<AppContext> {
        let routes = OpenApiRouter::new()
            .routes(routes!(handlers::register))
            .routes(routes!(handlers::login))
            .routes(routes!(handlers::logout));
        OpenApiRouter::new().nest(BASE, routes)
    }
}
