//! The HTTP front: what API Gateway's HTTP API does for the stack. Each request is routed by
//! the template's route table, answered by the API itself when it is a CORS preflight, else
//! handed to the route's function as a payload 2.0 event through the Lambda Invoke API; the
//! function's answer becomes the HTTP answer, with the API's CORS headers. Failures answer as
//! API Gateway does: `{"message":"Internal Server Error"}` (500) when the function fails, times
//! out or answers something unreadable, `{"message":"Not Found"}` when no route matches and
//! there is no `$default` route, 413 for a body over 10 MB (with `Connection: close`). Like API
//! Gateway, the front reads a request's whole body before answering it, so that every answer
//! leaves a kept-alive connection usable ([`blog_api::http::whole_body`]).

use std::{
    collections::VecDeque,
    net::SocketAddr,
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use axum::{
    body::{Body, Bytes},
    extract::{ConnectInfo, Request, State},
    http::{HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Router,
};
use blog_api::http::whole_body::{self, Unread};
use http_body_util::BodyExt;
use serde_json::{json, Value};

use crate::{
    cors::Cors,
    functions::{Function, Outcome},
    payload::{self, Api},
    routes::RouteTable,
};

/// Events kept for inspection (the newest).
const KEPT_EVENTS: usize = 500;

/// What the front serves.
pub struct Front {
    /// The routes, integrating with `functions` by index.
    pub routes: RouteTable,
    /// The functions.
    pub functions: Vec<Arc<Function>>,
    /// The API's CORS configuration.
    pub cors: Option<Cors>,
    /// The API's id.
    pub api_id: String,
    /// Whether to print one line per request.
    pub access_log: bool,
    /// The latest events sent, with the logical id of their function.
    pub events: Mutex<VecDeque<(String, Value)>>,
}

impl Front {
    /// The latest events the front sent to functions (logical id, event), oldest first.
    pub fn events(&self) -> Vec<(String, Value)> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect()
    }
}

/// The front's router.
pub fn router(front: Arc<Front>) -> Router {
    let routes = Router::new().fallback(handle).with_state(front);
    whole_body::read_first(routes, whole_body::API_GATEWAY_LIMIT, unread)
}

/// API Gateway's answers to a body it does not read whole.
fn unread(unread: Unread) -> Response {
    match unread {
        Unread::TooLarge => {
            api_gateway_error(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large")
        }
        Unread::Broken => api_gateway_error(StatusCode::BAD_REQUEST, "Bad Request"),
    }
}

fn api_gateway_error(status: StatusCode, message: &str) -> Response {
    let body = json!({ "message": message }).to_string();
    (status, [("content-type", "application/json")], body).into_response()
}

async fn handle(
    State(front): State<Arc<Front>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let mut response = answer(&front, peer, request).await;
    response
        .headers_mut()
        .insert("apigw-requestid", HeaderValue::from_str(&uuid_like()).expect("hex"));
    if front.access_log {
        let status = response.status().as_u16();
        println!("[front] {method} {path} -> {status} in {} ms", started.elapsed().as_millis());
    }
    response
}

fn uuid_like() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_string()
}

async fn answer(front: &Front, peer: SocketAddr, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let method = parts.method.as_str();
    if let Some(cors) = &front.cors {
        if let Some(headers) = cors.preflight(method, &parts.headers) {
            return (StatusCode::NO_CONTENT, headers).into_response();
        }
    }
    // In memory already (the router reads it whole): collecting it cannot fail.
    let body: Bytes =
        body.collect().await.map(|collected| collected.to_bytes()).unwrap_or_default();
    let raw_path = parts.uri.path();
    let Some(route) = front.routes.find(method, raw_path) else {
        return api_gateway_error(StatusCode::NOT_FOUND, "Not Found");
    };
    let function = &front.functions[route.function];
    let request = payload::Request {
        method,
        raw_path,
        raw_query: parts.uri.query().unwrap_or_default(),
        headers: &parts.headers,
        body: &body,
        source_ip: peer.ip().to_string(),
    };
    let api = Api { id: &front.api_id, account: crate::template::intrinsics::ACCOUNT };
    let event = payload::event(&api, &route, &request);
    {
        let mut kept = front.events.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() == KEPT_EVENTS {
            kept.pop_front();
        }
        kept.push_back((function.config().logical_id, event.clone()));
    }
    let outcome = function.invoke(Bytes::from(event.to_string())).await;
    let answer = match outcome {
        Ok(Outcome::Answered(payload)) => payload::answer(&payload),
        Ok(Outcome::Failed(error)) => {
            let error = String::from_utf8_lossy(&error);
            eprintln!(
                "[front] {} {raw_path}: {} failed: {error}",
                parts.method,
                function.config().binary
            );
            return api_gateway_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error");
        }
        Err(error) => {
            eprintln!("[front] {} {raw_path}: {} {error}", parts.method, function.config().binary);
            return api_gateway_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error");
        }
    };
    let mut answer = match answer {
        Ok(answer) => answer,
        Err(error) => {
            eprintln!(
                "[front] {} answered something API Gateway cannot read: {error:#}",
                function.config().binary
            );
            return api_gateway_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error");
        }
    };
    if let Some(cors) = &front.cors {
        cors.decorate(&parts.headers, &mut answer.headers);
    }
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() = answer.status;
    *response.headers_mut() = answer.headers;
    response
}
