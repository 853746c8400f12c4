//! Test harness: the same API suite runs on three targets: in-process on the embedded adapters
//! (tower `oneshot` on the gateway's router); over HTTP through the local gateway on the AWS
//! adapter set: DynamoDB Local, S3 on s3s-fs (when `BLOG_TEST_S3_ENDPOINT` is set), SQS on moto
//! consumed by the worker function's handler, and Bedrock on a stub (see [`aws`]); and over
//! HTTP through the stack as template.yaml deploys it: the function binaries behind the API
//! Gateway front, on the same emulators (see [`stack`]).
#![allow(dead_code)]

pub mod aws;
pub mod events;
mod http;
pub mod stack;

use std::{collections::HashMap, sync::Arc};

use axum::Router;
use blog_api::{
    config::Config,
    context::AppContext,
    ports::blobs::{local::LocalBlobs, Blobs},
    ports::table::{
        metered::{CallCounts, Metered},
        Table,
    },
    setup,
};
use serde_json::Value;

/// The administrator every harness bootstraps.
pub const ADMIN: (&str, &str, &str) = ("admin", "Admin12345", "admin@example.com");
/// The registration limit of every harness unless a test sets its own (the template's
/// `RegistrationLimit` on the stack, `BLOG_REGISTRATION_LIMIT` elsewhere).
pub const UNLIMITED_REGISTRATIONS: &str = "100000";
/// Password used for test accounts.
pub const PASSWORD: &str = "Passw0rd1";

/// One response: status, headers (lower-case names) and JSON body (`Null` when empty).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

enum Transport {
    InProcess(Router),
    Http { base: String, client: reqwest::Client },
}

/// What counts the table calls of a request.
enum Meter {
    /// The port's wrapper around the API's table.
    Table(Arc<Metered>),
    /// The stack's record of the functions' calls.
    Stack(Arc<blog_stack::Stack>),
}

/// A client of the API under test.
pub struct Api {
    transport: Transport,
    /// The table behind the API, for tests that look under the hood.
    pub table: Arc<dyn Table>,
    meter: Meter,
    events: events::Events,
    /// The context the API runs on (ports, configuration); on the stack, a context on the
    /// stack's resources for looking under the hood (the functions have their own).
    pub ctx: AppContext,
    /// Variables of the configuration beyond the tests' own (in-process and gateway targets).
    vars: Vec<(&'static str, String)>,
    /// The actuator's bearer token, when it requires one (the stack's generated one).
    actuator_token: Option<String>,
    /// The stack, when the API runs on one.
    stack: Option<Arc<blog_stack::Stack>>,
    /// Directory of the local blob store, removed with the harness.
    blob_dir: Option<tempfile::TempDir>,
}

/// Origin of the in-process blob store's URLs (routed through the gateway's router).
const IN_PROCESS_BASE: &str = "http://blobs.test";

/// An answer of the object storage to a signed URL.
#[derive(Debug)]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    /// Every header (lower-case names).
    pub headers: HashMap<String, String>,
}

/// Every header by name; a repeated one's values joined with `, ` (as HTTP combines them).
fn headers_of(headers: &axum::http::HeaderMap) -> HashMap<String, String> {
    let text = |value: &axum::http::HeaderValue| value.to_str().unwrap_or_default().to_string();
    let values = |name| headers.get_all(name).iter().map(text).collect::<Vec<_>>().join(", ");
    headers.keys().map(|name| (name.as_str().to_string(), values(name))).collect()
}

fn header_of(headers: &axum::http::HeaderMap, name: &str) -> String {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

/// The local blob store in a fresh directory, its URLs starting with `base`.
pub fn local_blobs(base: &str) -> (Arc<dyn Blobs>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("blob directory");
    let store = LocalBlobs::open(dir.path(), base, b"test-blob-signing-key").expect("blob store");
    (Arc::new(store), dir)
}

/// The tests' configuration, plus `extra` variables.
fn test_config(extra: &[(&str, String)]) -> Config {
    let mut vars: HashMap<&str, String> = HashMap::from([
        ("BLOG_JWT_SECRET", "test-secret-test-secret-test-secret-0123".to_string()),
        ("BLOG_ADMIN_USERNAME", ADMIN.0.to_string()),
        ("BLOG_ADMIN_PASSWORD", ADMIN.1.to_string()),
        ("BLOG_ADMIN_EMAIL", ADMIN.2.to_string()),
        // Every request of a harness comes from one address: the suites register more accounts
        // than a person would. The registration tests set the limit they test.
        ("BLOG_REGISTRATION_LIMIT", UNLIMITED_REGISTRATIONS.to_string()),
    ]);
    vars.extend(extra.iter().cloned());
    Config::from_lookup(|name| vars.get(name).cloned()).expect("test config")
}

/// A context on `table` whose event queue and embedder are the ones `config` names, built as
/// the functions build theirs; the administrator is bootstrapped.
async fn context_on(
    table: Arc<dyn Table>,
    config: Config,
    events: Arc<dyn blog_api::ports::events::EventQueue>,
) -> AppContext {
    let secret = setup::jwt_secret(&config).await.expect("secret");
    let embedder = setup::embedder(&config).await.expect("embedder");
    let ctx = blog_api::effects::wire(AppContext::new(table, config, &secret))
        .with_events(events)
        .with_embedder(embedder);
    // Views are added up in memory, as the local gateway's process does.
    let ctx = setup::local_tally(ctx);
    setup::bootstrap_admin(&ctx).await.expect("admin bootstrap");
    ctx
}

impl Api {
    /// In-process, on a fresh in-memory embedded table.
    pub async fn embedded() -> Api {
        let metered = Arc::new(Metered::new(
            blog_api::ports::table::embedded::SqliteTable::in_memory().expect("sqlite"),
        ));
        let table: Arc<dyn Table> = metered.clone();
        let (queue, receiver) = blog_api::ports::events::local::InProcessQueue::new();
        let queue = Arc::new(queue);
        let (blobs, blob_dir) = local_blobs(IN_PROCESS_BASE);
        let ctx =
            context_on(table.clone(), test_config(&[]), queue.clone()).await.with_blobs(blobs);
        let events =
            events::Events::InProcess { queue, receiver: tokio::sync::Mutex::new(Some(receiver)) };
        let transport = Transport::InProcess(
            local_gateway::app(ctx.clone()).expect("every area has its ports"),
        );
        let meter = Meter::Table(metered);
        Api {
            transport,
            table,
            meter,
            events,
            ctx,
            vars: vec![],
            actuator_token: None,
            stack: None,
            blob_dir: Some(blob_dir),
        }
    }

    /// Over HTTP through the local gateway on the AWS adapter set: a fresh table in DynamoDB
    /// Local (`BLOG_TEST_DYNAMODB_ENDPOINT`), a fresh bucket on s3s-fs, a fresh queue with its
    /// dead-letter queue on moto (`BLOG_TEST_SQS_ENDPOINT`) and the Bedrock embedder on a stub.
    pub async fn dynamodb_over_http() -> Api {
        let endpoint = std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT")
            .expect("BLOG_TEST_DYNAMODB_ENDPOINT must point at DynamoDB Local (make test sets it)");
        let name = format!("api-{}", uuid_like());
        let metered = Arc::new(Metered::new(
            blog_api::ports::table::dynamodb::DynamoTable::connect_for_tests(&endpoint, &name)
                .await
                .expect("DynamoDB Local table"),
        ));
        let table: Arc<dyn Table> = metered.clone();
        let sqs = aws::SqsEvents::create().await;
        let mut vars = vec![
            ("BLOG_EMBEDDER", "bedrock".to_string()),
            ("BLOG_BEDROCK_ENDPOINT", aws::bedrock_stub().await),
        ];
        vars.extend(sqs.config_vars());
        let config = test_config(&vars);
        let queue = setup::event_queue(&config).await.expect("SQS event queue");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (blobs, blob_dir) = aws::blobs(&base).await;
        let ctx = context_on(table.clone(), config, queue).await.with_blobs(blobs);
        tokio::spawn(local_gateway::serve(listener, ctx.clone(), std::future::pending()));
        Api {
            transport: Transport::Http { base, client: http_client() },
            table,
            meter: Meter::Table(metered),
            events: events::Events::Sqs(sqs),
            ctx,
            vars,
            actuator_token: None,
            stack: None,
            blob_dir,
        }
    }

    /// The object storage behind the API.
    pub fn blobs(&self) -> Arc<dyn Blobs> {
        self.ctx.blobs().cloned().expect("the harness configures object storage")
    }

    /// Table calls made while `request` runs (the principal cache is warmed first by the
    /// caller when the request is authenticated).
    /// On the stack: the calls every function made, through its AWS endpoint (the functions'
    /// own telemetry and the scheduled functions' calls left out).
    pub async fn calls_of<T, F: std::future::Future<Output = T>>(
        &self,
        request: F,
    ) -> (T, CallCounts) {
        match &self.meter {
            Meter::Table(metered) => {
                metered.reset();
                let reply = request.await;
                (reply, metered.counts())
            }
            Meter::Stack(stack) => {
                stack.recorder().reset_meter();
                let reply = request.await;
                (reply, stack.recorder().counts())
            }
        }
    }

    /// `round_trips` where the meter counts them exactly (the table's meter, in process and on
    /// DynamoDB Local), `None` on the stack: its meter counts a call as waiting on every call
    /// that ended before it began, an upper bound that a loaded machine raises by making calls
    /// made together look one after the other. A test compares `api.exact(seen)` with
    /// `api.exact(expected)`, so the stack checks the calls and the other targets the round
    /// trips too.
    pub fn exact(&self, round_trips: u64) -> Option<u64> {
        (!matches!(self.meter, Meter::Stack(_))).then_some(round_trips)
    }

    /// The calls of a read that may be repeated. The stack's meter counts a call as waiting on
    /// every call that ended before it began: its round trips are an upper bound, which a
    /// loaded machine can raise by making calls made together look one after the other. There
    /// the read is made three times and the answer with the fewest round trips kept; the other
    /// meters count exactly, and read once.
    pub async fn calls_of_read<T, F, R>(&self, read: R) -> (T, CallCounts)
    where
        F: std::future::Future<Output = T>,
        R: Fn() -> F,
    {
        let tries = if matches!(self.meter, Meter::Stack(_)) { 3 } else { 1 };
        let mut fewest = self.calls_of(read()).await;
        for _ in 1..tries {
            let next = self.calls_of(read()).await;
            if next.1.round_trips < fewest.1.round_trips {
                fewest = next;
            }
        }
        fewest
    }

    /// The actuator's bearer token, when it requires one.
    pub fn actuator_token(&self) -> Option<&str> {
        self.actuator_token.as_deref()
    }

    /// A GET of the actuator path `path` with its token, when it requires one.
    pub async fn actuator(&self, path: &str) -> Reply {
        self.call("GET", path, self.actuator_token(), None).await
    }

    /// Registers `username` with [`PASSWORD`] and `<username>@example.com`.
    pub async fn register(&self, username: &str) -> Reply {
        let body = serde_json::json!({
            "username": username, "password": PASSWORD, "email": format!("{username}@example.com"),
        });
        self.call("POST", "/api/v1/auth/register", None, Some(body)).await
    }

    /// Logs in and returns the token (panics unless 200).
    pub async fn login(&self, username: &str, password: &str) -> String {
        let body = serde_json::json!({ "username": username, "password": password });
        let reply = self.call("POST", "/api/v1/auth/login", None, Some(body)).await;
        assert_eq!(reply.status, 200, "login of {username}: {:?}", reply.body);
        reply.body["data"]["token"].as_str().unwrap().to_string()
    }

    /// Registers a user and returns (id, token).
    pub async fn user(&self, username: &str) -> (u64, String) {
        let reply = self.register(username).await;
        assert_eq!(reply.status, 200, "register {username}: {:?}", reply.body);
        let id = reply.body["data"]["id"].as_u64().unwrap();
        (id, self.login(username, PASSWORD).await)
    }

    /// A token of the bootstrapped administrator.
    pub async fn admin_token(&self) -> String {
        self.login(ADMIN.0, ADMIN.1).await
    }
}

/// An HTTP client for the tests (reqwest on rustls needs the process's crypto provider).
pub fn http_client() -> reqwest::Client {
    http_client_builder().build().expect("an HTTP client")
}

/// A builder of [`http_client`]s (for one with options of its own).
pub fn http_client_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder()
}

pub(crate) fn uuid_like() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("{nanos:x}{:x}", rand_u32())
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::thread::current().id()) as u32
}

/// Generates one test per case and target: `embedded` (in-process) and `stack` (the function
/// binaries as template.yaml deploys them; after the case, every AWS action they made must be
/// granted by the template). The cases after `counting_calls:` count the table's calls, and run
/// on `dynamodb_over_http` too (the gateway on the AWS adapter set), the one target where those
/// counts are exact on DynamoDB; every other case runs there already through the stack, whose
/// functions use the same adapter on the same DynamoDB Local. The targets on the emulators (and
/// the stack on the functions' builds) are ignored in a plain `cargo test`; `make test` runs them.
#[macro_export]
macro_rules! on_every_target {
    (
        $($module:ident :: $case:ident),* $(,)?
        $(; counting_calls: $($counting:ident :: $counting_case:ident),* $(,)?)?
    ) => {
        mod embedded {
            $($crate::target_case!(embedded, $module, $case);)*
            $($($crate::target_case!(embedded, $counting, $counting_case);)*)?
        }
        mod dynamodb_over_http {
            $($($crate::target_case!(dynamodb_over_http, $counting, $counting_case);)*)?
        }
        mod stack {
            $($crate::target_case!(stack, $module, $case);)*
            $($($crate::target_case!(stack, $counting, $counting_case);)*)?
        }
    };
}

/// One test of `on_every_target!`: the case `$module::$case` of the parent module on a target.
#[macro_export]
macro_rules! target_case {
    (embedded, $module:ident, $case:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn $case() {
            super::$module::$case($crate::support::Api::embedded().await).await;
        }
    };
    (dynamodb_over_http, $module:ident, $case:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[ignore = "needs DynamoDB Local, moto and s3s-fs; make test runs it"]
        async fn $case() {
            super::$module::$case($crate::support::Api::dynamodb_over_http().await).await;
        }
    };
    (stack, $module:ident, $case:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[ignore = "needs the emulators and make stack-build; make test runs it"]
        async fn $case() {
            let api = $crate::support::Api::stack().await;
            let stack = api.on_stack().expect("a stack").clone();
            super::$module::$case(api).await;
            $crate::support::stack::finish(&stack, stringify!($case));
        }
    };
}
