//! Files: pre-signed uploads straight to object storage (staged until confirmed), confirmation
//! that checks the uploaded bytes, metadata, time-limited access URLs, deletion, and instant
//! upload of content the caller stored already. Records live in the table; bytes never pass
//! through the service (the blobs port signs URLs instead).

mod confirm;
pub mod envelope;
mod handlers;
pub mod input;
pub mod model;
mod removal;
pub mod repo;
mod served;
pub mod staging;

use axum::{
    routing::{get, patch, post},
    Router,
};

use crate::context::AppContext;

/// Base path of the area.
pub const BASE: &str = "/api/v1/files";

/// The files area's operations (paths relative to [`BASE`]).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    handlers::presigned,
    confirm::confirm,
    handlers::metadata,
    handlers::access_url,
    handlers::delete
))]
pub struct FilesApi;

/// The files area; every route needs a token.
pub fn router(ctx: AppContext) -> Router {
    let routes = Router::new()
        .route("/presigned", post(handlers::presigned))
        .route("/{id}", get(handlers::metadata).delete(handlers::delete))
        .route("/{id}/confirm", patch(confirm::confirm))
        .route("/{id}/access-url", get(handlers::access_url));
    crate::http::area(BASE, routes, ctx)
}
