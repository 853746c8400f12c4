//! [`Blobs`] on Amazon S3 (or an S3-compatible server) with the SDK's native SigV4 presigning.
//! An upload URL signs `Content-Type` and `Content-Length`, so S3 refuses a PUT with other
//! values; nothing else is signed, so a PUT with only `Content-Type` works (as a browser's
//! `fetch` sends it). Every SDK error becomes an `anyhow` error naming the operation and the key,
//! followed by the service's error code and message (or the SDK's error chain when no service
//! answered). A client and buckets on an emulator, for tests, are in `s3_testing.rs` (feature
//! `test-support`).

use std::time::{Duration, SystemTime};

use crate::ports::aws::{LazyClient, SdkConfig};
use anyhow::{anyhow, Context};
use async_trait::async_trait;
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::Client;

use super::{
    Blobs, Fetched, ListedObject, ObjectInfo, PresignedUpload, Put, PutCondition, Served,
    UploadSpec,
};

#[cfg(any(test, feature = "test-support"))]
#[path = "s3_testing.rs"]
mod testing;

/// The S3 adapter of the [`Blobs`] port, bound to one bucket. Cheap to clone.
#[derive(Clone, Debug)]
pub struct S3Blobs {
    client: LazyClient<Client>,
    bucket: String,
    /// Base URL of the public objects (`BLOG_PUBLIC_FILES_URL`), without a trailing `/`.
    public_files_url: Option<String>,
}

impl S3Blobs {
    /// An adapter for `bucket` through `client`.
    pub fn new(client: Client, bucket: impl Into<String>) -> Self {
        Self { client: LazyClient::built(client), bucket: bucket.into(), public_files_url: None }
    }

    /// An adapter built from the shared SDK configuration; `endpoint` overrides the endpoint of
    /// S3 only (`BLOG_S3_ENDPOINT`) and switches to path-style addressing, which emulators need.
    /// Its client is built on first use (see [`LazyClient`]).
    pub fn from_config(sdk: &SdkConfig, bucket: impl Into<String>, endpoint: Option<&str>) -> Self {
        let mut config = aws_sdk_s3::config::Builder::from(sdk);
        if let Some(endpoint) = endpoint {
            config = config.endpoint_url(endpoint).force_path_style(true);
        }
        let config = config.build();
        let client = LazyClient::new(move || Client::from_conf(config.clone()));
        Self { client, bucket: bucket.into(), public_files_url: None }
    }

    /// The adapter, its objects under [`super::PUBLIC_PREFIX`] served at `url` (the public
    /// files' distribution, e.g. `https://d111111abcdef8.cloudfront.net`) followed by the key.
    pub fn with_public_files_url(mut self, url: Option<&str>) -> Self {
        self.public_files_url = url.map(|url| url.trim_end_matches('/').to_string());
        self
    }

    /// The underlying SDK client.
    pub fn client(&self) -> &Client {
        self.client.get()
    }

    fn presigning(expires: Duration) -> anyhow::Result<PresigningConfig> {
        PresigningConfig::expires_in(expires).context("presigning configuration")
    }
}

/// `<operation> <key>: <code>: <message> (HTTP <status>)` for a service error, else
/// `<operation> <key>: ` and the SDK's error chain (timeouts, connection failures, ...).
fn sdk_error<E>(operation: &str, key: &str, error: SdkError<E, HttpResponse>) -> anyhow::Error
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let status = error.raw_response().map(|r| r.status().as_u16()).unwrap_or_default();
    match error.as_service_error() {
        Some(service) => anyhow!(
            "{operation} {key}: {}: {} (HTTP {status})",
            service.code().unwrap_or("unknown error"),
            service.message().unwrap_or("no message")
        ),
        None => anyhow!("{operation} {key}: {}", DisplayErrorContext(error)),
    }
}

/// Whether an error says a condition of the request did not hold (`PreconditionFailed`, 412).
fn is_precondition_failed<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> bool {
    let code = error.as_service_error().and_then(|e| e.code());
    let status = error.raw_response().map(|response| response.status().as_u16());
    code == Some("PreconditionFailed") || status == Some(412)
}

/// Whether a conditional write lost to a concurrent one on the same key
/// (`ConditionalRequestConflict`, 409): the caller reads again, as after a failed condition.
fn is_conditional_conflict<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> bool {
    error.as_service_error().and_then(|e| e.code()) == Some("ConditionalRequestConflict")
}

/// The headers a presigned `url` signs (its `X-Amz-SignedHeaders`), with their values among
/// `headers`, but `Host` and `Content-Length` (implied by the request). Other headers the SDK
/// put on the request are not the client's to send: inside Lambda, for one, the SDK adds the
/// invocation's `X-Amzn-Trace-Id`, which SigV4 leaves unsigned.
fn headers_to_send<'a>(
    url: &str,
    headers: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<(String, String)> {
    let query = url.split_once('?').map_or("", |(_, query)| query);
    let signed: Vec<String> = form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "X-Amz-SignedHeaders")
        .map(|(_, list)| list.split(';').map(str::to_ascii_lowercase).collect())
        .unwrap_or_default();
    headers
        .filter(|(name, _)| signed.contains(&name.to_ascii_lowercase()))
        .filter(|(name, _)| {
            !matches!(name.to_ascii_lowercase().as_str(), "host" | "content-length")
        })
        .map(|(name, value)| (canonical_header_name(name), value.to_string()))
        .collect()
}

/// Whether an error says the object does not exist (`NoSuchKey`, or a bare 404 as some
/// S3-compatible servers answer).
fn is_missing<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> bool {
    let code = error.as_service_error().and_then(|e| e.code());
    let status = error.raw_response().map(|response| response.status().as_u16());
    code == Some("NoSuchKey") || (code.is_none() && status == Some(404))
}

#[async_trait]
impl Blobs for S3Blobs {
    async fn presign_put(&self, upload: &UploadSpec) -> anyhow::Result<PresignedUpload> {
        let length = i64::try_from(upload.content_length).context("content length")?;
        let request = self
            .client()
            .put_object()
            .bucket(&self.bucket)
            .key(&upload.key)
            .content_type(&upload.content_type)
            .content_length(length)
            .presigned(Self::presigning(upload.expires)?)
            .await
            .map_err(|e| sdk_error("PutObject (presign)", &upload.key, e))?;
        let headers = headers_to_send(request.uri(), request.headers());
        Ok(PresignedUpload { url: request.uri().to_string(), headers })
    }

    async fn presign_get(
        &self,
        key: &str,
        expires: Duration,
        served: &Served,
    ) -> anyhow::Result<String> {
        let request = self
            .client()
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .set_response_content_type(Some(served.content_type.clone()).filter(|t| !t.is_empty()))
            .set_response_content_disposition(
                Some(served.disposition.clone()).filter(|d| !d.is_empty()),
            )
            .presigned(Self::presigning(expires)?)
            .await
            .map_err(|e| sdk_error("GetObject (presign)", key, e))?;
        Ok(request.uri().to_string())
    }

    async fn head(&self, key: &str) -> anyhow::Result<Option<ObjectInfo>> {
        match self.client().head_object().bucket(&self.bucket).key(key).send().await {
            Ok(output) => {
                let size = output.content_length().unwrap_or_default();
                let size = u64::try_from(size).context("negative content length")?;
                let etag = output.e_tag().unwrap_or_default().trim_matches('"').to_string();
                Ok(Some(ObjectInfo { size, etag }))
            }
            Err(e) if e.as_service_error().is_some_and(|e| e.is_not_found()) => Ok(None),
            Err(e) => Err(sdk_error("HeadObject", key, e)),
        }
    }

    async fn copy_if_match(&self, from: &str, to: &str, etag: &str) -> anyhow::Result<bool> {
        let copied = self
            .client()
            .copy_object()
            .bucket(&self.bucket)
            .key(to)
            .copy_source(format!("{}/{from}", self.bucket))
            .copy_source_if_match(format!("\"{etag}\""))
            .send()
            .await;
        match copied {
            Ok(_) => Ok(true),
            Err(e) if is_missing(&e) || is_precondition_failed(&e) => Ok(false),
            Err(e) => Err(sdk_error("CopyObject", &format!("{from} to {to}"), e)),
        }
    }

    async fn get(&self, key: &str, if_none_match: Option<&str>) -> anyhow::Result<Fetched> {
        let request = self.client().get_object().bucket(&self.bucket).key(key);
        let request = request.set_if_none_match(if_none_match.map(|etag| format!("\"{etag}\"")));
        let output = match request.send().await {
            Ok(output) => output,
            Err(e) if is_missing(&e) => return Ok(Fetched::Missing),
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 304) => {
                return Ok(Fetched::Unchanged)
            }
            Err(e) => return Err(sdk_error("GetObject", key, e)),
        };
        let etag = output.e_tag().unwrap_or_default().trim_matches('"').to_string();
        // A server that ignores `If-None-Match` (s3s-fs) answers 200: its body is not read.
        if if_none_match.is_some_and(|wanted| wanted == etag) {
            return Ok(Fetched::Unchanged);
        }
        let body = output.body.collect().await.with_context(|| format!("GetObject {key}: body"))?;
        Ok(Fetched::Found { bytes: body.into_bytes().to_vec(), etag })
    }

    async fn put(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        condition: PutCondition,
    ) -> anyhow::Result<Put> {
        let request = self
            .client()
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .body(bytes.into());
        let request = match condition {
            PutCondition::Absent => request.if_none_match("*"),
            PutCondition::Matches(etag) => request.if_match(format!("\"{etag}\"")),
        };
        match request.send().await {
            Ok(output) => {
                let etag = output.e_tag().unwrap_or_default().trim_matches('"').to_string();
                Ok(Put::Stored { etag })
            }
            // 409 ConditionalRequestConflict: a concurrent conditional write to the same key.
            Err(e) if is_precondition_failed(&e) || is_conditional_conflict(&e) => {
                Ok(Put::ConditionFailed)
            }
            Err(e) => Err(sdk_error("PutObject", key, e)),
        }
    }

    async fn list(&self, prefix: &str) -> anyhow::Result<Vec<ListedObject>> {
        let request = self.client().list_objects_v2().bucket(&self.bucket).prefix(prefix);
        let mut pages = request.into_paginator().send();
        let mut listed = Vec::new();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| sdk_error("ListObjectsV2", prefix, e))?;
            for object in page.contents() {
                let (Some(key), Some(modified)) = (object.key(), object.last_modified()) else {
                    continue;
                };
                let modified = SystemTime::try_from(*modified).context("last-modified time")?;
                listed.push(ListedObject { key: key.to_string(), modified });
            }
        }
        Ok(listed)
    }

    async fn delete(&self, key: &str) -> anyhow::Result<()> {
        self.client()
            .delete_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| sdk_error("DeleteObject", key, e))?;
        Ok(())
    }

    async fn exists(&self, key: &str) -> anyhow::Result<bool> {
        Ok(self.head(key).await?.is_some())
    }

    async fn ping(&self) -> anyhow::Result<()> {
        self.client()
            .head_bucket()
            .bucket(&self.bucket)
            .send()
            .await
            .map_err(|e| sdk_error("HeadBucket", &self.bucket, e))?;
        Ok(())
    }

    fn storage_type(&self) -> &'static str {
        "S3"
    }

    fn bucket(&self) -> String {
        self.bucket.clone()
    }

    fn public_url(&self, key: &str) -> Option<String> {
        let base = self.public_files_url.as_ref()?;
        key.starts_with(super::PUBLIC_PREFIX).then(|| format!("{base}/{key}"))
    }
}

/// Header names as S3 documents them (`Content-Type`).
fn canonical_header_name(name: &str) -> String {
    match name.to_ascii_lowercase().as_str() {
        "content-type" => "Content-Type".into(),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs() -> S3Blobs {
        S3Blobs::new(S3Blobs::test_client("http://127.0.0.1:9"), "bucket")
    }

    #[test]
    fn upload_headers_are_the_signed_ones_only() {
        let url = "http://s3/b/k?X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost&X-Amz-Signature=0";
        let headers = [
            ("content-type", "image/png"),
            ("content-length", "3"),
            ("host", "s3"),
            ("x-amzn-trace-id", "Root=1-00000000-000000000000000000000000"),
        ];
        let listed = headers_to_send(url, headers.into_iter());
        assert_eq!(listed, [("Content-Type".to_string(), "image/png".to_string())]);
    }

    fn spec() -> UploadSpec {
        UploadSpec {
            key: "incoming/0123456789abcdef0123456789abcdef.pdf".into(),
            content_type: "application/pdf".into(),
            content_length: 1234,
            expires: Duration::from_secs(900),
        }
    }

    fn signed_headers(url: &str) -> String {
        let query = url.split_once('?').unwrap().1;
        let (_, value) = query
            .split('&')
            .find_map(|p| p.split_once('=').filter(|(k, _)| *k == "X-Amz-SignedHeaders"))
            .unwrap();
        value.replace("%3B", ";")
    }

    #[tokio::test]
    async fn an_upload_url_signs_only_the_key_type_and_length() {
        let upload = blobs().presign_put(&spec()).await.unwrap();
        assert!(
            upload.url.starts_with("http://127.0.0.1:9/bucket/incoming/0123456789abcdef"),
            "{}",
            upload.url
        );
        assert!(upload.url.contains("X-Amz-Expires=900"), "{}", upload.url);
        assert_eq!(signed_headers(&upload.url), "content-length;content-type;host");
        assert_eq!(upload.headers, [("Content-Type".to_string(), "application/pdf".to_string())]);
    }

    #[tokio::test]
    async fn an_adapter_from_the_shared_configuration_builds_its_client_on_first_use() {
        let sdk = crate::ports::aws::example_config("eu-west-1");
        let blobs = S3Blobs::from_config(&sdk, "bucket", Some("http://127.0.0.1:9"));
        assert!(!blobs.client.is_built());
        let url = blobs
            .presign_get("uploads/a.pdf", Duration::from_secs(60), &Served::default())
            .await
            .unwrap();
        assert!(blobs.client.is_built());
        assert!(url.starts_with("http://127.0.0.1:9/bucket/uploads/a.pdf?"), "{url}");
        assert!(url.contains("eu-west-1%2Fs3%2Faws4_request"), "{url}");
    }

    fn served() -> Served {
        Served {
            content_type: "text/html".into(),
            disposition: "attachment; filename=\"a.html\"".into(),
        }
    }

    #[tokio::test]
    async fn an_access_url_expires_as_asked_and_signs_the_answers_type_and_disposition() {
        let url =
            blobs().presign_get("uploads/a.pdf", Duration::from_secs(60), &served()).await.unwrap();
        assert!(url.contains("X-Amz-Expires=60") && url.contains("X-Amz-Signature="), "{url}");
        assert!(url.contains("response-content-type=text%2Fhtml"), "{url}");
        assert!(
            url.contains("response-content-disposition=attachment%3B%20filename%3D%22a.html%22"),
            "{url}"
        );
    }
}
