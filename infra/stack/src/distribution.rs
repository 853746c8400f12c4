//! CloudFront distributions whose origin is a bucket read through origin access control (the
//! public files'), served on a port of 127.0.0.1 as CloudFront serves them: a GET or HEAD of
//! `/<key>` reads the object from the S3 emulator when the bucket policy lets this distribution
//! (`cloudfront.amazonaws.com` with its `AWS:SourceArn`) `s3:GetObject` it, and answers S3's 403
//! `AccessDenied` otherwise, also for a missing key (origin access control has no
//! `s3:ListBucket`). Its `DomainName` is `127.0.0.1:<port>`; it speaks plain HTTP, so a
//! function variable that names it `https://127.0.0.1:<port>` gets `http://` (see
//! [`crate::stack`]). Distributions of any other origin (the API's cache) are not emulated.

use std::{net::SocketAddr, sync::Arc};

use anyhow::{Context, Result};
use axum::{
    body::Body,
    extract::{Path, State},
    http::{header, Method, StatusCode},
    response::{IntoResponse, Response},
    routing::get,
    Router,
};
use serde_json::Value;

use crate::template::intrinsics::{Physical, ACCOUNT};

/// A distribution the stack emulates, bound before the resources that name it resolve.
pub struct Emulated {
    /// Its logical id.
    pub logical_id: String,
    /// Where it listens.
    pub listener: std::net::TcpListener,
    /// Its physical id (`E` and 13 characters, as CloudFront's).
    pub id: String,
    /// The bucket of its origin.
    pub bucket: String,
}

impl Emulated {
    /// A distribution `logical_id` on a free port of 127.0.0.1, when `properties` (resolved)
    /// give it one origin, a bucket read through origin access control.
    pub fn bind(logical_id: &str, properties: &Value) -> Result<Option<Self>> {
        let origins = properties["DistributionConfig"]["Origins"].as_array();
        let [origin] = origins.map(Vec::as_slice).unwrap_or_default() else { return Ok(None) };
        if origin["OriginAccessControlId"].as_str().is_none() || origin["S3OriginConfig"].is_null()
        {
            return Ok(None);
        }
        // `<bucket>.s3.<region>.amazonaws.com` (the bucket's RegionalDomainName).
        let domain = origin["DomainName"].as_str().unwrap_or_default();
        let Some((bucket, _)) = domain.split_once(".s3.") else { return Ok(None) };
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let id: String = uuid::Uuid::new_v4().simple().to_string()[..13].to_uppercase();
        let (logical_id, bucket) = (logical_id.to_string(), bucket.to_string());
        Ok(Some(Self { logical_id, listener, id: format!("E{id}"), bucket }))
    }

    /// How its resource resolves: `Ref` its id, `DomainName` where it listens.
    pub fn physical(&self) -> Result<Physical> {
        let domain = self.listener.local_addr()?.to_string();
        Ok(Physical::new(self.id.clone(), &[("DomainName", domain), ("Id", self.id.clone())]))
    }

    /// Whether a distribution of the template (its unresolved `resource`) is one the stack
    /// emulates, so that its properties are worth waiting for.
    pub fn emulable(resource: &Value) -> bool {
        let origins = resource["Properties"]["DistributionConfig"]["Origins"].as_array();
        let [origin] = origins.map(Vec::as_slice).unwrap_or_default() else { return false };
        !origin["OriginAccessControlId"].is_null() && !origin["S3OriginConfig"].is_null()
    }

    /// Serves it: the objects of its bucket through `s3`, as far as `policies` (the resolved
    /// bucket policies of the template) let it read them.
    pub fn serve(self, s3: aws_sdk_s3::Client, policies: &[Value]) -> Result<()> {
        let bucket = self.bucket.clone();
        let arn = format!("arn:aws:cloudfront::{ACCOUNT}:distribution/{}", self.id);
        let readable = readable_patterns(policies, &arn);
        spawn(self.listener, Origin { s3, bucket, readable }, self.logical_id)
    }
}

/// A distribution in front of the `public/` objects of `bucket` (read through `s3`), as the
/// template's public files distribution is, for harnesses without a template: its base URL.
pub fn serve_public_objects(s3: aws_sdk_s3::Client, bucket: &str) -> Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let url = format!("http://{}", listener.local_addr()?);
    let readable = vec![format!("arn:aws:s3:::{bucket}/public/*")];
    spawn(listener, Origin { s3, bucket: bucket.to_string(), readable }, bucket.to_string())?;
    Ok(url)
}

fn spawn(listener: std::net::TcpListener, origin: Origin, name: String) -> Result<()> {
    let addr: SocketAddr = listener.local_addr()?;
    let listener = tokio::net::TcpListener::from_std(listener)
        .with_context(|| format!("{name}: its listener"))?;
    let routes = Router::new().route("/{*key}", get(object)).with_state(Arc::new(origin));
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, routes).await {
            eprintln!("[stack] the distribution {name} on {addr} stopped: {error}");
        }
    });
    Ok(())
}

/// The object resources (`arn:aws:s3:::<bucket>/<pattern>`) that `policies` let the
/// distribution `arn` read.
fn readable_patterns(policies: &[Value], arn: &str) -> Vec<String> {
    let statements = policies.iter().flat_map(|policy| {
        let statements = &policy["PolicyDocument"]["Statement"];
        statements.as_array().cloned().unwrap_or_else(|| vec![statements.clone()])
    });
    let list = |value: &Value| -> Vec<String> {
        match value {
            Value::String(one) => vec![one.clone()],
            Value::Array(many) => {
                many.iter().filter_map(|v| v.as_str().map(String::from)).collect()
            }
            _ => vec![],
        }
    };
    statements
        .filter(|statement| statement["Effect"] == "Allow")
        .filter(|statement| {
            list(&statement["Principal"]["Service"]).iter().any(|s| s == "cloudfront.amazonaws.com")
        })
        .filter(|statement| list(&statement["Action"]).iter().any(|a| a == "s3:GetObject"))
        .filter(|statement| {
            let condition = &statement["Condition"]["StringEquals"]["AWS:SourceArn"];
            list(condition).iter().any(|source| source == arn)
        })
        .flat_map(|statement| list(&statement["Resource"]))
        .collect()
}

struct Origin {
    s3: aws_sdk_s3::Client,
    bucket: String,
    readable: Vec<String>,
}

fn access_denied() -> Response {
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>\
                <Message>Access Denied</Message></Error>";
    (StatusCode::FORBIDDEN, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

async fn object(
    State(origin): State<Arc<Origin>>,
    method: Method,
    Path(key): Path<String>,
) -> Response {
    let resource = format!("arn:aws:s3:::{}/{key}", origin.bucket);
    if !origin.readable.iter().any(|pattern| crate::iam::glob(pattern, &resource, false)) {
        return access_denied();
    }
    let Ok(found) = origin.s3.get_object().bucket(&origin.bucket).key(&key).send().await else {
        return access_denied();
    };
    let mut response = Response::builder().status(StatusCode::OK);
    if let Some(content_type) = found.content_type() {
        response = response.header(header::CONTENT_TYPE, content_type);
    }
    if let Some(etag) = found.e_tag() {
        response = response.header(header::ETAG, etag);
    }
    let bytes = match found.body.collect().await {
        Ok(bytes) => bytes.into_bytes(),
        Err(_) => return StatusCode::BAD_GATEWAY.into_response(),
    };
    response = response.header(header::CONTENT_LENGTH, bytes.len());
    let body = if method == Method::HEAD { Body::empty() } else { Body::from(bytes) };
    response.body(body).unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_bucket_policy_grants_this_distribution_is_readable() {
        let arn = "arn:aws:cloudfront::123456789012:distribution/EABC";
        let policy = serde_json::json!({"PolicyDocument": {"Statement": [
            {"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": "arn:aws:s3:::b/*"},
            {"Effect": "Allow", "Principal": {"Service": "cloudfront.amazonaws.com"},
             "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/public/*",
             "Condition": {"StringEquals": {"AWS:SourceArn": arn}}},
            {"Effect": "Allow", "Principal": {"Service": "cloudfront.amazonaws.com"},
             "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/other/*",
             "Condition": {"StringEquals": {"AWS:SourceArn": "arn:aws:cloudfront::1:distribution/X"}}}
        ]}});
        assert_eq!(readable_patterns(&[policy], arn), ["arn:aws:s3:::b/public/*"]);
    }
}
