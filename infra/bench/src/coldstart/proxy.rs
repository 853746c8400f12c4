//! A timing reverse proxy in front of an emulator, so the cold-start bench can tell the time the
//! emulators spend answering from the time a function spends on its own. Every request is
//! forwarded unchanged by the stack's forwarder (method, path and query, headers with `Host` as
//! the client sent it: the functions' SigV4 signatures cover it, body) over a pooled, hence
//! warm, connection, and the proxy records when it had the whole request and when it had the
//! whole response.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use axum::{
    extract::{Request, State},
    http::StatusCode,
    response::{IntoResponse, Response},
    Router,
};
use blog_stack::forward::Forwarder;
use http_body_util::BodyExt;

/// One forwarded call: from the proxy having the whole request to its having the whole response.
pub type Interval = (Instant, Instant);

struct Shared {
    upstream: Forwarder,
    intervals: Mutex<Vec<Interval>>,
}

impl Shared {
    fn intervals(&self) -> MutexGuard<'_, Vec<Interval>> {
        self.intervals.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running proxy; it stops with the runtime.
pub struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Proxy {
    /// Listens on an ephemeral port of 127.0.0.1 and forwards to `upstream`, a base URL such as
    /// `http://127.0.0.1:8000` (plain HTTP, no path).
    pub async fn start(upstream: &str) -> Result<Self> {
        // No timeouts: the run's own (60 s) bounds every call.
        let shared =
            Arc::new(Shared { upstream: Forwarder::new(upstream)?, intervals: Mutex::default() });
        let app = Router::new().fallback(forward).with_state(shared.clone());
        let addr = super::serve_locally(app, "timing proxy").await?;
        Ok(Self { addr, shared })
    }

    /// Base URL of the proxy, `http://127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The intervals of the calls answered since the last take, which it forgets.
    pub fn take_intervals(&self) -> Vec<Interval> {
        std::mem::take(&mut *self.shared.intervals())
    }
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    match relay(&shared, request).await {
        Ok(response) => response,
        Err(error) => (StatusCode::BAD_GATEWAY, format!("bench proxy: {error:#}")).into_response(),
    }
}

async fn relay(shared: &Shared, request: Request) -> Result<Response> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.context("reading the request")?.to_bytes();
    let sent = Instant::now();
    let response = shared.upstream.send(parts, body).await?;
    shared.intervals().push((sent, Instant::now()));
    Ok(response)
}

/// What the emulators spent answering during a span.
#[derive(Clone, Debug, Default)]
pub struct Busy {
    /// Length of the union of the calls' intervals within the span.
    pub total: Duration,
    /// Whole length of each call that began within the span.
    pub calls: Vec<Duration>,
}

/// The service time of the emulators, as the proxies in front of them record it.
pub struct EmulatorClock {
    proxies: Vec<Proxy>,
}

impl EmulatorClock {
    /// A clock over these proxies (none: the emulators are never busy).
    pub fn new(proxies: Vec<Proxy>) -> Self {
        Self { proxies }
    }

    /// Forgets every call recorded so far.
    pub fn reset(&self) {
        for proxy in &self.proxies {
            proxy.take_intervals();
        }
    }

    /// The emulators' busy time from `from` to `to`, out of the calls recorded since the last
    /// `reset` or `busy_between` (which it forgets).
    pub fn busy_between(&self, from: Instant, to: Instant) -> Busy {
        let intervals: Vec<Interval> =
            self.proxies.iter().flat_map(Proxy::take_intervals).collect();
        let calls = intervals
            .iter()
            .filter(|(start, _)| (from..=to).contains(start))
            .map(|(start, end)| end.saturating_duration_since(*start))
            .collect();
        Busy { total: union_within(&intervals, from, to), calls }
    }
}

/// Length of the union of `intervals` clipped to `from..to`: overlapping calls count once.
pub fn union_within(intervals: &[Interval], from: Instant, to: Instant) -> Duration {
    let mut clipped: Vec<Interval> = intervals
        .iter()
        .map(|&(start, end)| (start.max(from), end.min(to)))
        .filter(|(start, end)| start < end)
        .collect();
    clipped.sort();
    let mut total = Duration::ZERO;
    let mut current: Option<Interval> = None;
    for (start, end) in clipped {
        current = match current {
            Some((open, close)) if start <= close => Some((open, close.max(end))),
            Some((open, close)) => {
                total += close - open;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    total + current.map_or(Duration::ZERO, |(open, close)| close - open)
}

#[cfg(test)]
mod tests {
    use axum::{body::Bytes, http::header};
    use http_body_util::Full;
    use hyper_util::{
        client::legacy::{connect::HttpConnector, Client},
        rt::TokioExecutor,
    };

    use super::*;

    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    #[test]
    fn overlapping_calls_count_once_and_time_outside_the_answer_is_ignored() {
        let t = Instant::now();
        let intervals = [
            (at(t, 0), at(t, 15)),  // starts before the span: 10..15 counts
            (at(t, 12), at(t, 20)), // overlaps the first: 15..20 more
            (at(t, 14), at(t, 16)), // inside the first two: nothing more
            (at(t, 30), at(t, 35)), // apart: 5 more
            (at(t, 38), at(t, 50)), // ends after the span: 38..40
            (at(t, 45), at(t, 60)), // wholly after the span: nothing
        ];
        let busy = union_within(&intervals, at(t, 10), at(t, 40));
        assert_eq!(busy, Duration::from_millis(10 + 5 + 2));
    }

    #[test]
    fn no_call_means_no_emulator_time() {
        let t = Instant::now();
        assert_eq!(union_within(&[], t, at(t, 5)), Duration::ZERO);
    }

    #[test]
    fn touching_calls_merge_and_calls_out_of_order_are_sorted() {
        let t = Instant::now();
        let intervals = [(at(t, 4), at(t, 6)), (at(t, 1), at(t, 2)), (at(t, 2), at(t, 4))];
        assert_eq!(union_within(&intervals, t, at(t, 10)), Duration::from_millis(5));
    }

    /// An upstream that echoes what it received, with a status and a header of its own.
    async fn echo(request: Request) -> Response {
        let (parts, body) = request.into_parts();
        let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        let host = parts.headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        let signed = parts.headers.get("x-amz-date").and_then(|h| h.to_str().ok()).unwrap_or("");
        let echoed = format!(
            "{} {} host={host} x-amz-date={signed} accept={:?} body={}",
            parts.method,
            parts.uri,
            parts.headers.get(header::ACCEPT),
            String::from_utf8_lossy(&body)
        );
        (StatusCode::CREATED, [("x-upstream", "echo")], echoed).into_response()
    }

    #[tokio::test]
    async fn the_proxy_forwards_requests_unchanged_and_records_one_interval_per_request() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let upstream = format!("http://{}", listener.local_addr().expect("address"));
        let app = Router::new().fallback(echo);
        tokio::spawn(async move { axum::serve(listener, app).await });
        let proxy = Proxy::start(&upstream).await.expect("proxy");
        let client: Client<HttpConnector, Full<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let before = Instant::now();
        for round in 0..2 {
            let request =
                axum::http::Request::post(format!("{}/a/b?x=1&y=%2F{round}", proxy.address()))
                    .header(header::HOST, "dynamodb.us-east-1.amazonaws.com")
                    .header("x-amz-date", "20260101T000000Z")
                    .body(Full::new(Bytes::from(format!("payload {round}"))))
                    .expect("request");
            let response = client.request(request).await.expect("response");
            assert_eq!(response.status(), StatusCode::CREATED);
            assert_eq!(response.headers()["x-upstream"], "echo");
            let body = response.into_body().collect().await.expect("body").to_bytes();
            assert_eq!(
                body,
                format!(
                    "POST /a/b?x=1&y=%2F{round} host=dynamodb.us-east-1.amazonaws.com \
                     x-amz-date=20260101T000000Z accept=None body=payload {round}"
                )
            );
        }
        let intervals = proxy.take_intervals();
        assert_eq!(intervals.len(), 2);
        assert!(intervals.iter().all(|(start, end)| before <= *start && start <= end));
        assert!(proxy.take_intervals().is_empty(), "taking the intervals forgets them");
    }

    #[tokio::test]
    async fn an_unreachable_upstream_gets_a_502_and_no_interval() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let dead = format!("http://{}", listener.local_addr().expect("address"));
        drop(listener);
        let proxy = Proxy::start(&dead).await.expect("proxy");
        let client: Client<HttpConnector, Full<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let request = axum::http::Request::get(proxy.address())
            .body(Full::new(Bytes::new()))
            .expect("request");
        let response = client.request(request).await.expect("response");
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        assert!(proxy.take_intervals().is_empty());
    }
}
