//! The system under measurement: a table (DynamoDB Local, or SQLite in memory), metered, behind
//! the gateway's router, driven in-process so the real handlers run without HTTP; the event
//! queue and the embedder are metered too.

use std::{collections::HashMap, sync::Arc};

use anyhow::{bail, Context, Result};
use axum::{
    body::Body,
    http::{Method, Request},
    Router,
};
use blog_api::{
    config::Config,
    context::AppContext,
    ports::{
        blobs::local::LocalBlobs,
        embedder::local::LocalEmbedder,
        events::{local::InProcessQueue, sqs::SqsQueue, EventQueue},
        table::{
            dynamodb::{DynamoTable, TableUsage},
            embedded::SqliteTable,
            metered::{CallCounts, Metered},
            Table,
        },
    },
    setup, worker,
};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use crate::meters::{CountingEmbedder, CountingQueue};

/// The administrator the harness bootstraps.
pub const ADMIN: (&str, &str, &str) = ("admin", "Admin12345", "admin@example.com");
/// The JWT secret of the harness (and of the functions the cold-start bench starts).
pub const JWT_SECRET: &str = "bench-secret-bench-secret-bench-secret-0123";
/// Dimensions of the worker's embeddings (the configuration's default).
const DIMENSIONS: usize = 512;

/// Table calls by operation, capacity consumed, messages sent and texts embedded, over some
/// span of work.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub calls: CallCounts,
    pub usage: TableUsage,
    pub sends: u64,
    pub embeds: u64,
}

/// One table, its meters, and the gateway's router on it.
pub struct Harness {
    /// The DynamoDB adapter, whose clones share its capacity counters (none on SQLite).
    dynamo: Option<DynamoTable>,
    metered: Arc<Metered>,
    router: Router,
    /// The context behind the router (metered table, counting queue and embedder).
    pub ctx: AppContext,
    queue: Arc<CountingQueue>,
    embedder: Arc<CountingEmbedder>,
    /// The SQS queue behind the counting queue, when the events go to SQS.
    pub sqs: Option<SqsQueue>,
    /// Where the files area's local object store keeps its bytes (removed with the harness).
    _blobs: tempfile::TempDir,
}

fn config() -> Result<Config> {
    let vars: HashMap<&str, &str> = HashMap::from([
        // The benches measure what every request costs the handlers and the table; kept
        // answers (`http::answers`) would hide both.
        ("BLOG_ANSWER_CACHE", "false"),
        // Every account is registered in-process from one (unknown) address: the comments rows
        // need hundreds of commenters, far past the limit per address.
        ("BLOG_REGISTRATION_LIMIT", "100000"),
        ("BLOG_JWT_SECRET", JWT_SECRET),
        ("BLOG_ADMIN_USERNAME", ADMIN.0),
        ("BLOG_ADMIN_PASSWORD", ADMIN.1),
        ("BLOG_ADMIN_EMAIL", ADMIN.2),
    ]);
    Config::from_lookup(|name| vars.get(name).map(|v| v.to_string()))
}

impl Harness {
    /// Creates table `table_name` on the DynamoDB Local at `endpoint` and the administrator;
    /// events go to `sqs`.
    pub async fn dynamodb(endpoint: &str, table_name: &str, sqs: SqsQueue) -> Result<Self> {
        let dynamo = DynamoTable::connect_for_tests(endpoint, table_name)
            .await
            .with_context(|| format!("creating table {table_name} on {endpoint}"))?;
        let queue: Arc<dyn EventQueue> = Arc::new(sqs.clone());
        let mut harness = Self::build(dynamo.clone(), queue).await?;
        harness.dynamo = Some(dynamo);
        harness.sqs = Some(sqs);
        Ok(harness)
    }

    /// An SQLite table in memory (no storage I/O at all) with the administrator; events go to
    /// an in-process queue consumed by the local worker, as in the local gateway.
    pub async fn in_memory() -> Result<Self> {
        let table = SqliteTable::in_memory().context("opening SQLite in memory")?;
        let (queue, receiver) = InProcessQueue::new();
        let queue = Arc::new(queue);
        let harness = Self::build(table, queue.clone()).await?;
        let sweep = std::time::Duration::from_secs(3600);
        let worker = blog_api::area::AreaState::from_context(&harness.ctx)?;
        tokio::spawn(worker::run_local(worker, queue, receiver, sweep));
        Ok(harness)
    }

    async fn build(table: impl Table, queue: Arc<dyn EventQueue>) -> Result<Self> {
        let metered = Arc::new(Metered::new(table));
        let config = config()?;
        let secret = setup::jwt_secret(&config).await.context("JWT secret")?;
        let queue = Arc::new(CountingQueue::new(queue));
        let embedder = Arc::new(CountingEmbedder::new(Arc::new(LocalEmbedder::new(DIMENSIONS))));
        // The files area needs object storage to be mounted at all.
        let blobs_dir = tempfile::tempdir().context("a directory for the object store")?;
        let blobs = LocalBlobs::open(blobs_dir.path(), "http://blobs.bench", b"bench-blob-key")?;
        let ctx = blog_api::effects::wire(AppContext::new(metered.clone(), config, &secret))
            .with_events(queue.clone())
            .with_embedder(embedder.clone())
            .with_blobs(Arc::new(blobs));
        setup::bootstrap_admin(&ctx).await.context("bootstrapping the administrator")?;
        let router = local_gateway::app(ctx.clone())?;
        Ok(Self {
            dynamo: None,
            metered,
            router,
            ctx,
            queue,
            embedder,
            sqs: None,
            _blobs: blobs_dir,
        })
    }

    /// The table without meters (seeding).
    pub fn table(&self) -> &dyn Table {
        self.metered.inner()
    }

    /// The gateway's router on this harness.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// Starts counting from zero.
    pub fn reset(&self) {
        self.metered.reset();
        self.queue.reset();
        self.embedder.reset();
        if let Some(dynamo) = &self.dynamo {
            dynamo.reset_usage();
        }
    }

    /// Everything counted since the last [`Harness::reset`].
    pub fn sample(&self) -> Sample {
        Sample {
            calls: self.metered.counts(),
            usage: self.dynamo.as_ref().map(DynamoTable::usage).unwrap_or_default(),
            sends: self.queue.sends(),
            embeds: self.embedder.calls(),
        }
    }

    /// Sends a request through the router and returns the JSON body; anything but 200 fails.
    pub async fn call(
        &self,
        method: Method,
        uri: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value> {
        let response = self.router.clone().oneshot(request(method.clone(), uri, token, body)?);
        let response = response.await?;
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
        self.login(ADMIN.0, ADMIN.1).await
    }

    /// Logs a user in: (token, user id).
    pub async fn login(&self, username: &str, password: &str) -> Result<(String, u64)> {
        let credentials = serde_json::json!({ "username": username, "password": password });
        let reply = self.call(Method::POST, "/api/v1/auth/login", None, Some(credentials)).await?;
        let token = reply["data"]["token"].as_str().context("login answer without a token")?;
        let id = reply["data"]["user"]["id"].as_u64().context("login answer without a user id")?;
        Ok((token.to_string(), id))
    }
}

/// A request as a client sends it: bearer token and JSON body when given.
pub fn request(
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Result<Request<Body>> {
    let mut request = Request::builder().method(method.clone()).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let body = body.map(|b| Body::from(b.to_string())).unwrap_or_else(Body::empty);
    request.body(body).with_context(|| format!("building {method} {uri}"))
}

/// The id in `data` (or `data.id`) of an answer, as the API writes it (a string).
pub fn id_of(reply: &Value) -> Result<u64> {
    let data = &reply["data"];
    let raw = data["id"].as_str().or(data.as_str());
    raw.and_then(|id| id.parse().ok()).with_context(|| format!("no id in answer {reply}"))
}
