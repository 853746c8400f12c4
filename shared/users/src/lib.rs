//! User accounts: their records and storage, own profile, administration of other accounts,
//! the envelope auth and users answer in, and who is calling (`principal`), which every area's
//! protected routes use.

pub mod envelope;
mod handlers;
pub mod model;
mod nickname;
pub mod principal;
pub mod renames;
pub mod repo;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use std::sync::Arc;

use blog_core::{
    area::{Area, Endpoints, Needs, WithPort},
    ports::events::EventQueue,
};

/// Base path of the area.
pub const BASE: &str = "/api/v1/users";

/// Own profile and administration of accounts (functions/users).
pub const AREA: Area = Area::of::<UsersEndpoints>(
    "users",
    "Own profile and administration of accounts (same envelope as auth)",
    Needs::TOKENS_AND_EVENTS,
);

/// The area's state: the context and the queue that a renamed author's event goes to.
pub type Profiles = WithPort<Arc<dyn EventQueue>>;

/// The users area's endpoints.
pub struct UsersEndpoints;

impl Endpoints for UsersEndpoints {
    type State = Profiles;

    fn routes() -> OpenApiRouter<Profiles> {
        let routes = OpenApiRouter::new()
            .routes(routes!(handlers::me, handlers::update_me))
            .routes(routes!(handlers::get_user, handlers::update_user, handlers::delete_user));
        OpenApiRouter::new().nest(BASE, routes)
    }
}
