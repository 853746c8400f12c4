//! Cases with several instances of the service on one table, as Lambda runs many of them: each
//! [`Instance`] is its own process state (metrics, logger levels) over the API's table.

use std::{collections::HashMap, sync::Arc, time::Duration};

use async_trait::async_trait;
use axum::{body::Body, http::Request, Router};
use blog_api::{
    config::Config,
    context::AppContext,
    ports::table::{
        Condition, Item, Key, Query, QueryPage, Scan, Table, TableError, Update, Write,
    },
    telemetry::levels::{Level, LoggerName},
};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::support::Api;

const SECRET: &str = "test-secret-test-secret-test-secret-0123";
const TOKEN: &str = "actuator-token-0123456789";

/// One answer of an instance.
pub struct Answer {
    pub status: u16,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// Another instance of the service: its own context and router.
pub struct Instance {
    pub ctx: AppContext,
    router: Router,
}

impl Instance {
    /// An instance on the API's table, configured by `vars` (plus the test JWT secret).
    pub async fn on(api: &Api, vars: &[(&str, &str)]) -> Instance {
        Self::with_table(api, api.table.clone(), vars).await
    }

    /// An instance whose table never answers.
    pub async fn with_unreachable_table(api: &Api) -> Instance {
        Self::with_table(api, Arc::new(Unreachable), &[]).await
    }

    async fn with_table(api: &Api, table: Arc<dyn Table>, vars: &[(&str, &str)]) -> Instance {
        let mut map: HashMap<String, String> =
            HashMap::from([("BLOG_JWT_SECRET".into(), SECRET.into())]);
        map.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let config = Config::from_lookup(|name| map.get(name).cloned()).expect("config");
        let mut ctx = blog_api::effects::wire(AppContext::new(table, config, SECRET.as_bytes()))
            .with_blobs(api.blobs());
        if let Some(events) = api.ctx.events().cloned() {
            ctx = ctx.with_events(events);
        }
        if let Ok(embedder) = api.ctx.require_embedder() {
            ctx = ctx.with_embedder(embedder);
        }
        let router = local_gateway::app(ctx.clone()).expect("every area has its ports");
        Instance { ctx, router }
    }

    /// GET with an optional bearer token.
    pub async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        let mut request = Request::builder().uri(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let response =
            self.router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer { status, text: String::from_utf8_lossy(&bytes).into_owned() }
    }
}

struct Unreachable;

#[async_trait]
impl Table for Unreachable {
    async fn get(&self, _: &Key) -> Result<Option<Item>, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn get_many(&self, _: &[Key]) -> Result<Vec<Item>, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn put(&self, _: Item, _: Option<Condition>) -> Result<(), TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn update(&self, _: &Key, _: Update, _: Option<Condition>) -> Result<Item, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn delete(&self, _: &Key, _: Option<Condition>) -> Result<Option<Item>, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn query(&self, _: Query) -> Result<QueryPage, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn scan(&self, _: Scan) -> Result<QueryPage, TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn transact(&self, _: Vec<Write>) -> Result<(), TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn ping(&self) -> Result<(), TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
}

pub async fn a_logger_level_reaches_another_running_instance_within_its_refresh_interval(
    mut api: Api,
) {
    if api.on_stack().is_some() {
        return a_logger_level_reaches_another_running_function(&mut api).await;
    }
    let other = Instance::on(&api, &[("BLOG_LOG_LEVELS_REFRESH_SECONDS", "1")]).await;
    let background = other.ctx.clone();
    let refresher = tokio::spawn(async move {
        background.telemetry.run_background(background.table.as_ref()).await
    });
    let name = LoggerName::parse("blog_files").unwrap();
    assert_eq!(other.ctx.telemetry.levels.levels_of(&name).effective, Level::Info);
    let body = json!({"configuredLevel": "TRACE"});
    let set =
        api.call("POST", "/actuator/loggers/blog_files", api.actuator_token(), Some(body)).await;
    assert_eq!(set.status, 204);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while other.ctx.telemetry.levels.levels_of(&name).effective != Level::Trace {
        assert!(std::time::Instant::now() < deadline, "the other instance never saw the level");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(other.ctx.telemetry.levels.directives().contains("blog_files=trace"));
    refresher.abort();
}

/// On the stack: a level set through the ops function reaches the categories function, which
/// was already running, at its first request after `LogLevelsRefreshSeconds`: its log shows
/// the request tracing that DEBUG turns on.
async fn a_logger_level_reaches_another_running_function(api: &mut Api) {
    api.set_parameter("LogLevelsRefreshSeconds", "1").await;
    let stack = api.on_stack().unwrap().clone();
    let categories = stack.function("categories").unwrap();
    let traced = || {
        categories
            .logs()
            .lines()
            .iter()
            .any(|l| l.contains("\"target\":\"tower_http::trace::on_response\""))
    };
    assert_eq!(api.call("GET", "/api/v1/categories/tree", None, None).await.status, 200);
    assert!(!traced(), "INFO by default");
    let body = json!({"configuredLevel": "DEBUG"});
    assert_eq!(
        api.call("POST", "/actuator/loggers/tower_http", api.actuator_token(), Some(body))
            .await
            .status,
        204
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while !traced() {
        assert!(std::time::Instant::now() < deadline, "the running function never saw the level");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(api.call("GET", "/api/v1/categories/tree", None, None).await.status, 200);
    }
    assert_eq!(categories.cold_starts(), 1, "the same instance, still running");
}

pub async fn the_actuator_token_guards_everything_but_the_probes(mut api: Api) {
    let anonymous = api.call("GET", "/actuator/health", None, None).await;
    match api.on_stack() {
        // The template generates a token: the deployed actuator is never open.
        Some(_) => assert_eq!(anonymous.status, 401, "the stack's actuator requires its token"),
        // A process on a loopback address without one is open (make dev), without details.
        None => {
            assert_eq!(anonymous.status, 200, "open on loopback without a token");
            super::cases::assert_no_details(&anonymous.body);
        }
    }
    api.set_secret("ActuatorTokenSecret", TOKEN).await;
    let bearer = |token: &str| format!("Bearer {token}");
    for path in [
        "/actuator/health",
        "/actuator/info",
        "/actuator/metrics",
        "/actuator/prometheus",
        "/actuator/loggers/ROOT",
        "/actuator",
    ] {
        let anonymous = api.raw("GET", path, &[], None).await;
        assert_eq!(anonymous.status, 401, "{path}");
        assert_eq!(anonymous.body["status"], 401);
        assert!(anonymous.headers.contains_key("www-authenticate"));
        let wrong = bearer("wrong-token-0123456789");
        let wrong = api.raw("GET", path, &[("authorization", &wrong)], None).await;
        assert_eq!(wrong.status, 401, "{path}");
        let right = bearer(TOKEN);
        assert_eq!(
            api.raw("GET", path, &[("authorization", &right)], None).await.status,
            200,
            "{path}"
        );
    }
    let right = bearer(TOKEN);
    let health = api.raw("GET", "/actuator/health", &[("authorization", &right)], None).await;
    let disk = &health.body["components"]["diskSpace"]["details"];
    assert!(disk["free"].as_u64().is_some(), "details behind the token: {:?}", health.body);
    // One component of the health report is the report's: behind the token too.
    for component in ["db", "diskSpace", "storage", "queue", "mail"] {
        let path = format!("/actuator/health/{component}");
        let anonymous = api.raw("GET", &path, &[], None).await;
        assert_eq!(anonymous.status, 401, "{path}: {:?}", anonymous.body);
        assert!(
            anonymous.body.get("components").is_none() && anonymous.body.get("details").is_none()
        );
    }
    let path = "/actuator/health/db";
    assert_eq!(api.raw("GET", path, &[("authorization", &right)], None).await.status, 200);
    for probe in ["/actuator/health/liveness", "/actuator/health/readiness"] {
        assert_eq!(api.raw("GET", probe, &[], None).await.status, 200, "{probe}");
    }
    the_attack_on_the_root_logger_is_refused_and_changes_nothing(&api).await;
}

/// The attack the token closes: an anonymous caller (or one with a wrong token) setting every
/// instance's ROOT logger to TRACE. Refused, and no level is stored or in effect.
async fn the_attack_on_the_root_logger_is_refused_and_changes_nothing(api: &Api) {
    let right = format!("Bearer {TOKEN}");
    let root = "/actuator/loggers/ROOT";
    let before = api.raw("GET", root, &[("authorization", &right)], None).await;
    assert_eq!(before.status, 200, "{:?}", before.body);
    let trace = Some(json!({"configuredLevel": "TRACE"}).to_string());
    let json = ("content-type", "application/json");
    let wrong = "Bearer wrong-token-0123456789";
    for headers in [vec![json], vec![json, ("authorization", wrong)]] {
        for path in [root, "/actuator/loggers/blog_api"] {
            let attack = api.raw("POST", path, &headers, trace.clone()).await;
            assert_eq!(attack.status, 401, "{path} {headers:?}: {:?}", attack.body);
            assert!(attack.headers.contains_key("www-authenticate"));
        }
    }
    let after = api.raw("GET", root, &[("authorization", &right)], None).await;
    assert_eq!(after.body, before.body, "ROOT unchanged");
    assert_ne!(after.body["effectiveLevel"], json!("TRACE"), "{:?}", after.body);
    let query = Query::partition(blog_api::ports::table::Index::Primary, "CONFIG");
    let stored = api.table.query(query).await.expect("the CONFIG partition").items;
    assert!(stored.is_empty(), "no level stored: {stored:?}");
}

fn count(body: &Value) -> f64 {
    body["measurements"][0]["value"].as_f64().unwrap_or_else(|| panic!("{body}"))
}

pub async fn functions_add_their_figures_to_the_table_and_the_ops_function_reads_the_totals(
    mut api: Api,
) {
    if api.on_stack().is_some() {
        return the_functions_of_the_stack_add_their_figures(&mut api).await;
    }
    let function = |name: &'static str| [("BLOG_METRICS_STORE", "table"), ("BLOG_FUNCTION", name)];
    let categories = Instance::on(&api, &function("categories")).await;
    let articles = Instance::on(&api, &function("articles")).await;
    let ops = Instance::on(&api, &function("ops")).await;
    for _ in 0..3 {
        assert_eq!(categories.get("/api/v1/categories/tree", None).await.status, 200);
    }
    assert_eq!(articles.get("/api/v1/articles/424242", None).await.status, 404);
    for instance in [&categories, &articles] {
        instance.ctx.telemetry.export(instance.ctx.table.as_ref()).await.expect("export");
    }
    // A second export adds only what happened since the first.
    categories.ctx.telemetry.export(categories.ctx.table.as_ref()).await.expect("export");

    let by_function =
        ops.get("/actuator/metrics/http.server.requests?tag=function:categories", None).await;
    assert_eq!(by_function.status, 200, "{}", by_function.text);
    assert_eq!(count(&by_function.json()), 3.0);
    // 3 + 1, and the ops function's own first request, exported before this read.
    let everything = ops.get("/actuator/metrics/http.server.requests", None).await.json();
    assert_eq!(count(&everything), 5.0, "{everything}");
    let functions = everything["availableTags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tag"] == "function")
        .cloned();
    assert_eq!(functions.unwrap()["values"], json!(["articles", "categories", "ops"]));
    let max = everything["measurements"][2].clone();
    assert_eq!(max["statistic"], "MAX");
    assert!(max["value"].as_f64().unwrap() > 0.0, "{everything}");

    let memory =
        ops.get("/actuator/metrics/jvm.memory.used?tag=function:articles", None).await.json();
    assert!(count(&memory) > 1e6, "{memory}");
    let scrape = ops.get("/actuator/prometheus", None).await;
    assert!(scrape.text.contains("function=\"categories\""), "{}", scrape.text);
    // The ops function's own earlier requests are in the totals once it exported them.
    let later =
        ops.get("/actuator/metrics/http.server.requests?tag=function:ops", None).await.json();
    assert_eq!(count(&later), 4.0, "{later}");
}

/// On the stack the functions are real: the categories and articles functions add their
/// figures to the table at their first request after `MetricsExportSeconds`, and the ops
/// function shows the totals by function and route.
async fn the_functions_of_the_stack_add_their_figures(api: &mut Api) {
    api.set_parameter("MetricsExportSeconds", "1").await;
    for _ in 0..3 {
        assert_eq!(api.call("GET", "/api/v1/categories/tree", None, None).await.status, 200);
    }
    assert_eq!(api.call("GET", "/api/v1/articles/424242", None, None).await.status, 404);
    api.wait_for_exports().await;
    let api: &Api = api;
    let get = |query: &'static str| {
        let path = format!("/actuator/metrics/{query}");
        async move { api.actuator(&path).await }
    };
    let tree = get("http.server.requests?tag=function:categories&tag=uri:/api/v1/categories/tree");
    let tree = tree.await;
    assert_eq!(tree.status, 200, "{:?}", tree.body);
    assert_eq!(count(&tree.body), 3.0);
    let detail =
        get("http.server.requests?tag=function:articles&tag=uri:/api/v1/articles/%7Bid%7D");
    assert_eq!(count(&detail.await.body), 1.0);
    let everything = get("http.server.requests").await.body;
    let functions = everything["availableTags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tag"] == "function")
        .cloned()
        .unwrap();
    for function in ["articles", "categories", "ops"] {
        assert!(functions["values"].as_array().unwrap().contains(&json!(function)), "{everything}");
    }
    let memory = get("jvm.memory.used?tag=function:articles").await.body;
    assert!(count(&memory) > 1e6, "{memory}");
    let scrape = api.text("/actuator/prometheus").await;
    assert!(String::from_utf8_lossy(&scrape.body).contains("function=\"categories\""));
}
