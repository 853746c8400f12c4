//! Cases with several instances of the service on one table, as Lambda runs many of them: each
//! [`Instance`] is its own process state (metrics, logger levels) over the API's table.

use std::{collections::HashMap, sync::Arc, time::Duration};

use async_trait::async_trait;
use axum::{body::Body, http::Request, Router};
use blog_shared::{
    config::Config,
    context::AppContext,
    ports::table::{Condition, Item, Key, Query, QueryPage, Table, TableError, Update, Write},
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
    pub content_type: String,
    pub headers: axum::http::HeaderMap,
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
        let mut ctx = AppContext::new(table, config, SECRET.as_bytes()).with_blobs(api.blobs());
        if let Some(events) = api.ctx.events.clone() {
            ctx = ctx.with_events(events);
        }
        let router = local_gateway::app(ctx.clone());
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
        let headers = response.headers().clone();
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer { status, content_type, headers, text: String::from_utf8_lossy(&bytes).into_owned() }
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
    async fn transact(&self, _: Vec<Write>) -> Result<(), TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
    async fn ping(&self) -> Result<(), TableError> {
        Err(anyhow::anyhow!("unreachable").into())
    }
}

pub async fn a_logger_level_reaches_another_running_instance_within_its_refresh_interval(api: Api) {
    let other = Instance::on(&api, &[("BLOG_LOG_LEVELS_REFRESH_SECONDS", "1")]).await;
    let background = other.ctx.clone();
    let refresher = tokio::spawn(async move {
        background.telemetry.run_background(background.table.as_ref()).await
    });
    let name = LoggerName::parse("blog_shared::files").unwrap();
    assert_eq!(other.ctx.telemetry.levels.levels_of(&name).effective, Level::Info);
    let body = json!({"configuredLevel": "TRACE"});
    let set = api.call("POST", "/actuator/loggers/blog_shared.files", None, Some(body)).await;
    assert_eq!(set.status, 204);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while other.ctx.telemetry.levels.levels_of(&name).effective != Level::Trace {
        assert!(std::time::Instant::now() < deadline, "the other instance never saw the level");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(other.ctx.telemetry.levels.directives().contains("blog_shared::files=trace"));
    refresher.abort();
}

pub async fn the_actuator_token_guards_everything_but_the_probes(api: Api) {
    let guarded = Instance::on(&api, &[("BLOG_ACTUATOR_TOKEN", TOKEN)]).await;
    for path in [
        "/actuator/health",
        "/actuator/info",
        "/actuator/metrics",
        "/actuator/prometheus",
        "/actuator/loggers/ROOT",
        "/actuator",
    ] {
        let anonymous = guarded.get(path, None).await;
        assert_eq!(anonymous.status, 401, "{path}");
        assert_eq!(anonymous.json()["status"], 401);
        assert!(anonymous.headers.contains_key("www-authenticate"));
        assert_eq!(guarded.get(path, Some("wrong-token-0123456789")).await.status, 401, "{path}");
        assert_eq!(guarded.get(path, Some(TOKEN)).await.status, 200, "{path}");
    }
    for probe in ["/actuator/health/liveness", "/actuator/health/readiness"] {
        assert_eq!(guarded.get(probe, None).await.status, 200, "{probe}");
    }
    assert_eq!(
        api.call("GET", "/actuator/health", None, None).await.status,
        200,
        "open without a token"
    );
}

fn count(body: &Value) -> f64 {
    body["measurements"][0]["value"].as_f64().unwrap_or_else(|| panic!("{body}"))
}

pub async fn functions_add_their_figures_to_the_table_and_the_ops_function_reads_the_totals(
    api: Api,
) {
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
