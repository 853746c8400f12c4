//! Reading a request's whole body before routing it, as API Gateway does before it invokes a
//! function: a served router never answers while the client is still sending.
//!
//! hyper keeps an HTTP/1.1 connection alive only once it has read the whole request. When a
//! handler answers without reading the body (a 401 before the JSON is parsed, a refused
//! signature, an unknown path), hyper makes one attempt to drain it as the answer goes out; a
//! body still in flight at that moment makes hyper close the connection after an answer that
//! did not say `Connection: close`, and the client's next request on it gets no answer. Read
//! first, every answer leaves the connection usable; a body over the limit is refused at once
//! with `Connection: close`, so the client knows not to reuse the connection.

use axum::{
    body::Body,
    extract::Request,
    http::{header, HeaderValue, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    Router,
};
use http_body_util::{BodyExt, LengthLimitError, Limited};

/// API Gateway's limit on a request's payload (HTTP APIs: 10 MB).
pub const API_GATEWAY_LIMIT: usize = 10 * 1024 * 1024;

/// Puts `router` behind a layer that reads each request's body, at most `limit` bytes, before
/// routing it. A body over `limit` (declared in `Content-Length` or found reading) is answered
/// `refusal(Unread::TooLarge)` without reading the rest, a body that breaks off
/// `refusal(Unread::Broken)`; either answer says `Connection: close`. Apply it outermost
/// (inside request tracing only), after the routes and the fallback.
pub fn read_first(router: Router, limit: usize, refusal: fn(Unread) -> Response) -> Router {
    router.layer(axum::middleware::from_fn(move |request: Request, next: Next| async move {
        match whole(request, limit).await {
            Ok(request) => next.run(request).await,
            Err(unread) => closing(refusal(unread)),
        }
    }))
}

/// Why a request's body was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// It is over the limit.
    TooLarge,
    /// The client stopped sending it, or its chunked encoding is malformed.
    Broken,
}

/// `request` with its body in memory.
async fn whole(request: Request, limit: usize) -> Result<Request, Unread> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(Unread::TooLarge);
    }
    let (parts, body) = request.into_parts();
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
        Err(error) if error.is::<LengthLimitError>() => Err(Unread::TooLarge),
        Err(_) => Err(Unread::Broken),
    }
}

/// `response` saying that the connection closes after it.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The local gateway's refusal of a body, in the plain `{code, message, data}` shape: 413 over
/// [`API_GATEWAY_LIMIT`], 400 when it breaks off.
pub fn refusal(unread: Unread) -> Response {
    let (status, message) = match unread {
        Unread::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is over {API_GATEWAY_LIMIT} bytes"),
        ),
        Unread::Broken => (StatusCode::BAD_REQUEST, "the request body could not be read".into()),
    };
    let body = serde_json::json!({ "code": status.as_u16(), "message": message, "data": null });
    (status, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::post;
    use tower::ServiceExt;

    fn app() -> Router {
        let echo = post(|body: axum::body::Bytes| async move { body.len().to_string() });
        read_first(Router::new().route("/echo", echo), 8, refusal)
    }

    async fn send(request: axum::http::request::Builder, body: Body) -> Response {
        app().oneshot(request.uri("/echo").method("POST").body(body).unwrap()).await.unwrap()
    }

    async fn text(response: Response) -> String {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    fn chunks(parts: &'static [&'static str]) -> Body {
        let stream = futures::stream::iter(parts.iter().map(|part| Ok::<_, std::io::Error>(*part)));
        Body::from_stream(stream)
    }

    #[tokio::test]
    async fn a_body_within_the_limit_reaches_the_handler_whole() {
        let response = send(Request::builder(), chunks(&["abc", "defgh"])).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(!response.headers().contains_key(header::CONNECTION));
        assert_eq!(text(response).await, "8");
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_413_and_closes_the_connection() {
        let declared = Request::builder().header(header::CONTENT_LENGTH, "9");
        let found = send(Request::builder(), chunks(&["abcd", "efghi"])).await;
        for response in [send(declared, Body::empty()).await, found] {
            assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
            assert_eq!(response.headers()[header::CONNECTION], "close");
            assert!(text(response).await.contains("\"code\":413"));
        }
    }

    #[tokio::test]
    async fn a_body_that_breaks_off_is_400_and_closes_the_connection() {
        let parts = [Ok(axum::body::Bytes::from_static(b"ab")), Err(std::io::Error::other("gone"))];
        let response =
            send(Request::builder(), Body::from_stream(futures::stream::iter(parts))).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()[header::CONNECTION], "close");
    }
}
