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

use anyhow::Result;
use axum::{
    body::Bytes,
    extract::{Request, State},
    http::StatusCode,
    response::{IntoResponse, Response},
    Router,
};
use http_body_util::BodyExt;

use crate::{
    forward::Forwarder,
    recorder::{Call, Recorder},
};

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

/// A forwarder per emulator.
struct Forwarders {
    dynamodb: Forwarder,
    moto: Forwarder,
    s3: Forwarder,
    bedrock: Forwarder,
}

impl Forwarders {
    fn new(upstreams: &Upstreams) -> Result<Self> {
        Ok(Self {
            dynamodb: Forwarder::new(&upstreams.dynamodb)?,
            moto: Forwarder::new(&upstreams.moto)?,
            s3: Forwarder::new(&upstreams.s3)?,
            bedrock: Forwarder::new(&upstreams.bedrock)?,
        })
    }

    fn of(&self, service: &str) -> Option<&Forwarder> {
        Some(match service {
            "dynamodb" => &self.dynamodb,
            "sqs" | "secretsmanager" => &self.moto,
            "s3" => &self.s3,
            "bedrock" => &self.bedrock,
            _ => return None,
        })
    }
}

struct Shared {
    function: String,
    recorder: Arc<Recorder>,
    upstreams: Forwarders,
    latency: Duration,
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
        upstreams: Forwarders::new(&upstreams)?,
        latency,
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
    let (parts, body) = request.into_parts();
    let body: Bytes = match body.collect().await {
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
    let metered = shared.recorder.begin(&shared.function, &service, &actions, &parts);
    let started = Instant::now();
    if !shared.latency.is_zero() {
        tokio::time::sleep(shared.latency).await;
    }
    let mut answer = upstream.send(parts, body).await;
    let mut items = 0;
    if metered.is_some() {
        // A metered table read: the items it returned, read from the (in-memory) answer.
        if let Ok(response) = answer {
            let (parts, body) = response.into_parts();
            answer = match body.collect().await {
                Ok(collected) => {
                    let bytes = collected.to_bytes();
                    items = crate::recorder::items_read(&bytes);
                    Ok(Response::from_parts(parts, axum::body::Body::from(bytes)))
                }
                Err(error) => Err(anyhow::anyhow!("reading the emulator's answer: {error}")),
            };
        }
    }
    shared.recorder.end(metered, items);
    let status = answer.as_ref().map_or(502, |r| r.status().as_u16());
    let mut call = Call::new(&shared.function, &service, actions, status);
    call.elapsed = started.elapsed();
    shared.recorder.record(call);
    answer.unwrap_or_else(|error| {
        aws_error(StatusCode::BAD_GATEWAY, "EmulatorUnreachable", &format!("{error:#}"))
    })
}
