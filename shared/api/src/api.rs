//! The API as it is deployed: which areas each Lambda function serves. The local gateway mounts
//! every function's areas, the OpenAPI document is merged from them, and tests hold
//! template.yaml's routes and the sample events under events/ to the same list. A function's
//! `main` names its entry here, so its binary links only its own areas.

use axum::Router;

use crate::{
    area::{self, Area, Needs},
    articles, auth, comments,
    context::AppContext,
    effects, feeds, files, ops,
    taxonomy::{categories, tags},
    users,
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
pub const AUTH: Function = Function { name: "auth", areas: &[&auth::AREA], effects: effects::none };
/// functions/users.
pub const USERS: Function =
    Function { name: "users", areas: &[&users::AREA], effects: effects::none };
/// functions/categories.
pub const CATEGORIES: Function =
    Function { name: "categories", areas: &[&categories::AREA], effects: effects::taxonomy };
/// functions/tags.
pub const TAGS: Function =
    Function { name: "tags", areas: &[&tags::AREA], effects: effects::taxonomy };
/// functions/articles: the public reads of articles, their feeds and the sitemap.
pub const ARTICLES: Function = Function {
    name: "articles",
    areas: &[&articles::PUBLIC, &feeds::AREA],
    effects: effects::none,
};
/// functions/admin-articles.
pub const ADMIN_ARTICLES: Function =
    Function { name: "admin-articles", areas: &[&articles::ADMIN], effects: effects::none };
/// functions/files.
pub const FILES: Function =
    Function { name: "files", areas: &[&files::AREA], effects: effects::none };
/// functions/comments: comments, likes and reports (anonymous reads among them).
pub const COMMENTS: Function = Function {
    name: "comments",
    areas: &[&comments::PUBLIC, &comments::LIKES],
    effects: effects::none,
};
/// functions/admin-comments: the moderation of comments and reports (administrators only).
pub const ADMIN_COMMENTS: Function =
    Function { name: "admin-comments", areas: &[&comments::ADMIN], effects: effects::none };
/// functions/ops: the actuator and the API description.
pub const OPS: Function =
    Function { name: "ops", areas: &[&ops::AREA, &ops::DOCS], effects: effects::none };

/// Every HTTP function, in the order the API description lists their areas.
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
pub fn areas() -> impl Iterator<Item = &'static Area> {
    FUNCTIONS.into_iter().flat_map(|function| function.areas.iter().copied())
}

/// Every area on `ctx`, in one router (the local gateway's).
pub fn router(ctx: &AppContext) -> anyhow::Result<Router> {
    let ctx = &crate::effects::wire(ctx.clone());
    areas().try_fold(Router::new(), |router, area| Ok(router.merge(area.router(ctx)?)))
}
