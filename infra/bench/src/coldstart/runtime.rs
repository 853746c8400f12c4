//! A stub of the Lambda Runtime API, enough for lambda_runtime: `GET .../invocation/next` hands
//! out the armed events one by one (and, once they are used up, holds the poll open as Lambda
//! does while no invocation waits); `POST .../invocation/{id}/response` and the error routes
//! are reported with the instant they arrived, so the bench can time a cold start exactly.

use std::{
    collections::VecDeque,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use anyhow::Result;
use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Router,
};
use tokio::sync::mpsc;

/// What the function did, as the stub saw it.
#[derive(Debug)]
pub enum Signal {
    /// It asked for the next invocation.
    Poll(Instant),
    /// It answered an invocation.
    Response { at: Instant, body: Bytes },
    /// It reported an initialisation or invocation error.
    Error { body: String },
}

#[derive(Default)]
struct Armed {
    events: VecDeque<Bytes>,
    signals: Option<mpsc::UnboundedSender<Signal>>,
    sequence: u64,
}

type Shared = Arc<Mutex<Armed>>;

/// The running stub; its address goes into `AWS_LAMBDA_RUNTIME_API`.
pub struct RuntimeApi {
    addr: SocketAddr,
    armed: Shared,
}

impl RuntimeApi {
    /// Starts the stub on an ephemeral port of 127.0.0.1.
    pub async fn start() -> Result<Self> {
        let armed = Shared::default();
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(armed.clone());
        let addr = super::serve_locally(app, "runtime API stub").await?;
        Ok(Self { addr, armed })
    }

    /// `host:port`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// Queues the events of the next function run; its signals arrive on the returned channel.
    pub fn arm(&self, events: Vec<Bytes>) -> mpsc::UnboundedReceiver<Signal> {
        let (sender, receiver) = mpsc::unbounded_channel();
        let mut armed = self.armed.lock().expect("stub state");
        armed.events = events.into();
        armed.signals = Some(sender);
        receiver
    }
}

fn signal(armed: &Shared, signal: Signal) {
    if let Some(signals) = &armed.lock().expect("stub state").signals {
        let _ = signals.send(signal);
    }
}

async fn next(State(armed): State<Shared>) -> Response {
    let at = Instant::now();
    let event = {
        let mut state = armed.lock().expect("stub state");
        if let Some(signals) = &state.signals {
            let _ = signals.send(Signal::Poll(at));
        }
        state.sequence += 1;
        state.events.pop_front().map(|event| (state.sequence, event))
    };
    let Some((sequence, event)) = event else {
        // No invocation waits: hold the poll until the function is stopped.
        return std::future::pending().await;
    };
    let deadline =
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() + 30_000;
    let mut headers = HeaderMap::new();
    let mut set = |name: &'static str, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    };
    set("lambda-runtime-aws-request-id", format!("bench-{sequence:08}"));
    set("lambda-runtime-deadline-ms", deadline.to_string());
    set(
        "lambda-runtime-invoked-function-arn",
        "arn:aws:lambda:us-east-1:123456789012:function:bench".into(),
    );
    set("lambda-runtime-trace-id", format!("Root=1-00000000-{sequence:024x};Sampled=0"));
    set("content-type", "application/json".into());
    (headers, event).into_response()
}

async fn response(State(armed): State<Shared>, Path(_id): Path<String>, body: Bytes) -> StatusCode {
    signal(&armed, Signal::Response { at: Instant::now(), body });
    StatusCode::ACCEPTED
}

async fn error(State(armed): State<Shared>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    let body = format!("invocation {id}: {}", String::from_utf8_lossy(&body));
    signal(&armed, Signal::Error { body });
    StatusCode::ACCEPTED
}

async fn init_error(State(armed): State<Shared>, body: Bytes) -> StatusCode {
    let body = format!("initialisation: {}", String::from_utf8_lossy(&body));
    signal(&armed, Signal::Error { body });
    StatusCode::ACCEPTED
}
