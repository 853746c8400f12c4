//! The system under measurement: a fresh DynamoDB Local table, metered, behind the gateway's
//! router, driven in-process so the real handlers run without HTTP.

use std::{collections::HashMap, sync::Arc};

use anyhow::{bail, Context, Result};
use axum::{
    body::Body,
    http::{Method, Request},
    Router,
};
use blog_shared::{
    config::Config,
    context::AppContext,
    ports::{
        events::local::{InProcessQueue, Receiver},
        table::{
            dynamodb::{DynamoTable, TableUsage},
            metered::{CallCounts, Metered},
            Table,
        },
    },
    setup,
};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// The administrator the harness bootstraps.
pub const ADMIN: (&str, &str, &str) = ("admin", "Admin12345", "admin@example.com");

/// Table calls by operation and capacity consumed, over some span of work.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub calls: CallCounts,
    pub usage: TableUsage,
}

/// One table, its meters, and the gateway's router on it.
pub struct Harness {
    /// The adapter itself (its clones share the usage counters), for seeding without metering.
    pub dynamo: DynamoTable,
    metered: Arc<Metered>,
    router: Router,
    /// Kept so that publishing finds an open event queue, as in the gateway.
    _events: Receiver,
}

fn config() -> Result<Config> {
    let vars: HashMap<&str, &str> = HashMap::from([
        ("BLOG_JWT_SECRET", "bench-secret-bench-secret-bench-secret-0123"),
        ("BLOG_ADMIN_USERNAME", ADMIN.0),
        ("BLOG_ADMIN_PASSWORD", ADMIN.1),
        ("BLOG_ADMIN_EMAIL", ADMIN.2),
    ]);
    Config::from_lookup(|name| vars.get(name).map(|v| v.to_string()))
}

impl Harness {
    /// Creates table `table_name` on the DynamoDB Local at `endpoint` and the administrator.
    pub async fn new(endpoint: &str, table_name: &str) -> Result<Self> {
        let dynamo = DynamoTable::connect_for_tests(endpoint, table_name)
            .await
            .with_context(|| format!("creating table {table_name} on {endpoint}"))?;
        let metered = Arc::new(Metered::new(dynamo.clone()));
        let table: Arc<dyn Table> = metered.clone();
        let config = config()?;
        let secret = setup::jwt_secret(&config).await.context("JWT secret")?;
        let (queue, events) = InProcessQueue::new();
        let ctx = AppContext::new(table, config, &secret).with_events(Arc::new(queue));
        setup::bootstrap_admin(&ctx).await.context("bootstrapping the administrator")?;
        let router = local_gateway::app(ctx);
        Ok(Self { dynamo, metered, router, _events: events })
    }

    /// Starts counting calls and capacity from zero.
    pub fn reset(&self) {
        self.metered.reset();
        self.dynamo.reset_usage();
    }

    /// Calls and capacity since the last [`Harness::reset`].
    pub fn sample(&self) -> Sample {
        Sample { calls: self.metered.counts(), usage: self.dynamo.usage() }
    }

    /// Sends a request through the router and returns the JSON body; anything but 200 fails.
    pub async fn call(
        &self,
        method: Method,
        uri: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value> {
        let mut request = Request::builder().method(method.clone()).uri(uri);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let body = body.map(|b| Body::from(b.to_string())).unwrap_or_else(Body::empty);
        let request = request.body(body).with_context(|| format!("building {method} {uri}"))?;
        let response = self.router.clone().oneshot(request).await?;
        let status = response.status();
        let bytes = response.into_body().collect().await?.to_bytes();
        let json: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status != 200 {
            let text = String::from_utf8_lossy(&bytes);
            bail!("{method} {uri} answered {status}, expected 200: {text}");
        }
        Ok(json)
    }

    /// Logs the administrator in: (token, user id).
    pub async fn admin_login(&self) -> Result<(String, u64)> {
        let credentials = serde_json::json!({ "username": ADMIN.0, "password": ADMIN.1 });
        let reply = self.call(Method::POST, "/api/v1/auth/login", None, Some(credentials)).await?;
        let token = reply["data"]["token"].as_str().context("login answer without a token")?;
        let id = reply["data"]["user"]["id"].as_u64().context("login answer without a user id")?;
        Ok((token.to_string(), id))
    }
}

/// The id in `data` (or `data.id`) of an answer, as the API writes it (a string).
pub fn id_of(reply: &Value) -> Result<u64> {
    let data = &reply["data"];
    let raw = data["id"].as_str().or(data.as_str());
    raw.and_then(|id| id.parse().ok()).with_context(|| format!("no id in answer {reply}"))
}
