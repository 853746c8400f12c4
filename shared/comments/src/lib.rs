//! Comments on articles, readers' likes, reports and their moderation (comments-and-stats.md;
//! the tables in docs/data-model.md, "Comments, likes and reader statistics"), in rooms by
//! role: `http/` (the handlers of the four areas, their inputs, answers and envelope, and the
//! write paths they run), `store/` (keys, records, thread and root entries, the bounded read of
//! the tree, rate windows, the earlier layout's move) and `worker/` (an author's rename).
//!
//! Uses the articles feature through its root only (the comment renderer, whether an article
//! is readable and open, its counters, and the rename of an author that the worker hands
//! over, wired where the features are composed: [`show_renamed_author`]), and users for the caller and their name.

mod http;
pub mod store;
mod worker;

// Each module of the rooms at the crate's root, where the rest of the crate and the other
// crates name it.
pub use http::envelope;
use http::{admin, caller, detail, edit, likes, paging, post, public, reports};
use store::{keys, pages, rate, repo, roots, thread, tree};
pub use store::{model, relayout};
use worker::renames;

pub use renames::show_renamed_author;
#[cfg(test)]
mod tests;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs},
    context::AppContext,
    http::caching,
    ports::table::{Item, TableError},
    records,
};

/// A stored comment's item and its locator as the present layout writes them (for the index
/// migration).
pub fn comment_and_locator(stored: Item) -> Result<(Item, Item), TableError> {
    let comment: model::StoredComment = records::from_item(stored)?;
    Ok((repo::item_of(&comment)?, repo::locator_item(&comment)))
}

/// A stored report's item as the present layout writes it (for the index migration).
pub fn report_item(stored: Item) -> Result<Item, TableError> {
    reports::item_of_stored(stored)
}

/// Base path of the public area.
pub const BASE: &str = "/api/v1/comments";
/// Base path of the administration.
pub const ADMIN_BASE: &str = "/api/v1/admin/comments";

/// The comments of articles: reading (anonymous), writing (signed in) (functions/comments).
pub const PUBLIC: Area = Area::of::<PublicEndpoints>(
    "comments",
    "Comments on articles (envelope: `code` 200, `errorCode` on errors, as articles)",
    Needs::TOKENS,
);

/// Readers' likes of comments and articles (functions/comments; API Gateway routes
/// `/api/v1/articles/{id}/like` and `/liked` here by their exact paths).
pub const LIKES: Area = Area::of::<LikesEndpoints>(
    "likes",
    "Readers' likes of comments and articles, signed in (the comments' envelope)",
    Needs::TOKENS,
);

/// The likes.
pub struct LikesEndpoints;

impl Endpoints for LikesEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        OpenApiRouter::new()
            .routes(routes!(likes::like, likes::unlike))
            .routes(routes!(likes::liked))
            .routes(routes!(likes::like_an_article, likes::unlike_an_article))
            .routes(routes!(likes::article_liked))
    }
}

/// The public comment endpoints.
pub struct PublicEndpoints;

impl Endpoints for PublicEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        // The tree is the one cached read (a comment alone is not: docs/decisions.md).
        let routes = caching::public_reads(OpenApiRouter::new().routes(routes!(public::tree)))
            .routes(routes!(post::create))
            .routes(routes!(post::reply))
            .routes(routes!(public::get, edit::update, edit::delete))
            .routes(routes!(reports::report));
        OpenApiRouter::new().nest(BASE, routes)
    }

    /// The tree's HTTP caching: a signed-in caller's tree (with their pending comments) is
    /// answered for their own cache only.
    fn layer(router: axum::Router<AppContext>, ctx: &AppContext) -> axum::Router<AppContext> {
        caching::conditional(router, ctx.config.public_cache_max_age)
    }
}

/// The moderation of comments and reports for administrators (functions/admin-comments).
pub const ADMIN: Area = Area::of::<AdminEndpoints>(
    "admin-comments",
    "Moderation of comments and their reports, administrators (the comments' envelope)",
    Needs::TOKENS,
);

/// The administration.
pub struct AdminEndpoints;

impl Endpoints for AdminEndpoints {
    type State = AppContext;

    fn routes() -> OpenApiRouter<AppContext> {
        let routes = OpenApiRouter::new()
            .routes(routes!(admin::list))
            .routes(routes!(admin::approve))
            .routes(routes!(admin::reject))
            .routes(routes!(admin::delete))
            .routes(routes!(reports::reports))
            .routes(routes!(reports::uphold))
            .routes(routes!(reports::dismiss));
        OpenApiRouter::new().nest(ADMIN_BASE, routes)
    }
}
