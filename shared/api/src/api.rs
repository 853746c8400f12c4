//! The API as it is deployed: which areas each Lambda function serves. The local gateway mounts
//! every function's areas, the OpenAPI document is merged from them, and tests hold
//! template.yaml's routes and the sample events under events/ to the same list. A function's
//! `main` names its entry here, and its crate enables that entry's areas (this crate's
//! features), so it builds and links only its own.

use axum::Router;

#[cfg(feature = "articles")]
use crate::articles;
#[cfg(feature = "auth")]
use crate::auth;
#[cfg(feature = "comments")]
use crate::comments;
#[cfg(feature = "feeds")]
use crate::feeds;
#[cfg(feature = "files")]
use crate::files;
#[cfg(feature = "ops")]
use crate::ops;
#[cfg(feature = "taxonomy")]
use crate::taxonomy::{categories, tags};
#[cfg(feature = "users")]
use crate::users;
// Every area feature turns on `users` or is `ops`: with neither, no function is built here.
#[cfg(any(feature = "users", feature = "ops"))]
use crate::effects;
use crate::{
    area::{self, Area, Needs},
    context::AppContext,
};

/// An HTTP Lambda function: its crate under functions/ and the areas it serves.
pub struct Function {
    /// The crate (and binary) name, `functions/<name>/`.
    pub name: &'static str,
    /// Its areas.
    pub areas: &'static [&'static Area],
    /// The cross-feature effects its areas take ([`crate::effects`]).
    pub effects: fn(AppContext) -> AppContext,
}

impl Function {
    /// Everything its areas need.
    pub fn needs(&self) -> Needs {
        area::needs(self.areas)
    }

    /// Its areas' router on `ctx`; fails when `ctx` lacks a port an area needs.
    pub fn router(&self, ctx: &AppContext) -> anyhow::Result<Router> {
        area::router(self.areas, &(self.effects)(ctx.clone()))
    }
}

/// functions/auth.
#[cfg(feature = "auth")]
pub const AUTH: Function = Function { name: "auth", areas: &[&auth::AREA], effects: effects::none };
/// functions/users.
#[cfg(feature = "users")]
pub const USERS: Function =
    Function { name: "users", areas: &[&users::AREA], effects: effects::none };
/// functions/categories.
#[cfg(all(feature = "taxonomy", feature = "articles"))]
pub const CATEGORIES: Function =
    Function { name: "categories", areas: &[&categories::AREA], effects: effects::taxonomy };
/// functions/tags.
#[cfg(all(feature = "taxonomy", feature = "articles"))]
pub const TAGS: Function =
    Function { name: "tags", areas: &[&tags::AREA], effects: effects::taxonomy };
/// functions/articles: the public reads of articles, their feeds and the sitemap.
#[cfg(feature = "feeds")]
pub const ARTICLES: Function = Function {
    name: "articles",
    areas: &[&articles::PUBLIC, &feeds::AREA],
    effects: effects::none,
};
/// functions/admin-articles.
#[cfg(feature = "articles")]
pub const ADMIN_ARTICLES: Function =
    Function { name: "admin-articles", areas: &[&articles::ADMIN], effects: effects::none };
/// functions/files.
#[cfg(feature = "files")]
pub const FILES: Function =
    Function { name: "files", areas: &[&files::AREA], effects: effects::none };
/// functions/comments: comments, likes and reports (anonymous reads among them).
#[cfg(feature = "comments")]
pub const COMMENTS: Function = Function {
    name: "comments",
    areas: &[&comments::PUBLIC, &comments::LIKES],
    effects: effects::none,
};
/// functions/admin-comments: the moderation of comments and reports (administrators only).
#[cfg(feature = "comments")]
pub const ADMIN_COMMENTS: Function =
    Function { name: "admin-comments", areas: &[&comments::ADMIN], effects: effects::none };
/// functions/ops: the actuator and the API description.
#[cfg(feature = "ops")]
pub const OPS: Function =
    Function { name: "ops", areas: &[&ops::AREA, &ops::DOCS], effects: effects::none };

/// Every HTTP function, in the order the API description lists their areas.
#[cfg(feature = "all-areas")]
pub const FUNCTIONS: [&Function; 10] = [
    &AUTH,
    &USERS,
    &CATEGORIES,
    &TAGS,
    &ARTICLES,
    &ADMIN_ARTICLES,
    &COMMENTS,
    &ADMIN_COMMENTS,
    &FILES,
    &OPS,
];

/// Every area of the API.
#[cfg(feature = "all-areas")]
pub fn areas() -> impl Iterator<Item = &'static Area> {
    FUNCTIONS.into_iter().flat_map(|function| function.areas.iter().copied())
}

/// Every area on `ctx`, in one router (the local gateway's).
#[cfg(feature = "all-areas")]
pub fn router(ctx: &AppContext) -> anyhow::Result<Router> {
    let ctx = &crate::effects::wire(ctx.clone());
    areas().try_fold(Router::new(), |router, area| Ok(router.merge(area.router(ctx)?)))
}
