//! The auth function's administrator bootstrap runs at the first request: requests wait for
//! it, a failed attempt answers 500 in the auth envelope and the next request tries again.
#![cfg(all(feature = "lambda", feature = "embedded"))]

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use async_trait::async_trait;
use axum::{
    body::Body,
    http::{Request, StatusCode},
};
use blog_api::{
    config::Config,
    context::AppContext,
    lambda::AdminBootstrap,
    ports::table::{
        embedded::SqliteTable, Condition, Item, Key, Query, QueryPage, Scan, Table, TableError,
        Update, Write,
    },
    users,
};
use serde_json::{json, Value};
use tower::ServiceExt;

/// A table that fails every call while `down`.
struct Outage {
    inner: SqliteTable,
    down: AtomicBool,
}

impl Outage {
    fn check(&self) -> Result<(), TableError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(TableError::Backend(anyhow::anyhow!("the table is unreachable")));
        }
        Ok(())
    }
}

#[async_trait]
impl Table for Outage {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.check()?;
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Item>, TableError> {
        self.check()?;
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.check()?;
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        update: Update,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.check()?;
        self.inner.update(key, update, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, TableError> {
        self.check()?;
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<QueryPage, TableError> {
        self.check()?;
        self.inner.query(query).await
    }
    async fn scan(&self, scan: Scan) -> Result<QueryPage, TableError> {
        self.check()?;
        self.inner.scan(scan).await
    }
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.check()?;
        self.inner.transact(writes).await
    }
    async fn ping(&self) -> Result<(), TableError> {
        self.check()?;
        self.inner.ping().await
    }
}

fn context(table: Arc<dyn Table>, admin_username: &str) -> AppContext {
    let vars = HashMap::from([
        ("BLOG_JWT_SECRET", "admin-gate-secret-admin-gate-secret-admin-gate"),
        ("BLOG_ADMIN_USERNAME", admin_username),
        ("BLOG_ADMIN_PASSWORD", "Admin12345"),
        ("BLOG_ADMIN_EMAIL", "admin@example.com"),
    ]);
    let config = Config::from_lookup(|k| vars.get(k).map(|v| v.to_string())).unwrap();
    AppContext::new(table, config, b"admin-gate-secret-admin-gate-secret-admin-gate")
}

/// The auth function's router as `lambda::run` serves it on demand: every request guarded by
/// the bootstrap.
fn auth_function(ctx: &AppContext) -> axum::Router {
    let bootstrap = AdminBootstrap::new(ctx.clone()).unwrap();
    blog_api::http::finish(bootstrap.guard(blog_api::api::AUTH.router(ctx).unwrap()))
}

async fn admin_login(function: &axum::Router) -> (StatusCode, Value) {
    let body = json!({ "username": "admin", "password": "Admin12345" }).to_string();
    let request = Request::post("/api/v1/auth/login")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let response = function.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn the_first_login_runs_the_bootstrap_and_finds_the_administrator() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    let ctx = context(table.clone(), "admin");
    let (status, body) = admin_login(&auth_function(&ctx)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["token"].is_string(), "{body}");
    let admin = users::repo::find_by_login(table.as_ref(), "admin").await.unwrap().unwrap();
    assert!(admin.roles.iter().any(|role| role == "ROLE_ADMIN"));
}

#[tokio::test]
async fn a_failed_bootstrap_answers_500_in_the_auth_envelope_and_the_next_request_retries_it() {
    let outage =
        Arc::new(Outage { inner: SqliteTable::in_memory().unwrap(), down: AtomicBool::new(true) });
    let ctx = context(outage.clone(), "admin");
    let function = auth_function(&ctx);
    let (status, body) = admin_login(&function).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body, json!({ "code": 500, "message": "internal server error", "data": null }));
    outage.down.store(false, Ordering::SeqCst);
    let (status, body) = admin_login(&function).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn an_administrator_name_that_is_not_a_user_name_fails_the_initialisation() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    let error = AdminBootstrap::new(context(table, "admin@example.com")).err().unwrap();
    assert!(error.to_string().contains("admin username"), "{error:#}");
}
