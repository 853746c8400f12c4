//! The answers no cache may keep: every answer to a request with `Authorization` (a token, a
//! signed-in reader's own view, an administrator's read) and every answer of an area whose
//! answers are private whoever asks (the auth area's tokens) say `Cache-Control: no-store`,
//! whatever the handler or the caching layers set. Every area gets it ([`crate::area`]).

use axum::{
    extract::Request,
    http::{
        header::{AUTHORIZATION, CACHE_CONTROL},
        HeaderValue,
    },
    middleware::Next,
    Router,
};

use super::NO_STORE;

/// Puts `router` behind `Cache-Control: no-store` on every answer to a request with
/// `Authorization`, and on every answer when `always`.
pub fn no_store(router: Router, always: bool) -> Router {
    router.layer(axum::middleware::from_fn(move |request: Request, next: Next| async move {
        let private = always || request.headers().contains_key(AUTHORIZATION);
        let mut response = next.run(request).await;
        if private {
            response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static(NO_STORE));
        }
        response
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{body::Body, routing::get};
    use tower::ServiceExt;

    fn app(always: bool) -> Router {
        let cached = || async { ([(CACHE_CONTROL, "public, max-age=60")], "ok") };
        no_store(Router::new().route("/read", get(cached)), always)
    }

    async fn cache_control(always: bool, token: Option<&str>) -> String {
        let mut request = Request::builder().uri("/read");
        if let Some(token) = token {
            request = request.header(AUTHORIZATION, token);
        }
        let response = app(always).oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        response.headers()[CACHE_CONTROL].to_str().unwrap().to_string()
    }

    #[tokio::test]
    async fn an_answer_to_a_token_says_no_store_whatever_the_handler_set() {
        assert_eq!(cache_control(false, Some("Bearer x")).await, "no-store");
        // Even an unusable value: the answer may still be personal (its refusal).
        assert_eq!(cache_control(false, Some("")).await, "no-store");
    }

    #[tokio::test]
    async fn an_anonymous_answer_keeps_its_own_unless_the_area_is_private() {
        assert_eq!(cache_control(false, None).await, "public, max-age=60");
        assert_eq!(cache_control(true, None).await, "no-store");
    }
}
