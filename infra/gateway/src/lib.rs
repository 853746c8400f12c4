//! The local gateway: every area's router in one process, on the adapters the configuration
//! names (embedded by default), as API Gateway would route them to the functions.

use axum::Router;
use blog_api::{context::AppContext, http::whole_body};
use tokio::net::TcpListener;

/// Every function's areas, as API Gateway routes them; fails when `ctx` lacks a port an area
/// needs. Like API Gateway, it reads each request's whole body (at most
/// [`whole_body::API_GATEWAY_LIMIT`]) before routing it, so that an answer given without
/// reading the body (a 401, a 404) leaves a kept-alive connection usable.
pub fn app(ctx: AppContext) -> anyhow::Result<Router> {
    let areas = blog_api::api::router(&ctx)?;
    // Swagger UI over the description the ops area serves (its files are built into the binary).
    let api = areas.merge(swagger_ui()).fallback(blog_api::http::no_route);
    let api = whole_body::read_first(api, whole_body::API_GATEWAY_LIMIT, whole_body::refusal);
    // The local blob store serves its signed URLs itself (S3 serves its own), reading bodies up
    // to its own limit.
    let app = match ctx.blobs().and_then(|blobs| blobs.http_routes()) {
        Some(blob_routes) => api.merge(blob_routes),
        None => api,
    };
    Ok(blog_api::http::traced(app))
}

/// Swagger UI at `/swagger-ui/`, reading the description that `docs_router` serves.
fn swagger_ui() -> Router {
    let config = utoipa_swagger_ui::Config::new([blog_api::openapi::DOCS_PATH]);
    utoipa_swagger_ui::SwaggerUi::new("/swagger-ui").config(config).into()
}

/// Serves the gateway on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    ctx: AppContext,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The peer address is the client's (the login throttle counts per address).
    let app = app(ctx).map_err(|error| std::io::Error::other(format!("{error:#}")))?;
    let service = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service).with_graceful_shutdown(shutdown).await
}
