//! The local store's signed URLs over HTTP: PUT stores an object, GET serves it, refusing like
//! S3 with its XML error body.

use std::time::Duration;

use axum::{
    body::{Body, Bytes},
    extract::{rejection::QueryRejection, Path as UrlPath, Query, State},
    http::{header, HeaderMap, HeaderName, Method, StatusCode},
    response::{IntoResponse, Response},
    routing::get,
    Router,
};
use md5::{Digest, Md5};
use serde::Deserialize;

use super::{
    read_if_present,
    signature::{Bound, Refusal},
    LocalBlobs, ROUTE_PREFIX,
};
use crate::{ports::table::now_epoch_seconds, whole_body::Unread};

/// Largest object the store accepts (a signed length above it is refused).
const MAX_OBJECT_BYTES: u64 = 64 * 1024 * 1024;

/// Optional on a PUT: when sent, the bytes must have this MD5 (base64), as on S3.
const CONTENT_MD5: HeaderName = HeaderName::from_static("content-md5");

/// PUT and GET under [`ROUTE_PREFIX`], open to browser pages of any origin. Each request's body
/// is read whole (up to [`MAX_OBJECT_BYTES`]) before it is answered, so that a refusal leaves a
/// kept-alive connection usable ([`crate::whole_body`]).
pub(super) fn router(store: LocalBlobs) -> Router {
    let cors = tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::GET, Method::PUT])
        .allow_headers([header::CONTENT_TYPE, CONTENT_MD5])
        .expose_headers([header::ETAG])
        .max_age(Duration::from_secs(600));
    let routes = Router::new()
        .route(&format!("{ROUTE_PREFIX}/{{*key}}"), get(download).put(upload))
        .with_state(store)
        .layer(cors);
    crate::whole_body::read_first(routes, MAX_OBJECT_BYTES as usize, unread)
}

/// S3's answers to a body over the object limit and to one that breaks off.
fn unread(unread: Unread) -> Response {
    match unread {
        Unread::TooLarge => s3_error(
            StatusCode::BAD_REQUEST,
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
        ),
        Unread::Broken => s3_error(
            StatusCode::BAD_REQUEST,
            "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header",
        ),
    }
}

/// Query of a signed URL.
#[derive(Deserialize)]
struct Signed {
    expires: i64,
    signature: String,
    /// The type a GET is answered with (signed).
    #[serde(rename = "type", default)]
    content_type: String,
    /// The disposition a GET is answered with (signed).
    #[serde(default)]
    disposition: String,
}

/// An S3-style error answer: status and `<Error><Code>..</Code><Message>..</Message></Error>`.
fn s3_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message></Error>"
    );
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Expired => s3_error(StatusCode::FORBIDDEN, "AccessDenied", "Request has expired"),
        Refusal::Mismatch => s3_error(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature does not match the signed headers",
        ),
    }
}

fn unsigned() -> Response {
    s3_error(StatusCode::FORBIDDEN, "AccessDenied", "Query-string authentication required")
}

fn no_such_key() -> Response {
    s3_error(StatusCode::NOT_FOUND, "NoSuchKey", "The specified key does not exist.")
}

pub(super) fn header_text<'a>(headers: &'a HeaderMap, name: &HeaderName) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

fn internal(error: anyhow::Error) -> Response {
    tracing::error!(error = format!("{error:#}"), "local blob store failure");
    s3_error(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", "We encountered an internal error")
}

/// Whether an optional `Content-MD5` (base64) is absent or matches `digest`.
fn digest_matches(content_md5: &str, digest: &[u8]) -> bool {
    use base64::Engine;
    content_md5.is_empty()
        || base64::engine::general_purpose::STANDARD.decode(content_md5).ok().as_deref()
            == Some(digest)
}

async fn upload(
    State(store): State<LocalBlobs>,
    UrlPath(key): UrlPath<String>,
    query: Result<Query<Signed>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Ok(Query(signed)) = query else { return unsigned() };
    let content_length = header_text(&headers, &header::CONTENT_LENGTH);
    let bound = Bound {
        method: "PUT",
        content_type: header_text(&headers, &header::CONTENT_TYPE),
        content_length,
        disposition: "",
    };
    let now = now_epoch_seconds();
    if let Err(refusal) =
        store.inner.signer.verify(&key, &bound, signed.expires, &signed.signature, now)
    {
        return refused(refusal);
    }
    let Some(length) = content_length.parse::<u64>().ok().filter(|n| *n <= MAX_OBJECT_BYTES) else {
        return s3_error(StatusCode::BAD_REQUEST, "InvalidArgument", "Unusable Content-Length");
    };
    let bytes: Bytes = match axum::body::to_bytes(body, length as usize).await {
        Ok(bytes) if bytes.len() as u64 == length => bytes,
        _ => {
            return s3_error(
                StatusCode::BAD_REQUEST,
                "IncompleteBody",
                "Body length differs from Content-Length",
            )
        }
    };
    let digest = Md5::digest(&bytes);
    if !digest_matches(header_text(&headers, &CONTENT_MD5), &digest) {
        return s3_error(
            StatusCode::BAD_REQUEST,
            "BadDigest",
            "The Content-MD5 you specified did not match what we received",
        );
    }
    if let Err(error) = store.store(&key, bound.content_type, &bytes).await {
        return internal(error);
    }
    let etag: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    (StatusCode::OK, [(header::ETAG, format!("\"{etag}\""))]).into_response()
}

async fn download(
    State(store): State<LocalBlobs>,
    UrlPath(key): UrlPath<String>,
    query: Result<Query<Signed>, QueryRejection>,
) -> Response {
    let Ok(Query(signed)) = query else {
        if key.starts_with(crate::ports::blobs::PUBLIC_PREFIX) {
            return public(&store, &key).await;
        }
        return unsigned();
    };
    let bound = Bound {
        method: "GET",
        content_type: &signed.content_type,
        disposition: &signed.disposition,
        ..Bound::default()
    };
    let now = now_epoch_seconds();
    if let Err(refusal) =
        store.inner.signer.verify(&key, &bound, signed.expires, &signed.signature, now)
    {
        return refused(refusal);
    }
    let Some(path) = store.object_path(&key) else { return no_such_key() };
    let bytes = match read_if_present(&path).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return no_such_key(),
        Err(error) => return internal(error),
    };
    let content_type = match signed.content_type.as_str() {
        "" => tokio::fs::read_to_string(store.type_path(&key))
            .await
            .unwrap_or_else(|_| "application/octet-stream".into()),
        signed => signed.to_string(),
    };
    let mut response =
        (StatusCode::OK, [(header::CONTENT_TYPE, content_type)], bytes).into_response();
    let headers = response.headers_mut();
    // The browser takes the type as given, and a document opened from here runs nothing.
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, header::HeaderValue::from_static("nosniff"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    if let Ok(disposition) = header::HeaderValue::from_str(&signed.disposition) {
        if !signed.disposition.is_empty() {
            headers.insert(header::CONTENT_DISPOSITION, disposition);
        }
    }
    response
}

/// A public object, as the public files' distribution serves it in AWS: its stored type, kept
/// by caches for a year (a public key is never written twice), nothing in it run or sniffed.
async fn public(store: &LocalBlobs, key: &str) -> Response {
    let Some(path) = store.object_path(key) else { return no_such_key() };
    let bytes = match read_if_present(&path).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return no_such_key(),
        Err(error) => return internal(error),
    };
    let content_type = tokio::fs::read_to_string(store.type_path(key))
        .await
        .unwrap_or_else(|_| "application/octet-stream".into());
    let headers = [
        (header::CONTENT_TYPE, content_type),
        (header::CACHE_CONTROL, "public, max-age=31536000, immutable".into()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".into()),
        (header::CONTENT_SECURITY_POLICY, "default-src 'none'; sandbox".into()),
    ];
    (StatusCode::OK, headers, bytes).into_response()
}
