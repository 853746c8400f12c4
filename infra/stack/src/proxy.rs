//! The functions' way to AWS: every function gets its own endpoint (the SDK's
//! `AWS_ENDPOINT_URL_<SERVICE>` variables point at it), which reads the SigV4 service a request
//! is signed for, records the IAM actions it needs under that function's name, and forwards it
//! unchanged to the emulator of that service: method, path and query, headers with `Host` as
//! the client sent it (the signatures cover it; s3s-fs verifies them), body. Presigned S3 URLs
//! point here too, so a browser's PUT is recorded under the function that signed it, whose
//! role authorizes it in AWS.

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use axum::{
    body::{Body, Bytes},
    extract::{Request, State},
    http::{
        header,
        uri::{Authority, PathAndQuery, Scheme},
        HeaderMap, StatusCode, Uri, Version,
    },
    response::{IntoResponse, Response},
    Router,
};
use http_body_util::{BodyExt, Full};
use hyper_util::{
    client::legacy::{connect::HttpConnector, Client},
    rt::TokioExecutor,
};

use crate::recorder::{Call, Recorder};

/// Where each service is emulated: base URLs such as `http://127.0.0.1:8000`.
#[derive(Clone, Debug)]
pub struct Upstreams {
    /// DynamoDB Local.
    pub dynamodb: String,
    /// moto (SQS and Secrets Manager).
    pub moto: String,
    /// s3s-fs.
    pub s3: String,
    /// The Bedrock Runtime stub.
    pub bedrock: String,
}

impl Upstreams {
    fn of(&self, service: &str) -> Option<&str> {
        Some(match service {
            "dynamodb" => &self.dynamodb,
            "sqs" | "secretsmanager" => &self.moto,
            "s3" => &self.s3,
            "bedrock" => &self.bedrock,
            _ => return None,
        })
    }
}

/// Headers that concern one connection only (RFC 9110 §7.6.1), not passed on; `expect` too,
/// as the whole body is read before the upstream is called.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
];

struct Shared {
    function: String,
    recorder: Arc<Recorder>,
    upstreams: Upstreams,
    latency: Duration,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// Starts the endpoint of `function` (its logical id) on a free port of 127.0.0.1; it runs
/// as long as the runtime. Each call takes `latency` more than the emulator needs, as a call
/// within an AWS region takes milliseconds where a local emulator answers in a fraction.
pub async fn start(
    function: &str,
    recorder: Arc<Recorder>,
    upstreams: Upstreams,
    latency: Duration,
) -> Result<SocketAddr> {
    let shared = Arc::new(Shared {
        function: function.to_string(),
        recorder,
        upstreams,
        latency,
        client: Client::builder(TokioExecutor::new()).build_http(),
    });
    let app = Router::new().fallback(forward).with_state(shared);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let function = function.to_string();
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("[stack] the AWS endpoint of {function} stopped: {error}");
        }
    });
    Ok(addr)
}

fn aws_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = serde_json::json!({ "__type": code, "message": message }).to_string();
    (status, [("content-type", "application/x-amz-json-1.0")], body).into_response()
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            return aws_error(StatusCode::BAD_REQUEST, "IncompleteBody", &error.to_string())
        }
    };
    let Some(service) = crate::actions::signed_service(&parts) else {
        return aws_error(StatusCode::FORBIDDEN, "MissingAuthenticationToken", "unsigned request");
    };
    let actions = match shared.recorder.actions_of(&service, &parts, &body) {
        Ok(actions) => actions,
        Err(error) => {
            let message = format!("{error:#}");
            shared.recorder.unreadable(&shared.function, &service, &message);
            return aws_error(StatusCode::BAD_REQUEST, "UnrecognizedRequest", &message);
        }
    };
    let Some(upstream) = shared.upstreams.of(&service) else {
        return aws_error(StatusCode::NOT_FOUND, "UnknownService", &service);
    };
    if shared.recorder.is_unreachable(&shared.function, &service) {
        shared.recorder.record(Call::new(&shared.function, &service, actions, 503));
        return aws_error(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable", "injected outage");
    }
    let metered = shared.recorder.begin(&service, &actions, &parts);
    let started = Instant::now();
    if !shared.latency.is_zero() {
        tokio::time::sleep(shared.latency).await;
    }
    let answer = relay(&shared, upstream, &mut parts, body).await;
    shared.recorder.end(metered);
    let status = answer.as_ref().map_or(502, |r| r.status().as_u16());
    let mut call = Call::new(&shared.function, &service, actions, status);
    call.elapsed = started.elapsed();
    shared.recorder.record(call);
    answer.unwrap_or_else(|error| {
        aws_error(StatusCode::BAD_GATEWAY, "EmulatorUnreachable", &format!("{error:#}"))
    })
}

async fn relay(
    shared: &Shared,
    upstream: &str,
    parts: &mut axum::http::request::Parts,
    body: Bytes,
) -> Result<Response> {
    let base: Uri = upstream.parse().context("an upstream URL")?;
    let path = parts.uri.path_and_query().cloned().unwrap_or(PathAndQuery::from_static("/"));
    let uri = Uri::builder()
        .scheme(base.scheme().cloned().unwrap_or(Scheme::HTTP))
        .authority(base.authority().cloned().unwrap_or(Authority::from_static("127.0.0.1")))
        .path_and_query(path)
        .build()?;
    let mut request = axum::http::Request::builder().method(parts.method.clone()).uri(uri);
    let headers = request.headers_mut().expect("a fresh builder");
    copy_headers(&parts.headers, headers);
    headers.insert(header::CONTENT_LENGTH, body.len().into());
    let request = request.version(Version::HTTP_11).body(Full::new(body))?;
    let response = shared.client.request(request).await.context("calling the emulator")?;
    let (mut head, body) = response.into_parts();
    let body = body.collect().await.context("reading the emulator's answer")?.to_bytes();
    let mut headers = HeaderMap::new();
    copy_headers(&head.headers, &mut headers);
    // A HEAD answer has no body; its length is the object's (HeadObject reads it).
    if parts.method == axum::http::Method::HEAD {
        if let Some(length) = head.headers.get(header::CONTENT_LENGTH) {
            headers.insert(header::CONTENT_LENGTH, length.clone());
        }
    }
    head.headers = headers;
    Ok(Response::from_parts(head, Body::from(body)))
}

fn copy_headers(from: &HeaderMap, to: &mut HeaderMap) {
    for (name, value) in from {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != header::CONTENT_LENGTH {
            to.append(name.clone(), value.clone());
        }
    }
}
