//! The instances' way to the Runtime API emulator: a pass-through per function that sees when an
//! instance takes an invocation: the emulator's answer to `next` is the invocation's payload,
//! unchanged (it keeps no header of the stack's that could name it). From that moment the
//! function's `Timeout` runs, as in Lambda, where neither the initialisation of a new instance
//! (limited on its own) nor a wait for one counts against it. The answer's
//! `Lambda-Runtime-Deadline-Ms` is set to that moment plus the timeout, as Lambda sets it.
//! Invocations of equal payloads are taken in the order they were made.

use std::{
    collections::{HashMap, VecDeque},
    hash::{DefaultHasher, Hash, Hasher},
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::Result;
use axum::{
    extract::{Request, State},
    http::{HeaderValue, Method, StatusCode},
    response::{IntoResponse, Response},
    Router,
};
use http_body_util::BodyExt;
use tokio::sync::oneshot;

use crate::{forward::Forwarder, lock};

const DEADLINE_HEADER: &str = "lambda-runtime-deadline-ms";

/// The invocations no instance has taken yet, by the hash of their payload.
#[derive(Default)]
pub struct Pickups {
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    made: u64,
    by_payload: HashMap<u64, VecDeque<(Ticket, oneshot::Sender<()>)>>,
}

/// One invocation among those waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    payload: u64,
    number: u64,
}

fn digest(payload: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    payload.hash(&mut hasher);
    hasher.finish()
}

impl Pickups {
    /// Notes an invocation of `payload` about to be made: its ticket, and what resolves when an
    /// instance takes it.
    pub fn expect(&self, payload: &[u8]) -> (Ticket, oneshot::Receiver<()>) {
        let mut waiting = lock(&self.waiting);
        waiting.made += 1;
        let ticket = Ticket { payload: digest(payload), number: waiting.made };
        let (sender, receiver) = oneshot::channel();
        waiting.by_payload.entry(ticket.payload).or_default().push_back((ticket, sender));
        (ticket, receiver)
    }

    /// The invocation of `ticket` is over (or was given up): nothing waits for it any more.
    pub fn forget(&self, ticket: Ticket) {
        let mut waiting = lock(&self.waiting);
        if let Some(queue) = waiting.by_payload.get_mut(&ticket.payload) {
            queue.retain(|(t, _)| *t != ticket);
            if queue.is_empty() {
                waiting.by_payload.remove(&ticket.payload);
            }
        }
    }

    fn taken(&self, payload: &[u8]) {
        let mut waiting = lock(&self.waiting);
        let key = digest(payload);
        if let Some(queue) = waiting.by_payload.get_mut(&key) {
            if let Some((_, sender)) = queue.pop_front() {
                let _ = sender.send(());
            }
            if queue.is_empty() {
                waiting.by_payload.remove(&key);
            }
        }
    }
}

struct Relay {
    emulator: Forwarder,
    pickups: Arc<Pickups>,
    timeout: Duration,
}

/// Starts the pass-through to the emulator at `runtime` for a function of `timeout`; its address.
pub async fn start(
    runtime: SocketAddr,
    pickups: Arc<Pickups>,
    timeout: Duration,
) -> Result<SocketAddr> {
    let relay = Arc::new(Relay {
        emulator: Forwarder::new(&format!("http://{runtime}"))?,
        pickups,
        timeout,
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let app = Router::new().fallback(pass).with_state(relay);
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("[stack] a runtime relay stopped: {error}");
        }
    });
    Ok(address)
}

async fn pass(State(relay): State<Arc<Relay>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => return (StatusCode::BAD_REQUEST, error.to_string()).into_response(),
    };
    let next = parts.method == Method::GET && parts.uri.path().ends_with("/invocation/next");
    let response = match relay.emulator.send(parts, body).await {
        Ok(response) => response,
        Err(error) => return (StatusCode::BAD_GATEWAY, format!("{error:#}")).into_response(),
    };
    if !(next && response.status() == StatusCode::OK) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(payload) = body.collect().await.map(|b| b.to_bytes()) else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let deadline = chrono::Utc::now().timestamp_millis() as u128 + relay.timeout.as_millis();
    parts.headers.insert(DEADLINE_HEADER, HeaderValue::from(deadline as u64));
    relay.pickups.taken(&payload);
    Response::from_parts(parts, payload.into())
}
