//! HTTP caching of the public reads (docs/decisions.md, "HTTP caching"): validators,
//! conditional GETs and freshness, for browsers and shared caches (a CDN in front of the API).
//!
//! An area marks its cached routes where it lists them, with [`public_reads`] (which also
//! documents them in the OpenAPI description), and puts [`conditional`] around its whole router,
//! outside its other layers. From the handler out:
//!
//! 1. [`public_reads`]' route layer: a `200` answer to a GET or HEAD gets a strong `ETag`
//!    computed from its body ([`validators::entity_tag`]), unless the handler set one (a weak
//!    one, [`validators::weak_entity_tag`], where the body also holds the time of the answer,
//!    which changes every second while the content does not). It sits
//!    inside the kept answers ([`super::answers`]), which keep the tag with the answer, so a kept
//!    answer is not hashed again.
//! 2. The area's own layers: the kept answers.
//! 3. [`conditional`]: on a `200` answer to a GET or HEAD that carries an `ETag`,
//!    `Cache-Control` unless the handler set one (`public, max-age=N` for a request without
//!    `Authorization`; [`NO_STORE`] for one with it, whose answer may be the caller's own, such
//!    as a comment tree with their pending comments: no cache, shared or the browser's, keeps
//!    it) and `Vary: Authorization` (a browser that signs in does not reuse the anonymous
//!    answer); and when the request's `If-None-Match` matches the tag, `304 Not Modified`
//!    without a body, with the same `ETag`, `Cache-Control`, `Vary` and `Last-Modified`. Only
//!    the articles' views layer sits outside it, to see the reader's answer: a revalidated read
//!    counts no view.
//!
//! Every other answer (another status, another method, a route not marked) passes untouched
//! here. Around every area, [`private::no_store`] then says [`NO_STORE`] on every answer to a
//! request with `Authorization` and on every answer of the auth area, whatever the route.
//! `If-Modified-Since` is not evaluated: `Last-Modified` is the time of an article's last
//! edit, while its counters change without one, so only the entity tag says "unchanged".

mod docs;
pub mod private;
pub mod validators;

use std::time::Duration;

use axum::{
    body::Body,
    extract::Request,
    http::{
        header::{AUTHORIZATION, CACHE_CONTROL, ETAG, IF_NONE_MATCH, LAST_MODIFIED, VARY},
        HeaderMap, HeaderValue, Method, StatusCode,
    },
    middleware::Next,
    response::{IntoResponse, Response},
    Router,
};
use utoipa_axum::router::OpenApiRouter;

use validators::{entity_tag, IfNoneMatch};

/// `Cache-Control` of an answer to a request with `Authorization`, and of the auth area's.
pub const NO_STORE: &str = "no-store";

/// The headers a `304 Not Modified` repeats from the `200` it stands for (RFC 9110 §15.4.5:
/// the validators and the caching headers, nothing describing a body it does not have).
const KEPT_BY_304: [axum::http::HeaderName; 4] = [ETAG, CACHE_CONTROL, VARY, LAST_MODIFIED];

/// `Cache-Control` of an answer to a request without `Authorization`.
pub fn public(max_age: Duration) -> HeaderValue {
    HeaderValue::from_str(&format!("public, max-age={}", max_age.as_secs()))
        .expect("digits are a valid header value")
}

/// Marks every GET route of `routes` as a cached public read: its `200` answers get an `ETag`
/// (step 1 of the module documentation), and its OpenAPI operation documents `If-None-Match`,
/// the `304` answer and the `ETag`, `Cache-Control` and `Vary` headers. Call it on a router
/// holding the public reads only, after their routes, before nesting it under its base path;
/// the area's layer must then put [`conditional`] around its router.
pub fn public_reads<S: Clone + Send + Sync + 'static>(
    mut routes: OpenApiRouter<S>,
) -> OpenApiRouter<S> {
    docs::document(routes.get_openapi_mut());
    routes.route_layer(axum::middleware::from_fn(tag))
}

/// Puts `router` behind the conditional requests and freshness headers of the routes marked
/// with [`public_reads`] (step 3 of the module documentation), `max_age` the freshness of an
/// anonymous answer. Apply it outside the area's other layers (the articles' views layer
/// excepted).
pub fn conditional<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    max_age: Duration,
) -> Router<S> {
    let public = public(max_age);
    router.layer(axum::middleware::from_fn(move |request: Request, next: Next| {
        let public = public.clone();
        async move { revalidate(public, request, next).await }
    }))
}

fn is_read(method: &Method) -> bool {
    *method == Method::GET || *method == Method::HEAD
}

/// Step 1: the entity tag of a `200` answer to a read.
async fn tag(request: Request, next: Next) -> Response {
    let read = is_read(request.method());
    let response = next.run(request).await;
    if !read || response.status() != StatusCode::OK || response.headers().contains_key(ETAG) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // A handler's answer is in memory: reading it cannot fail, and it is not copied.
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => {
            parts.headers.insert(ETAG, entity_tag(&body));
            Response::from_parts(parts, Body::from(body))
        }
        Err(error) => {
            tracing::error!(%error, "reading an answer to tag it failed");
            let body = serde_json::json!({
                "code": 500, "message": super::error::INTERNAL_MESSAGE, "data": null
            });
            (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response()
        }
    }
}

/// Step 3: freshness headers, and `304` when the client's copy is current.
async fn revalidate(public: HeaderValue, request: Request, next: Next) -> Response {
    if !is_read(request.method()) {
        return next.run(request).await;
    }
    let signed_in = request.headers().contains_key(AUTHORIZATION);
    let condition = IfNoneMatch::parse(request.headers().get_all(IF_NONE_MATCH));
    let mut response = next.run(request).await;
    if response.status() != StatusCode::OK {
        return response;
    }
    let Some(current) = response.headers().get(ETAG).cloned() else { return response };
    let headers = response.headers_mut();
    let freshness = if signed_in { HeaderValue::from_static(NO_STORE) } else { public };
    headers.entry(CACHE_CONTROL).or_insert(freshness);
    if !varies_by_authorization(headers) {
        headers.append(VARY, HeaderValue::from_static("authorization"));
    }
    match condition {
        Some(condition) if condition.matches(&current) => not_modified(headers),
        _ => response,
    }
}

/// Whether `Vary` already names `Authorization` (or `*`).
fn varies_by_authorization(headers: &HeaderMap) -> bool {
    headers.get_all(VARY).iter().filter_map(|value| value.to_str().ok()).any(|value| {
        value
            .split(',')
            .map(str::trim)
            .any(|name| name == "*" || name.eq_ignore_ascii_case("authorization"))
    })
}

/// `304 Not Modified`, no body, with the headers of [`KEPT_BY_304`] from `headers`.
fn not_modified(headers: &HeaderMap) -> Response {
    let mut response = StatusCode::NOT_MODIFIED.into_response();
    for name in KEPT_BY_304 {
        for value in headers.get_all(&name) {
            response.headers_mut().append(name.clone(), value.clone());
        }
    }
    response
}

#[cfg(test)]
mod tests;
