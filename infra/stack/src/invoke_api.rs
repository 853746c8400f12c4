//! The stack's AWS Lambda Invoke API: `POST /2015-03-31/functions/{FunctionName}/invocations`,
//! the body the event, the answer the function's result, so that `cargo lambda invoke` (and an
//! AWS SDK or the AWS CLI with an endpoint URL) reaches the running stack's functions. Every
//! invocation goes through [`Stack::invoke`]: the stack's instances, scaling, timeouts and IAM
//! recording, as the front's and the event sources' do.
//!
//! It listens on 127.0.0.1 and ::1 (cargo-lambda's `invoke` sends to `[::1]:9000` unless told
//! otherwise), port 9000 by default, bound before the stack starts: the ports the stack draws
//! for its own processes ([`crate::runtime_api::free_port`]) lie above 9000 and below the
//! kernel's range for port 0, and a port held here is never free when drawn.
//!
//! FunctionName is a binary (`users`), a logical id (`UsersFunction`), the function's name in
//! the stack or its ARN (a `:qualifier` is ignored). Answers as Lambda's: the result with 200;
//! a function error (the function's, a timeout, an instance that exited) with the header
//! `X-Amz-Function-Error: Unhandled` and the error payload, with status 200 when the request
//! is SigV4-signed (the AWS SDKs read the header) and 500 when it is not, as cargo-lambda's own
//! emulator answers: its `invoke` takes only a 200 for a result and prints any other answer's
//! `errorMessage` as an error (exit status 1). Other failures are Lambda's JSON errors
//! (`x-amzn-ErrorType`, `{"Type","Message"}`, plus `errorType` and `errorMessage` for
//! cargo-lambda): 404 `ResourceNotFoundException`, 400 `InvalidRequestContentException` for a
//! body that is not JSON, 500 `ServiceException` when no instance took the invocation.

use std::{
    io::ErrorKind,
    net::{Ipv4Addr, Ipv6Addr},
    sync::{Arc, Weak},
};

use anyhow::{Context, Result};
use axum::{
    body::Bytes,
    extract::{DefaultBodyLimit, Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use serde_json::{json, Value};
use tokio::net::TcpListener;

use crate::{
    functions::{InvokeError, Outcome},
    template::intrinsics::{ACCOUNT, REGION},
    Stack,
};

/// cargo-lambda's default invoke port (`cargo lambda invoke` sends there).
pub const DEFAULT_PORT: u16 = 9000;

// Never one of the ports the stack draws for its processes.
const _: () = assert!(DEFAULT_PORT < crate::runtime_api::FIRST_CHOSEN_PORT);

/// Lambda's limit of a synchronous invocation's payload.
const PAYLOAD_LIMIT: usize = 6 * 1024 * 1024;

/// The Invoke API's sockets, bound (before the stack starts) and not yet served.
pub struct Bound {
    listeners: Vec<TcpListener>,
    port: u16,
    /// Why the port is not the one asked for (the default was taken).
    pub note: Option<String>,
}

impl Bound {
    /// The port, on 127.0.0.1 (and ::1 when the machine has it).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The addresses it listens on, as `cargo lambda invoke --invoke-address` takes them.
    pub fn addresses(&self) -> Vec<String> {
        let ip = |l: &TcpListener| l.local_addr().map(|a| a.ip().to_string());
        self.listeners.iter().filter_map(|l| ip(l).ok()).collect()
    }
}

/// Binds the Invoke API: on `port` (0: a free one), else on [`DEFAULT_PORT`] or, when that is
/// taken, on a free one (with a note).
pub async fn bind(port: Option<u16>) -> Result<Bound> {
    match port {
        Some(0) => free().await,
        Some(port) => loopbacks(port).await.map(|listeners| Bound { listeners, port, note: None })
            .with_context(|| {
                format!("binding the Lambda Invoke API on port {port} (BLOG_STACK_INVOKE_PORT=0 picks a free one)")
            }),
        None => match loopbacks(DEFAULT_PORT).await {
            Ok(listeners) => Ok(Bound { listeners, port: DEFAULT_PORT, note: None }),
            Err(error) if error.kind() == ErrorKind::AddrInUse => {
                let mut bound = free().await?;
                bound.note = Some(format!(
                    "port {DEFAULT_PORT} is taken (another stack, `cargo lambda watch`?): the \
                     Invoke API took port {} (BLOG_STACK_INVOKE_PORT chooses it)",
                    bound.port
                ));
                Ok(bound)
            }
            Err(error) => Err(error).context("binding the Lambda Invoke API"),
        },
    }
}

/// A free port of both loopbacks.
async fn free() -> Result<Bound> {
    let mut last = None;
    for _ in 0..10 {
        match loopbacks(0).await {
            Ok(listeners) => {
                let port = listeners[0].local_addr()?.port();
                return Ok(Bound { listeners, port, note: None });
            }
            Err(error) => last = Some(error),
        }
    }
    Err(last.expect("ten attempts")).context("binding the Lambda Invoke API on a free port")
}

/// Listeners on 127.0.0.1:`port` and [::1] of the same port (skipped when the machine has no
/// IPv6 loopback).
async fn loopbacks(port: u16) -> std::io::Result<Vec<TcpListener>> {
    let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let port = v4.local_addr()?.port();
    match TcpListener::bind((Ipv6Addr::LOCALHOST, port)).await {
        Ok(v6) => Ok(vec![v4, v6]),
        Err(error) if error.kind() == ErrorKind::AddrInUse => Err(error),
        Err(_) => Ok(vec![v4]),
    }
}

/// Serves the Invoke API of `stack` on `bound` until the runtime stops. It does not keep the
/// stack: once its owner drops it, the stack stops as it would without it (invocations then
/// answer 503).
pub fn serve(bound: Bound, stack: &Arc<Stack>) {
    let app = router(Arc::downgrade(stack));
    for listener in bound.listeners {
        let app = app.clone();
        tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, app).await {
                eprintln!("[stack] the Invoke API stopped: {error}");
            }
        });
    }
}

/// The Invoke API's router.
pub fn router(stack: Weak<Stack>) -> Router {
    Router::new()
        .route("/2015-03-31/functions/{name}/invocations", post(invoke))
        .layer(DefaultBodyLimit::max(PAYLOAD_LIMIT))
        .with_state(stack)
}

async fn invoke(
    State(stack): State<Weak<Stack>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(stack) = stack.upgrade() else {
        let message = "the stack stopped";
        return lambda_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceException",
            "Service",
            message,
        );
    };
    let Some(logical_id) = resolve(&stack, &name) else {
        let arn = format!("arn:aws:lambda:{REGION}:{ACCOUNT}:function:{}", function_name(&name));
        let names: Vec<String> = stack.function_names().into_iter().map(|(_, b)| b).collect();
        let hint = format!("this stack's functions: {} (or their logical ids)", names.join(", "));
        return lambda_error(
            StatusCode::NOT_FOUND,
            "ResourceNotFoundException",
            "User",
            &format!("Function not found: {arn} ({hint})"),
        );
    };
    let payload: Value = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&body) {
            Ok(payload) => payload,
            Err(e) => {
                let message = format!("Could not parse request body into json: {e}");
                return lambda_error(
                    StatusCode::BAD_REQUEST,
                    "InvalidRequestContentException",
                    "User",
                    &message,
                );
            }
        }
    };
    let kind = headers.get("x-amz-invocation-type").and_then(|v| v.to_str().ok());
    match kind.unwrap_or("RequestResponse") {
        "RequestResponse" => {}
        "DryRun" => return StatusCode::NO_CONTENT.into_response(),
        "Event" => {
            tokio::spawn(async move {
                if let Err(error) = stack.invoke(&logical_id, &payload).await {
                    eprintln!("[stack] asynchronous invocation of {logical_id}: {error}");
                }
            });
            return StatusCode::ACCEPTED.into_response();
        }
        other => {
            let message = format!("Unsupported invocation type {other}");
            return lambda_error(
                StatusCode::BAD_REQUEST,
                "InvalidParameterValueException",
                "User",
                &message,
            );
        }
    }
    let signed = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("AWS4-HMAC-SHA256"));
    answer(stack.invoke(&logical_id, &payload).await, signed)
}

/// The answer to an invocation's outcome; a function error with 200 when `signed`.
fn answer(outcome: Result<Outcome, InvokeError>, signed: bool) -> Response {
    let failure = |kind: &str, error: &InvokeError| {
        Bytes::from(json!({"errorType": kind, "errorMessage": error.to_string()}).to_string())
    };
    let failed = match outcome {
        Ok(Outcome::Answered(result)) => {
            let headers =
                [("content-type", "application/json"), ("x-amz-executed-version", "$LATEST")];
            return (StatusCode::OK, headers, result).into_response();
        }
        Ok(Outcome::Failed(payload)) => payload,
        Err(error @ InvokeError::TimedOut(_)) => failure("Sandbox.Timedout", &error),
        Err(error @ InvokeError::Exited(_)) => failure("Runtime.ExitError", &error),
        Err(error @ (InvokeError::NotTaken(_) | InvokeError::Runtime(_))) => {
            let message = error.to_string();
            return lambda_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "ServiceException",
                "Service",
                &message,
            );
        }
    };
    let status = if signed { StatusCode::OK } else { StatusCode::INTERNAL_SERVER_ERROR };
    let headers = [
        ("content-type", "application/json"),
        ("x-amz-executed-version", "$LATEST"),
        ("x-amz-function-error", "Unhandled"),
    ];
    (status, headers, failed).into_response()
}

/// Lambda's JSON error (`Type` is `User` or `Service`), readable by cargo-lambda too.
fn lambda_error(status: StatusCode, kind: &str, origin: &str, message: &str) -> Response {
    let body = json!({
        "Type": origin,
        "Message": message,
        "errorType": kind,
        "errorMessage": message,
    });
    let headers = [("content-type", "application/json"), ("x-amzn-errortype", kind)];
    (status, headers, body.to_string()).into_response()
}

/// The logical id of the function `name` designates, if any.
fn resolve(stack: &Stack, name: &str) -> Option<String> {
    let name = function_name(name);
    stack
        .function_names()
        .into_iter()
        .find(|(logical_id, binary)| {
            logical_id == name || binary == name || stack.reference(logical_id) == Some(name)
        })
        .map(|(logical_id, _)| logical_id)
}

/// The function's name in a FunctionName: an ARN's name, without a `:qualifier`.
fn function_name(name: &str) -> &str {
    let name = match name.split_once(":function:") {
        Some((_, rest)) if name.starts_with("arn:") => rest,
        _ => name,
    };
    name.split(':').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_is_named_by_its_name_its_arn_or_either_with_a_qualifier() {
        for name in [
            "users",
            "users:$LATEST",
            "arn:aws:lambda:us-east-1:123456789012:function:users",
            "arn:aws:lambda:us-east-1:123456789012:function:users:live",
        ] {
            assert_eq!(function_name(name), "users", "{name}");
        }
    }

    #[test]
    fn a_function_error_is_a_200_to_a_signed_request_and_a_500_to_cargo_lambda() {
        let payload = Bytes::from_static(br#"{"errorType":"E","errorMessage":"m"}"#);
        for (signed, status) in [(true, 200), (false, 500)] {
            let response = answer(Ok(Outcome::Failed(payload.clone())), signed);
            assert_eq!(response.status(), status);
            assert_eq!(response.headers()["x-amz-function-error"], "Unhandled");
        }
        let timed_out = answer(Err(InvokeError::TimedOut(std::time::Duration::from_secs(3))), true);
        assert_eq!(timed_out.headers()["x-amz-function-error"], "Unhandled");
        let answered = answer(Ok(Outcome::Answered(Bytes::from_static(b"{}"))), false);
        assert_eq!(answered.status(), 200);
        assert!(answered.headers().get("x-amz-function-error").is_none());
    }

    #[tokio::test]
    async fn a_port_asked_for_is_bound_on_both_loopbacks_or_refused_when_taken() {
        let bound = bind(Some(0)).await.unwrap();
        assert_ne!(bound.port(), 0);
        assert!(bound.addresses().contains(&"127.0.0.1".to_string()));
        let taken = bind(Some(bound.port())).await.err().expect("the port is taken");
        assert!(format!("{taken:#}").contains("BLOG_STACK_INVOKE_PORT=0"), "{taken:#}");
    }
}
