//! [`routes!`](crate::routes!), the list every area names its endpoints with: the router and,
//! only while the API description is built ([`Area::api`](crate::area::Area::api)), the
//! handlers' OpenAPI operations and schemas. A function building its router at cold start
//! ([`Area::router`](crate::area::Area::router)) reads only each handler's path and methods:
//! the operations and schemas, which it never serves, were two thirds of its initialisation
//! (docs/performance.md).

use std::cell::Cell;

thread_local! {
    static DOCUMENTING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the routes listed on this thread now are for the API description.
pub fn documenting() -> bool {
    DOCUMENTING.with(Cell::get)
}

/// Runs `list` (an area's routes) with the handlers' operations and schemas included.
pub fn documented<T>(list: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DOCUMENTING.with(|documenting| documenting.set(self.0));
        }
    }
    let _restore = Restore(DOCUMENTING.with(|documenting| documenting.replace(true)));
    list()
}

/// What the macro's expansion names, whatever the calling crate depends on.
#[doc(hidden)]
pub mod __private {
    pub use axum;
    pub use utoipa;
    pub use utoipa_axum;
}

/// The handlers of one path for `OpenApiRouter::routes`, like `utoipa_axum::routes!` (same
/// syntax, same router); each handler's operation and the schemas it references are built only
/// inside [`documented`]. Elsewhere the path's operations are empty.
#[macro_export]
macro_rules! routes {
    ( $( $( $segment:ident )::+ ),+ $(,)? ) => {
        if $crate::routes::documenting() {
            $crate::routes::__private::utoipa_axum::routes!( $( $( $segment )::+ ),+ )
        } else {
            use $crate::routes::__private::utoipa_axum::PathItemExt as _;
            let mut paths = $crate::routes::__private::utoipa::openapi::path::Paths::new();
            let mut router = $crate::routes::__private::axum::routing::MethodRouter::new();
            $(
                let path = $crate::routes::__private::utoipa_axum::routes!(
                    @path [path()] of $( $segment )::+
                );
                let methods = $crate::routes::__private::utoipa_axum::routes!(
                    @path [methods()] of $( $segment )::+
                );
                router = methods
                    .iter()
                    .fold(router, |router, method| {
                        router.on(method.to_method_filter(), $( $segment )::+)
                    });
                paths.add_path_operation(
                    &path,
                    methods,
                    $crate::routes::__private::utoipa::openapi::path::Operation::new(),
                );
            )+
            (::std::vec::Vec::new(), paths, router)
        }
    };
}

#[cfg(test)]
mod tests {
    use axum::{body::Body, http::Request};
    use tower::ServiceExt;
    use utoipa_axum::router::OpenApiRouter;

    /// A greeting.
    #[utoipa::path(get, path = "/hello", responses((status = 200, body = String)))]
    async fn hello() -> &'static str {
        "hello"
    }

    /// A reply.
    #[utoipa::path(post, path = "/hello", responses((status = 200, body = String)))]
    async fn reply() -> &'static str {
        "reply"
    }

    fn listed() -> OpenApiRouter {
        OpenApiRouter::new().routes(crate::routes!(hello, reply))
    }

    async fn answer(router: axum::Router, method: &str) -> String {
        let request = Request::builder().method(method).uri("/hello").body(Body::empty()).unwrap();
        let response = router.oneshot(request).await.unwrap();
        let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_router_serves_every_handler_whether_or_not_it_is_documented() {
        let (served, _) = listed().split_for_parts();
        let (documented, _) = super::documented(listed).split_for_parts();
        for router in [served, documented] {
            assert_eq!(answer(router.clone(), "GET").await, "hello");
            assert_eq!(answer(router, "POST").await, "reply");
        }
    }

    #[test]
    fn operations_are_built_only_for_the_description() {
        let (_, served) = listed().split_for_parts();
        let operation = served.paths.paths["/hello"].get.clone().expect("GET /hello is routed");
        assert!(operation.responses.responses.is_empty(), "no operation is built to serve");
        assert!(operation.description.is_none());

        let (_, described) = super::documented(listed).split_for_parts();
        let item = &described.paths.paths["/hello"];
        for operation in [item.get.as_ref(), item.post.as_ref()] {
            let operation = operation.expect("both methods are described");
            assert!(operation.responses.responses.contains_key("200"));
        }
        assert!(!super::documenting(), "the description's scope ends with it");
    }
}
