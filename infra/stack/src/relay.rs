//! The instances' way to the Runtime API emulator: a pass-through per function that sees when an
//! instance takes an invocation, and that never loses one to an instance that ends.
//!
//! cargo-lambda's emulator hands an invocation to the oldest `next` poll it holds. A poll made
//! inside an instance's own request would stay there for a few milliseconds after the instance
//! ended (until the closed connections reach the emulator) and take the next invocation to
//! nobody: the invocation would wait forever. So the relay makes its polls apart from the
//! instances' requests, as many as instances wait, and never abandons one: an invocation that
//! comes back for an instance that left is kept for the next instance that asks. The polls and
//! the kept invocations belong to the function's binary on its emulator ([`Invocations`]), so
//! a function started again under the same name is served by the polls of the one before.
//!
//! Each instance asks under a path of its own (`/instance/{number}/...`), so the relay knows
//! which one asks: an invocation goes only to an instance that waits for one and has not been
//! retired, and a retired instance that is still busy ends only when it asks for its next
//! invocation, as Lambda lets an invocation finish on the version that took it ([`Instance`]).
//!
//! The emulator's answer to `next` is the invocation's payload, unchanged (it keeps no header
//! of the stack's that could name it). From the moment an instance receives it the function's
//! `Timeout` runs, as in Lambda, where neither the initialisation of a new instance (limited on
//! its own) nor a wait for one counts against it: the answer's `Lambda-Runtime-Deadline-Ms` is
//! set to that moment plus the timeout, as Lambda sets it, and [`Pickups`] learns of it.

use std::{
    collections::{HashMap, VecDeque},
    net::SocketAddr,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use anyhow::Result;
use axum::{
    body::Bytes,
    extract::{Request, State},
    http::{response, HeaderMap, HeaderValue, Method, StatusCode, Uri},
    response::{IntoResponse, Response},
    Router,
};
use http_body_util::BodyExt;
use tokio::sync::{oneshot, Notify};

use crate::{forward::Forwarder, lock, pickup::Pickups};

const DEADLINE_HEADER: &str = "lambda-runtime-deadline-ms";

/// An instance as the relay sees it: its process and where it is in its invocations.
pub struct Instance {
    pid: u32,
    alive: AtomicBool,
    phase: Mutex<Phase>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Started; it has not asked yet.
    Starting,
    /// It waits for an invocation.
    Waiting,
    /// It runs one.
    Busy,
    /// Retired while busy: it ends when it asks for the next.
    Retiring,
    /// Retired, ended.
    Retired,
}

/// The instances of one function by number, as their paths name them.
pub type Roster = Mutex<HashMap<u64, Arc<Instance>>>;

impl Instance {
    /// The instance running as process `pid`.
    pub fn new(pid: u32) -> Self {
        Self { pid, alive: AtomicBool::new(true), phase: Mutex::new(Phase::Starting) }
    }

    /// Its process has exited.
    pub fn exited(&self) {
        self.alive.store(false, Ordering::SeqCst);
    }

    /// Its process runs (also while a retired one finishes its invocation).
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// It runs and takes invocations.
    pub fn is_serving(&self) -> bool {
        self.is_alive() && !matches!(*lock(&self.phase), Phase::Retiring | Phase::Retired)
    }

    /// Takes it out of service: ended now unless it runs an invocation, else when it asks for
    /// the next (Lambda does not wait for anything else of an instance it recycles).
    pub fn retire(&self) {
        let mut phase = lock(&self.phase);
        if *phase == Phase::Busy {
            *phase = Phase::Retiring;
        } else {
            *phase = Phase::Retired;
            self.kill();
        }
    }

    /// It asks for an invocation: whether it may have one (a retired one ends here).
    fn asks(&self) -> bool {
        let mut phase = lock(&self.phase);
        if matches!(*phase, Phase::Retiring | Phase::Retired) {
            *phase = Phase::Retired;
            self.kill();
            return false;
        }
        *phase = Phase::Waiting;
        true
    }

    /// Whether it may take an invocation now; if so, it runs it from here.
    fn takes(&self) -> bool {
        let mut phase = lock(&self.phase);
        let waiting = *phase == Phase::Waiting;
        if waiting {
            *phase = Phase::Busy;
        }
        waiting
    }

    /// It no longer waits (retired, or a poll failed it); true unless retired.
    fn still_serving(&self) -> bool {
        !matches!(*lock(&self.phase), Phase::Retiring | Phase::Retired)
    }

    /// Ends it now, whatever it runs (Lambda ends an instance whose invocation timed out).
    pub fn end(&self) {
        *lock(&self.phase) = Phase::Retired;
        self.kill();
    }

    fn kill(&self) {
        if self.is_alive() {
            // SAFETY: kill(2) on the pid of a child the stack started and has not reaped: its
            // watcher reaps it only after it has exited (and then marks it not alive).
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}

/// The invocations of one binary on one emulator: the polls open there and what they received
/// that no instance has had yet.
pub struct Invocations {
    emulator: Forwarder,
    state: Mutex<Polls>,
    arrived: Notify,
    /// Which invocations an instance has taken.
    pub pickups: Arc<Pickups>,
}

#[derive(Default)]
struct Polls {
    /// Polls open at the emulator.
    open: usize,
    /// Instances' `next` requests waiting for an invocation.
    waiting: usize,
    /// Invocations received by polls, in the order they arrived, not yet handed to an instance.
    received: VecDeque<(response::Parts, Bytes)>,
}

/// A waiting `next` request, counted while it waits (also when its instance goes).
struct Waiter<'a>(&'a Invocations);

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).waiting -= 1;
    }
}

impl Invocations {
    /// The invocations of a binary served by the emulator at `runtime`.
    pub fn new(runtime: SocketAddr) -> Result<Self> {
        Ok(Self {
            emulator: Forwarder::new(&format!("http://{runtime}"))?,
            state: Mutex::default(),
            arrived: Notify::new(),
            pickups: Arc::default(),
        })
    }

    /// The next invocation for `instance`, which asked with `uri` and `headers`: one received
    /// already, else one from a poll of the emulator (opened unless enough are open); the
    /// emulator's answer when a poll made for this request fails; 410 when it is retired.
    async fn next(self: &Arc<Self>, instance: &Instance, uri: Uri, headers: HeaderMap) -> Response {
        if !instance.asks() {
            return StatusCode::GONE.into_response();
        }
        lock(&self.state).waiting += 1;
        let _waiter = Waiter(self);
        let mut failure: Option<oneshot::Receiver<Response>> = None;
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            {
                let mut state = lock(&self.state);
                if !instance.still_serving() {
                    return StatusCode::GONE.into_response();
                }
                if !state.received.is_empty() && instance.takes() {
                    let (parts, payload) = state.received.pop_front().expect("not empty");
                    return Response::from_parts(parts, payload.into());
                }
                if state.open < state.waiting {
                    state.open += 1;
                    let (report, receiver) = oneshot::channel();
                    failure = Some(receiver);
                    tokio::spawn(self.clone().poll(uri.clone(), headers.clone(), report));
                }
            }
            tokio::select! {
                () = &mut arrived => {}
                answer = async { failure.as_mut().expect("guarded").await }, if failure.is_some() => {
                    failure = None;
                    if let Ok(answer) = answer {
                        return answer;
                    }
                }
            }
        }
    }

    /// One poll of the emulator, to its end whoever waits: an invocation joins those received;
    /// anything else goes to the request it was opened for, if that still waits.
    async fn poll(
        self: Arc<Self>,
        uri: Uri,
        headers: HeaderMap,
        report: oneshot::Sender<Response>,
    ) {
        let mut request = axum::http::Request::get(uri).body(()).expect("a GET of a valid URI");
        *request.headers_mut() = headers;
        let (parts, ()) = request.into_parts();
        let answer = match self.emulator.send(parts, Bytes::new()).await {
            Ok(response) if response.status() == StatusCode::OK => {
                let (parts, body) = response.into_parts();
                match body.collect().await {
                    Ok(body) => Ok((parts, body.to_bytes())),
                    Err(error) => Err((StatusCode::BAD_GATEWAY, error.to_string()).into_response()),
                }
            }
            Ok(response) => Err(response),
            Err(error) => Err((StatusCode::BAD_GATEWAY, format!("{error:#}")).into_response()),
        };
        {
            let mut state = lock(&self.state);
            state.open -= 1;
            match answer {
                Ok(invocation) => state.received.push_back(invocation),
                Err(response) => {
                    let _ = report.send(response);
                }
            }
        }
        self.arrived.notify_waiters();
    }
}

struct Relay {
    invocations: Arc<Invocations>,
    instances: Arc<Roster>,
    timeout: Duration,
}

/// Starts the pass-through for the `instances` of a function of `timeout` whose binary's
/// invocations are `invocations`; its address. An instance's runtime API is
/// [`instance_api`] of it.
pub async fn start(
    invocations: Arc<Invocations>,
    instances: Arc<Roster>,
    timeout: Duration,
) -> Result<SocketAddr> {
    let relay = Arc::new(Relay { invocations, instances, timeout });
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

/// `AWS_LAMBDA_RUNTIME_API` of instance `number` of `binary` behind the relay at `relay`.
pub fn instance_api(relay: SocketAddr, number: u64, binary: &str) -> String {
    format!("http://{relay}/instance/{number}/.rt/{binary}")
}

/// The instance a path names and the path as the emulator serves it.
fn instance_of(relay: &Relay, uri: &Uri) -> Option<(Arc<Instance>, Uri)> {
    let rest = uri.path().strip_prefix("/instance/")?;
    let (number, path) = rest.split_once('/')?;
    let instance = lock(&relay.instances).get(&number.parse().ok()?)?.clone();
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    Some((instance, format!("/{path}{query}").parse().ok()?))
}

async fn pass(State(relay): State<Arc<Relay>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let Some((instance, uri)) = instance_of(&relay, &parts.uri) else {
        return (StatusCode::NOT_FOUND, "no instance of this function has that path")
            .into_response();
    };
    parts.uri = uri;
    if parts.method == Method::GET && parts.uri.path().ends_with("/invocation/next") {
        let answer = relay.invocations.next(&instance, parts.uri, parts.headers).await;
        if answer.status() != StatusCode::OK {
            return answer;
        }
        let (mut parts, body) = answer.into_parts();
        let Ok(payload) = body.collect().await.map(|b| b.to_bytes()) else {
            return StatusCode::BAD_GATEWAY.into_response();
        };
        let deadline = chrono::Utc::now().timestamp_millis() as u128 + relay.timeout.as_millis();
        parts.headers.insert(DEADLINE_HEADER, HeaderValue::from(deadline as u64));
        relay.invocations.pickups.taken(&payload, &instance);
        return Response::from_parts(parts, payload.into());
    }
    let body = match body.collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => return (StatusCode::BAD_REQUEST, error.to_string()).into_response(),
    };
    match relay.invocations.emulator.send(parts, body).await {
        Ok(response) => response,
        Err(error) => (StatusCode::BAD_GATEWAY, format!("{error:#}")).into_response(),
    }
}
