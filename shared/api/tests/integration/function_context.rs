//! A Lambda function's context holds what its needs name, and no more.

use blog_api::{
    config::Config,
    setup::{function_context, Needs},
};

const SECRET: &str = "a-configured-secret-of-at-least-32-bytes";

fn config(dir: &tempfile::TempDir) -> Config {
    let data_dir = dir.path().display().to_string();
    Config::from_lookup(|name| match name {
        "BLOG_DATA_DIR" => Some(data_dir.clone()),
        "BLOG_JWT_SECRET" => Some(SECRET.into()),
        _ => None,
    })
    .unwrap()
}

#[tokio::test]
async fn a_function_without_tokens_verifies_none_signed_with_the_configured_secret() {
    let dir = tempfile::tempdir().unwrap();
    let signing = function_context(config(&dir), Needs::TOKENS).await.unwrap();
    let token = signing.tokens.issue(1, "ada", &["ROLE_USER".into()]).unwrap();
    assert!(signing.tokens.verify(&token).is_some());

    let public = function_context(config(&dir), Needs::PUBLIC).await.unwrap();
    let embedding = Needs { embedder: true, ..Needs::PUBLIC };
    let other = function_context(config(&dir), embedding).await.unwrap();
    assert!(public.tokens.verify(&token).is_none(), "its key is not the configured secret");
    let own = public.tokens.issue(1, "ada", &["ROLE_USER".into()]).unwrap();
    assert!(other.tokens.verify(&own).is_none(), "each start draws a key of its own");
}

#[tokio::test]
async fn an_area_whose_port_the_process_lacks_refuses_to_build_its_router_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = function_context(config(&dir), Needs::TOKENS).await.unwrap();
    for (function, variable) in [
        (&blog_api::api::FILES, "BLOG_BUCKET_NAME"),
        (&blog_api::api::ADMIN_ARTICLES, "BLOG_EVENTS_QUEUE_URL"),
    ] {
        let error = format!("{:#}", function.router(&ctx).expect_err("no router"));
        assert!(error.contains(variable), "{}: {error}", function.name);
    }
    assert!(blog_api::api::AUTH.router(&ctx).is_ok(), "auth needs no port beyond the table");
}

#[test]
fn every_function_needs_the_ports_of_its_areas() {
    let files = blog_api::api::FILES.needs();
    assert!(files.tokens && files.blobs && files.events, "a public image's event");
    let ops = blog_api::api::OPS.needs();
    assert!(ops.actuator && ops.blobs && ops.events && !ops.tokens);
    let public = blog_api::api::ARTICLES.needs();
    assert!(!public.tokens && !public.actuator, "anonymous reads fetch no secret at cold start");
    assert!(public.blobs && public.embedder, "the search index and the query embeddings");
    assert!(!public.events, "a reader sends no event");
    let worker = Needs::WORKER;
    assert!(worker.blobs && worker.embedder && !worker.tokens, "the worker keeps the index");
}
