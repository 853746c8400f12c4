//! CORS as decided: any origin may call the API; a preflight answers 204. A browser may send
//! `If-None-Match` and read the validators of a public read (`ETag`, `Last-Modified`) and when
//! to retry a throttled login (`Retry-After`), and the paging of the comment tree
//! (`X-Total-Count`, `Link`): template.yaml's HttpApi `CorsConfiguration` says
//! the same (a test compares them).

use std::time::Duration;

use axum::{
    extract::Request,
    http::{header, HeaderName, Method, StatusCode},
    middleware::{self, Next},
    response::Response,
    Router,
};
use tower_http::cors::{Any, CorsLayer};

/// Wraps a router with the CORS policy.
pub fn apply<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE, header::IF_NONE_MATCH])
        .expose_headers([
            header::RETRY_AFTER,
            header::ETAG,
            header::LAST_MODIFIED,
            header::LINK,
            HeaderName::from_static("x-total-count"),
        ])
        .max_age(Duration::from_secs(600));
    router.layer(cors).layer(middleware::from_fn(preflight_no_content))
}

async fn preflight_no_content(request: Request, next: Next) -> Response {
    let preflight = request.method() == Method::OPTIONS
        && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut response = next.run(request).await;
    if preflight && response.status() == StatusCode::OK {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}
