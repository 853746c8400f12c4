//! The administrator named by the configuration is created once; once it exists, a cold start
//! reads it and never fetches its password (a Secrets Manager call in Lambda).
#![cfg(feature = "embedded")]

use std::{collections::HashMap, sync::Arc};

use blog_api::{
    auth::bootstrap::Outcome, config::Config, context::AppContext,
    ports::table::embedded::SqliteTable, ports::table::Table, setup,
};

const SECRET: &[u8] = b"bootstrap-secret-bootstrap-secret-bootstrap";

fn context(table: Arc<dyn Table>, password: (&str, &str)) -> AppContext {
    context_named(table, "admin", password)
}

fn context_named(table: Arc<dyn Table>, username: &str, password: (&str, &str)) -> AppContext {
    let vars = HashMap::from([
        ("BLOG_JWT_SECRET", "bootstrap-secret-bootstrap-secret-bootstrap"),
        ("BLOG_ADMIN_USERNAME", username),
        ("BLOG_ADMIN_EMAIL", "admin@example.com"),
        password,
    ]);
    let config = Config::from_lookup(|k| vars.get(k).map(|v| v.to_string())).unwrap();
    AppContext::new(table, config, SECRET)
}

#[tokio::test]
async fn the_administrator_is_created_once() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    let ctx = context(table, ("BLOG_ADMIN_PASSWORD", "Admin12345"));
    let first = setup::bootstrap_admin(&ctx).await.unwrap();
    assert!(matches!(first, Some(Outcome::Created(_))), "{first:?}");
    assert_eq!(setup::bootstrap_admin(&ctx).await.unwrap(), Some(Outcome::AlreadyExists));
}

#[tokio::test]
async fn an_existing_administrator_is_found_without_fetching_its_password() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    let created = context(table.clone(), ("BLOG_ADMIN_PASSWORD", "Admin12345"));
    setup::bootstrap_admin(&created).await.unwrap();
    // A secret that cannot be fetched here: reaching for it would fail the bootstrap.
    let arn = "arn:aws:secretsmanager:us-east-1:000000000000:secret:absent";
    let cold_start = context(table, ("BLOG_ADMIN_PASSWORD_ARN", arn));
    assert_eq!(setup::bootstrap_admin(&cold_start).await.unwrap(), Some(Outcome::AlreadyExists));
}

#[tokio::test]
async fn a_missing_administrator_with_an_unreachable_password_fails_the_start() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    let ctx = context(table, ("BLOG_ADMIN_PASSWORD_ARN", "not-an-arn-the-binary-can-reach"));
    std::env::set_var("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:9");
    std::env::set_var("AWS_REGION", "us-east-1");
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    assert!(setup::bootstrap_admin(&ctx).await.is_err());
}

#[tokio::test]
async fn an_administrator_name_that_is_not_a_user_name_is_refused_even_if_it_is_an_email_in_use() {
    let table: Arc<dyn Table> = Arc::new(SqliteTable::in_memory().unwrap());
    setup::bootstrap_admin(&context(table.clone(), ("BLOG_ADMIN_PASSWORD", "Admin12345")))
        .await
        .unwrap();
    let ctx = context_named(table, "admin@example.com", ("BLOG_ADMIN_PASSWORD", "Admin12345"));
    let error = setup::bootstrap_admin(&ctx).await.unwrap_err();
    assert!(error.to_string().contains("admin username"), "{error:#}");
}
