//! Files: pre-signed uploads straight to object storage (staged until confirmed), confirmation
//! that checks the uploaded bytes, metadata, time-limited access URLs, deletion, and instant
//! upload of content the caller stored already. Records live in the table; bytes never pass
//! through the service (the blobs port signs URLs instead).

mod confirm;
pub mod envelope;
pub mod events;
mod handlers;
pub mod images;
pub mod input;
pub mod model;
mod removal;
pub mod repo;
mod served;
pub mod staging;
#[cfg(test)]
mod tests;
pub mod variants;

use std::sync::Arc;

use blog_core::routes;
use utoipa_axum::router::OpenApiRouter;

use blog_core::{
    area::{Area, Endpoints, Needs, Port, WithPort},
    context::AppContext,
    ports::{blobs::Blobs, events::EventQueue},
};

/// Base path of the area.
pub const BASE: &str = "/api/v1/files";

/// Pre-signed uploads and file records; every route needs a token (functions/files).
pub const AREA: Area = Area::of::<FilesEndpoints>(
    "files",
    "Pre-signed uploads and file records (envelope: numeric codes and `timestamp`)",
    Needs { blobs: true, ..Needs::TOKENS_AND_EVENTS },
);

/// The files area's state: the context and the ports it cannot work without.
pub type FilesContext = WithPort<FilesPorts>;

/// What the files area takes when it starts.
#[derive(Clone)]
pub struct FilesPorts {
    /// The object storage the bytes live in.
    pub blobs: Arc<dyn Blobs>,
    /// The queue of the worker, which makes the variants of public images
    /// ([`events::FileConfirmedEvent`]).
    pub events: Arc<dyn EventQueue>,
}

impl Port for FilesPorts {
    fn take(ctx: &AppContext) -> anyhow::Result<Self> {
        Ok(Self { blobs: ctx.require_blobs()?, events: ctx.require_events()? })
    }
}

/// The files area's endpoints.
pub struct FilesEndpoints;

impl Endpoints for FilesEndpoints {
    type State = FilesContext;

    fn routes() -> OpenApiRouter<FilesContext> {
        let routes = OpenApiRouter::new()
            .routes(routes!(handlers::presigned))
            .routes(routes!(confirm::confirm))
            .routes(routes!(handlers::metadata, handlers::delete))
            .routes(routes!(handlers::access_url));
        OpenApiRouter::new().nest(BASE, routes)
    }
}
