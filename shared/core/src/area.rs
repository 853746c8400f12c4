//! An API area: the unit a Lambda function serves and the local gateway mounts. Each feature
//! exports its areas as constants ([`Area::of`]); each endpoint is declared once, by its
//! handler's `#[utoipa::path]` attribute, and listed once in its area's [`Endpoints::routes`]
//! with [`routes!`](crate::routes!). The router, the OpenAPI description, the template's routes
//! and the sample events' coverage all follow from that list (docs/architecture.md).

use std::ops::Deref;
use std::sync::Arc;

use axum::{extract::FromRef, Router};
use utoipa::openapi::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::{
    context::AppContext,
    http::answers::{Answers, ReuseState},
    ports::{blobs::Blobs, embedder::Embedder, events::EventQueue},
};

/// What a process needs beyond the table, checked when it starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// Verifies or issues tokens (needs the JWT secret).
    pub tokens: bool,
    /// Emits events (needs the event queue).
    pub events: bool,
    /// Handles events (needs the embedder).
    pub embedder: bool,
    /// Serves files (needs object storage).
    pub blobs: bool,
    /// Serves the actuator (needs its token).
    pub actuator: bool,
}

impl Needs {
    /// Anonymous reads only: no secret is fetched at cold start.
    pub const PUBLIC: Needs =
        Needs { tokens: false, events: false, embedder: false, blobs: false, actuator: false };
    /// Authenticated endpoints.
    pub const TOKENS: Needs = Needs { tokens: true, ..Needs::PUBLIC };
    /// Authenticated endpoints that emit events.
    pub const TOKENS_AND_EVENTS: Needs = Needs { events: true, ..Needs::TOKENS };
    /// Authenticated endpoints on object storage.
    pub const TOKENS_AND_BLOBS: Needs = Needs { blobs: true, ..Needs::TOKENS };
    /// The ops function: checks the queue and the bucket for its health report, and guards the
    /// actuator with its token.
    pub const OPS: Needs = Needs { events: true, blobs: true, actuator: true, ..Needs::PUBLIC };
    /// The worker: handles events (embeddings, related lists, statistics, the search index in
    /// the bucket).
    pub const WORKER: Needs = Needs { embedder: true, blobs: true, ..Needs::PUBLIC };
    /// The outbox sweep: re-sends outbox events to the queue.
    pub const OUTBOX_SWEEP: Needs = Needs { events: true, ..Needs::PUBLIC };

    /// Everything either of two processes needs.
    pub const fn and(self, other: Needs) -> Needs {
        Needs {
            tokens: self.tokens || other.tokens,
            events: self.events || other.events,
            embedder: self.embedder || other.embedder,
            blobs: self.blobs || other.blobs,
            actuator: self.actuator || other.actuator,
        }
    }
}

/// The endpoints of an area, each listed once with [`routes!`](crate::routes!)`(handler)`.
pub trait Endpoints: 'static {
    /// The state its handlers read: the context, or the context with a port it cannot work
    /// without ([`WithPort`]), taken when the process starts.
    type State: AreaState;

    /// Every endpoint, at its full path.
    fn routes() -> OpenApiRouter<Self::State>;

    /// Layers around the whole area that need the state (e.g. the kept answers of public reads).
    fn layer(router: Router<Self::State>, _state: &Self::State) -> Router<Self::State> {
        router
    }

    /// Whether every answer of the area is private to its caller, with or without
    /// `Authorization` (the auth area's tokens): each says `Cache-Control: no-store`, as every
    /// answer to a request with `Authorization` does in every area.
    const PRIVATE: bool = false;
}

/// A router state an area builds from the context when the process starts, or refuses to.
pub trait AreaState: Clone + Send + Sync + 'static {
    /// The state, or why this process cannot serve the area (a port it lacks).
    fn from_context(ctx: &AppContext) -> anyhow::Result<Self>;
}

impl AreaState for AppContext {
    fn from_context(ctx: &AppContext) -> anyhow::Result<Self> {
        Ok(ctx.clone())
    }
}

/// The context with a port an area cannot work without: the port is taken once, when the
/// router is built, so a process that lacks it stops at start and no handler looks for it.
#[derive(Clone)]
pub struct WithPort<P> {
    ctx: AppContext,
    /// The port.
    pub port: P,
}

impl<P> Deref for WithPort<P> {
    type Target = AppContext;

    fn deref(&self) -> &AppContext {
        &self.ctx
    }
}

impl<P: Clone> FromRef<WithPort<P>> for AppContext {
    fn from_ref(state: &WithPort<P>) -> AppContext {
        state.ctx.clone()
    }
}

impl<P> WithPort<P> {
    /// The context with `port`.
    pub fn new(ctx: AppContext, port: P) -> Self {
        Self { ctx, port }
    }
}

/// A port or an effect an area's state takes from the context when the router is built.
pub trait Port: Clone + Send + Sync + 'static {
    /// The port, or why this process has none.
    fn take(ctx: &AppContext) -> anyhow::Result<Self>;
}

impl<P: Port> AreaState for WithPort<P> {
    fn from_context(ctx: &AppContext) -> anyhow::Result<Self> {
        Ok(Self::new(ctx.clone(), P::take(ctx)?))
    }
}

impl<P: Clone + Send + Sync + 'static> ReuseState for WithPort<P> {
    fn answers(&self) -> &Answers {
        self.ctx.answers()
    }
    fn change_stamp(&self) -> Option<u64> {
        self.ctx.change_stamp()
    }
}

impl Port for Arc<dyn Blobs> {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        ctx.require_blobs()
    }
}

impl Port for Arc<dyn EventQueue> {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        ctx.require_events()
    }
}

impl Port for Arc<dyn Embedder> {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        ctx.require_embedder()
    }
}

/// One area: its name (the OpenAPI tag), what it is, what its process needs, and its endpoints.
#[derive(Clone, Copy)]
pub struct Area {
    /// The OpenAPI tag of its operations (the function's name for most areas).
    pub name: &'static str,
    /// The tag's description: what the area serves and its envelope.
    pub summary: &'static str,
    /// What the process serving it needs beyond the table.
    pub needs: Needs,
    api: fn() -> OpenApi,
    router: fn(&AppContext) -> anyhow::Result<Router>,
    endpoints: fn() -> &'static str,
}

impl Area {
    /// The area served by the endpoints `E`.
    pub const fn of<E: Endpoints>(name: &'static str, summary: &'static str, needs: Needs) -> Area {
        let endpoints = std::any::type_name::<E>;
        Area { name, summary, needs, api: api_of::<E>, router: router_of::<E>, endpoints }
    }

    /// The crate that declares it (`blog_comments`), where its handlers live.
    pub fn crate_name(&self) -> &'static str {
        let endpoints = (self.endpoints)();
        endpoints.split_once("::").map_or(endpoints, |(krate, _)| krate)
    }

    /// Its operations, at their full paths.
    pub fn api(&self) -> OpenApi {
        (self.api)()
    }

    /// Its router on `ctx`, with `Cache-Control: no-store` on private answers, the request
    /// metrics and the CORS policy; fails when `ctx` lacks a port the area needs.
    pub fn router(&self, ctx: &AppContext) -> anyhow::Result<Router> {
        (self.router)(ctx).map_err(|error| error.context(format!("the {} area", self.name)))
    }

    /// `(METHOD, path)` of every endpoint.
    pub fn routes(&self) -> Vec<(String, String)> {
        let mut routes = Vec::new();
        for (path, item) in self.api().paths.paths {
            let operations = serde_json::to_value(&item).unwrap_or_default();
            for method in ["get", "put", "post", "delete", "options", "head", "patch", "trace"] {
                if operations.get(method).is_some() {
                    routes.push((method.to_uppercase(), path.clone()));
                }
            }
        }
        routes
    }
}

fn api_of<E: Endpoints>() -> OpenApi {
    crate::routes::documented(|| E::routes().split_for_parts().1)
}

fn router_of<E: Endpoints>(ctx: &AppContext) -> anyhow::Result<Router> {
    let state = E::State::from_context(ctx)?;
    let (routes, _) = E::routes().split_for_parts();
    let routes = E::layer(routes, &state).with_state(state);
    let routes = crate::http::caching::private::no_store(routes, E::PRIVATE);
    let observe = axum::middleware::from_fn_with_state(
        ctx.clone(),
        crate::telemetry::layer::observe::<AppContext>,
    );
    Ok(crate::http::cors::apply(routes.layer(observe)))
}

/// The areas one process serves, merged into one router.
pub fn router(areas: &[&Area], ctx: &AppContext) -> anyhow::Result<Router> {
    areas.iter().try_fold(Router::new(), |router, area| Ok(router.merge(area.router(ctx)?)))
}

/// Everything the processes serving `areas` need.
pub fn needs(areas: &[&Area]) -> Needs {
    areas.iter().fold(Needs::PUBLIC, |needs, area| needs.and(area.needs))
}
