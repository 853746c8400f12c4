//! Who reads: the anonymous reads of comments show a signed-in caller their own PENDING
//! comments, so they take the caller when a valid token comes with the request.

use axum::{
    extract::{FromRef, FromRequestParts},
    http::{header, request::Parts},
};

use blog_core::context::AppContext;
use blog_users::principal;

use crate::envelope::CommentError;

/// The caller of an anonymous read, when signed in: `(id, is administrator)`. A missing,
/// expired or otherwise invalid token reads as anonymous (a stale token in a browser must not
/// turn an article's comments into an error).
pub struct Viewer(pub Option<(u64, bool)>);

impl<S> FromRequestParts<S> for Viewer
where
    S: Send + Sync,
    AppContext: FromRef<S>,
{
    type Rejection = CommentError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, CommentError> {
        if !parts.headers.contains_key(header::AUTHORIZATION) {
            return Ok(Viewer(None));
        }
        let ctx = AppContext::from_ref(state);
        match principal::authenticate::<CommentError>(&ctx, parts).await {
            Ok(caller) => Ok(Viewer(Some((caller.id, caller.is_admin())))),
            Err(CommentError::Failure(blog_core::http::Failure::Unauthorized(_))) => {
                Ok(Viewer(None))
            }
            Err(other) => Err(other),
        }
    }
}
