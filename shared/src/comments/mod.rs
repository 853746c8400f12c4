//! Comments on articles, readers' likes, reports and their moderation (comments-and-stats.md;
//! the tables in docs/data-model.md, "Comments, likes and reader statistics").
//!
//! Uses the articles feature through its root only (the comment renderer, whether an article
//! is readable and open, its counters), and users for the caller and their name.

mod caller;
mod edit;
pub mod envelope;
mod keys;
pub mod model;
mod post;
mod public;
mod repo;

use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    area::{Area, Endpoints, Needs},
    context::AppContext,
};

/// Base path of the public area.
pub const BASE: &str = "/api/v1/comments";

/// The comments of articles: reading (anonymous), writing (signed in) (functions/comments).
pub const PUBLIC: Area = Area::of::<PublicEndpoints>(
    "comments",
    "Comments on articles (envelope: `code` 200, `errorCode` on errors, as articles)",
    Needs::TOKENS,
);

/// The public comment endpoints.
pub struct PublicEndpoints;

impl Endpoints for PublicEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        let routes = OpenApiRouter::new()
            .routes(routes!(public::tree))
            .routes(routes!(post::create))
            .routes(routes!(post::reply))
            .routes(routes!(public::get, edit::update, edit::delete));
        OpenApiRouter::new().nest(BASE, routes)
    }
}
