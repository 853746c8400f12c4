//! The local gateway: every area's router in one process, on the adapters the configuration
//! names (embedded by default), as API Gateway would route them to the functions.

use axum::Router;
use blog_shared::{
    articles, auth,
    context::AppContext,
    files, ops,
    taxonomy::{categories, tags},
    users,
};
use tokio::net::TcpListener;

/// Every area mounted under its base path.
pub fn app(ctx: AppContext) -> Router {
    let areas = Router::new()
        .merge(auth::router(ctx.clone()))
        .merge(users::router(ctx.clone()))
        .merge(categories::router(ctx.clone()))
        .merge(tags::router(ctx.clone()))
        .merge(articles::public_router(ctx.clone()))
        .merge(articles::admin_router(ctx.clone()))
        .merge(files::router(ctx.clone()))
        .merge(ops::router(ctx.clone()));
    // The local blob store serves its signed URLs itself (S3 serves its own).
    let areas = match ctx.blobs.as_ref().and_then(|blobs| blobs.http_routes()) {
        Some(blob_routes) => areas.merge(blob_routes),
        None => areas,
    };
    // The OpenAPI description, and Swagger UI over it (its files are built into the binary).
    let areas = areas.merge(blog_shared::openapi::docs_router()).merge(swagger_ui());
    blog_shared::http::finish(areas)
}

/// Swagger UI at `/swagger-ui/`, reading the description that `docs_router` serves.
fn swagger_ui() -> Router {
    let config = utoipa_swagger_ui::Config::new([blog_shared::openapi::DOCS_PATH]);
    utoipa_swagger_ui::SwaggerUi::new("/swagger-ui").config(config).into()
}

/// Serves the gateway on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    ctx: AppContext,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The peer address is the client's (the login throttle counts per address).
    let service = app(ctx).into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service).with_graceful_shutdown(shutdown).await
}
