//! Replays every sample event of `events/` through its function's real handler path: the
//! API Gateway v2 JSON is deserialised into lambda_http's request type and served by
//! `lambda_http::Adapter` around the same router `lambda::run` serves.
#![cfg(all(feature = "lambda", feature = "embedded"))]

use std::{collections::HashMap, path::Path, sync::Arc};

use blog_api::{
    api,
    area::AreaState,
    articles::{self, events::ArticlePublishedEvent},
    config::Config,
    context::AppContext,
    lambda,
    ports::blobs::local::LocalBlobs,
    ports::table::Table,
    setup,
};
use lambda_http::{
    lambda_runtime::{Context, LambdaEvent},
    request::LambdaRequest,
    Adapter,
};
use serde_json::Value;
use tower::{Service, ServiceExt};

/// The comments function's samples after `comments/create.json`, in a meaningful order.
const COMMENT_SAMPLES: [&str; 10] = [
    "reply",
    "tree",
    "get",
    "update",
    "like-comment",
    "comment-liked",
    "unlike-comment",
    "like-article",
    "article-liked",
    "unlike-article",
];

/// The samples after `comments/report.json`: the moderation's (admin-comments), then the
/// author's delete (the administrator's delete and the dismissal of the upheld report are left
/// to the generic replay: they answer 404 and 409 by then).
const MODERATION_SAMPLES: [&str; 6] = [
    "admin-comments/list",
    "admin-comments/reports",
    "admin-comments/uphold-report",
    "admin-comments/approve",
    "admin-comments/reject",
    "comments/delete",
];

/// The actuator's token of the functions' configuration (the ops events carry it).
const ACTUATOR_TOKEN: &str = "events-actuator-token-0123";

/// The functions' context on `table`, with the local embedder (the worker's) and `events`.
async fn context(
    table: Arc<dyn Table>,
    events: Option<Arc<dyn blog_api::ports::events::EventQueue>>,
) -> AppContext {
    let vars: HashMap<&str, &str> = HashMap::from([
        ("BLOG_JWT_SECRET", "events-secret-events-secret-events-secret"),
        ("BLOG_ADMIN_USERNAME", "admin"),
        ("BLOG_ADMIN_PASSWORD", "Admin12345"),
        ("BLOG_ADMIN_EMAIL", "admin@example.com"),
        ("BLOG_ACTUATOR_TOKEN", ACTUATOR_TOKEN),
    ]);
    let config = Config::from_lookup(|k| vars.get(k).map(|v| v.to_string())).unwrap();
    let secret = setup::jwt_secret(&config).await.unwrap();
    let embedder = Arc::new(blog_api::ports::embedder::local::LocalEmbedder::new(512));
    let mut ctx =
        blog_api::effects::wire(AppContext::new(table, config, &secret)).with_embedder(embedder);
    if let Some(events) = events {
        ctx = ctx.with_events(events);
    }
    setup::bootstrap_admin(&ctx).await.unwrap();
    ctx
}

thread_local! {
    /// The sample files this test's thread has replayed (each test runs on a thread of its own).
    static REPLAYED: std::cell::RefCell<std::collections::BTreeSet<String>> = Default::default();
}

fn event(path: &str, values: &HashMap<&str, String>) -> LambdaRequest {
    REPLAYED.with(|replayed| replayed.borrow_mut().insert(path.to_string()));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events").join(path);
    let mut text =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    for (placeholder, value) in values {
        text = text.replace(&format!("{{{{{placeholder}}}}}"), value);
    }
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{path} is not an API Gateway v2 event: {e}"))
}

/// Invokes a function's handler with an event; returns (statusCode, parsed body).
async fn invoke(function: &axum::Router, request: LambdaRequest) -> (u16, Value) {
    let mut adapter = Adapter::from(function.clone());
    let adapter = adapter.ready().await.unwrap();
    let response = adapter.call(LambdaEvent::new(request, Context::default())).await.unwrap();
    let response = serde_json::to_value(&response).unwrap();
    let status = response["statusCode"].as_u64().unwrap() as u16;
    let body =
        serde_json::from_str(response["body"].as_str().unwrap_or("null")).unwrap_or(Value::Null);
    (status, body)
}

/// Invokes a function's handler with an event; returns (statusCode, content type, body text).
async fn invoke_text(function: &axum::Router, request: LambdaRequest) -> (u16, String, String) {
    let mut adapter = Adapter::from(function.clone());
    let adapter = adapter.ready().await.unwrap();
    let response = adapter.call(LambdaEvent::new(request, Context::default())).await.unwrap();
    let response = serde_json::to_value(&response).unwrap();
    let status = response["statusCode"].as_u64().unwrap() as u16;
    assert_eq!(response["isBase64Encoded"], Value::from(false), "XML answers travel as text");
    let content_type = response["headers"]["content-type"].as_str().unwrap_or("").to_string();
    (status, content_type, response["body"].as_str().unwrap_or("").to_string())
}

async fn every_sample_event_is_answered_by_its_function(
    table: Arc<dyn Table>,
    events: Option<Arc<dyn blog_api::ports::events::EventQueue>>,
) {
    // The bucket: the search index the worker keeps and the articles function reads.
    let blob_dir = tempfile::tempdir().unwrap();
    let blobs = LocalBlobs::open(blob_dir.path(), "http://blobs.events", b"events-blob-key");
    let ctx = context(table, events).await.with_blobs(Arc::new(blobs.unwrap()));
    let auth_fn = lambda::service(&api::AUTH, ctx.clone()).unwrap();
    let users_fn = lambda::service(&api::USERS, ctx.clone()).unwrap();
    let admin =
        blog_api::users::repo::find_by_login(ctx.table.as_ref(), "admin").await.unwrap().unwrap();
    let mut values = HashMap::from([
        ("ADMIN_TOKEN", ctx.tokens.issue(admin.id, &admin.username, &admin.roles).unwrap()),
        ("ACTUATOR_TOKEN", ACTUATOR_TOKEN.to_string()),
    ]);

    let (status, body) = invoke(&auth_fn, event("auth/register.json", &values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(0)), "{body}");
    let (status, body) = invoke(&auth_fn, event("auth/login.json", &values)).await;
    assert_eq!(status, 200, "{body}");
    values.insert("USER_TOKEN", body["data"]["token"].as_str().unwrap().to_string());
    values.insert("USER_ID", body["data"]["user"]["id"].to_string());

    let (status, _) = invoke(&auth_fn, event("users/get-me.json", &values)).await;
    assert_eq!(status, 404, "the auth function serves no /users route");

    let sequence = [
        (&users_fn, "users/get-me.json"),
        (&users_fn, "users/update-me.json"),
        (&auth_fn, "auth/logout.json"),
        (&users_fn, "users/get-user.json"),
        (&users_fn, "users/update-user.json"),
        (&users_fn, "users/delete-user.json"),
    ];
    for (function, file) in sequence {
        let (status, body) = invoke(function, event(file, &values)).await;
        assert_eq!(status, 200, "{file}: {body}");
        assert_eq!(body["code"], Value::from(0), "{file}: {body}");
        assert_eq!(body["message"], Value::from("success"), "{file}: {body}");
    }
    let deleted =
        blog_api::users::repo::find_by_login(ctx.table.as_ref(), "event_user").await.unwrap();
    assert!(deleted.is_none(), "the delete-user event removed the account");

    replay_taxonomy(&ctx, &mut values, &api::CATEGORIES, "categories", "CATEGORY_ID").await;
    replay_taxonomy(&ctx, &mut values, &api::TAGS, "tags", "TAG_ID").await;
    replay_articles(&ctx, &mut values).await;
    replay_files(&ctx, &mut values).await;
    replay_ops(&ctx, &values).await;
    replay_the_rest(&ctx, &values).await;
}

/// Every sample of an HTTP function that the replays above do not name (a new endpoint's, say)
/// is answered by its function with neither a server error nor the "no such endpoint" 404.
async fn replay_the_rest(ctx: &AppContext, values: &HashMap<&str, String>) {
    let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
    for function in api::FUNCTIONS {
        let service = lambda::service(function, ctx.clone()).unwrap();
        let mut files: Vec<_> = std::fs::read_dir(events.join(function.name))
            .unwrap_or_else(|e| panic!("events/{}: {e}", function.name))
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        for file in files {
            let path = format!("{}/{file}", function.name);
            if REPLAYED.with(|replayed| replayed.borrow().contains(&path)) {
                continue;
            }
            let (status, body) = invoke(&service, event(&path, values)).await;
            assert!(status < 500, "{path}: {status} {body}");
            assert_ne!(body["message"], Value::from("no such endpoint"), "{path}: not routed");
        }
    }
}

/// Replays the ops function's events: every actuator route and the API description.
async fn replay_ops(ctx: &AppContext, values: &HashMap<&str, String>) {
    let ops_fn = lambda::service(&api::OPS, ctx.clone()).unwrap();
    for name in ["index", "health", "liveness", "readiness", "info", "metrics", "prometheus"] {
        let (status, body) = invoke(&ops_fn, event(&format!("ops/{name}.json"), values)).await;
        assert_eq!(status, 200, "ops/{name}: {body}");
    }
    let (status, body) = invoke(&ops_fn, event("ops/metric.json", values)).await;
    assert_eq!(status, 200, "ops/metric: {body}");
    assert!(body["measurements"][0]["value"].as_f64().unwrap() > 0.0, "earlier replays: {body}");
    let (status, body) = invoke(&ops_fn, event("ops/set-logger.json", values)).await;
    assert_eq!(status, 204, "ops/set-logger: {body}");
    let (status, body) = invoke(&ops_fn, event("ops/logger.json", values)).await;
    assert_eq!((status, &body["configuredLevel"]), (200, &Value::from("DEBUG")), "{body}");
    let (status, body) = invoke(&ops_fn, event("ops/loggers.json", values)).await;
    assert_eq!(status, 200, "ops/loggers: {body}");
    let (status, body) = invoke(&ops_fn, event("ops/api-docs.json", values)).await;
    assert_eq!((status, &body["openapi"]), (200, &Value::from("3.1.0")), "api-docs");
    let (status, _) = invoke(&ops_fn, event("ops/unknown-route.json", values)).await;
    assert_eq!(status, 404);
}

/// Replays the events of the two article functions in a meaningful order (create, update,
/// publish, the public reads, archive, unarchive, delete); every answer is code 200.
async fn replay_articles(ctx: &AppContext, values: &mut HashMap<&str, String>) {
    let admin = lambda::service(&api::ADMIN_ARTICLES, ctx.clone()).unwrap();
    let public = lambda::service(&api::ARTICLES, ctx.clone()).unwrap();
    let (status, body) = invoke(&admin, event("admin-articles/create.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(200)), "create: {body}");
    values.insert("ARTICLE_ID", body["data"].as_str().unwrap().to_string());
    // A preview link to the draft, read anonymously.
    let (status, body) = invoke(&admin, event("admin-articles/preview.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(200)), "preview: {body}");
    values.insert("PREVIEW_TOKEN", body["data"]["token"].as_str().unwrap().to_string());
    let (status, body) = invoke(&public, event("articles/preview.json", values)).await;
    assert_eq!((status, &body["data"]["status"]), (200, &Value::from(0)), "a draft: {body}");
    let sequence = [
        (&admin, "admin-articles/list.json"),
        (&admin, "admin-articles/detail.json"),
        (&admin, "admin-articles/update.json"),
        (&admin, "admin-articles/publish.json"),
        (&public, "articles/list.json"),
        (&public, "articles/list-filtered.json"),
        (&public, "articles/detail.json"),
        (&public, "articles/related.json"),
        (&public, "articles/search.json"),
        (&admin, "admin-articles/archive.json"),
        (&admin, "admin-articles/unarchive.json"),
        (&public, "articles/preview.json"),
        (&admin, "admin-articles/unpreview.json"),
        (&admin, "admin-articles/delete.json"),
    ];
    for (function, file) in sequence {
        let (status, body) = invoke(function, event(file, values)).await;
        assert_eq!(status, 200, "{file}: {body}");
        assert_eq!(body["code"], Value::from(200), "{file}: {body}");
        if file == "admin-articles/publish.json" {
            replay_worker(ctx, values).await;
            replay_comments(ctx, values).await;
            replay_feeds(ctx, values).await;
        }
    }
    let (status, body) = invoke(&public, event("articles/preview.json", values)).await;
    assert_eq!((status, &body["errorCode"]), (404, &Value::from("NOT_FOUND")), "revoked: {body}");
}

/// Replays the feeds' and the sitemap's events on the published sample article, the sample
/// category and tag created again for their feeds: XML of its content type, the article in the
/// whole blog's feeds and in the sitemap, self links and locations on the configured base URL;
/// then the articles of that category and tag by slug (an empty page: the article carries
/// neither).
async fn replay_feeds(ctx: &AppContext, values: &HashMap<&str, String>) {
    for folder in ["categories", "tags"] {
        let service = lambda::service(
            if folder == "tags" { &api::TAGS } else { &api::CATEGORIES },
            ctx.clone(),
        )
        .unwrap();
        let (status, body) =
            invoke(&service, event(&format!("{folder}/create.json"), values)).await;
        assert_eq!(status, 200, "{folder}/create again: {body}");
    }
    let public = lambda::service(&api::ARTICLES, ctx.clone()).unwrap();
    // Self links name the configured base, never the event's host.
    let host = ctx.config.public_base_url.as_str();
    let article = format!("https://blog.example.com/articles/{}", values["ARTICLE_ID"]);
    for (file, kind, has_article, self_path) in [
        ("feed-rss", "application/rss+xml", true, Some("/api/v1/feeds/rss.xml")),
        ("feed-atom", "application/atom+xml", true, Some("/api/v1/feeds/atom.xml")),
        ("feed-category-rss", "application/rss+xml", false, None),
        ("feed-category-atom", "application/atom+xml", false, None),
        ("feed-tag-rss", "application/rss+xml", false, None),
        (
            "feed-tag-atom",
            "application/atom+xml",
            false,
            Some("/api/v1/feeds/tags/event-tag/atom.xml"),
        ),
        ("sitemap", "application/xml", true, None),
        ("sitemap-file", "application/xml", false, None),
    ] {
        let (status, content_type, body) =
            invoke_text(&public, event(&format!("articles/{file}.json"), values)).await;
        assert_eq!(status, 200, "{file}: {body}");
        assert_eq!(content_type, format!("{kind}; charset=utf-8"), "{file}");
        assert!(body.starts_with("<?xml"), "{file}: {body}");
        assert_eq!(body.contains(&article), has_article, "{file}: {body}");
        if let Some(path) = self_path {
            assert!(
                body.contains(&format!("href=\"{host}{path}\" rel=\"self\"")),
                "{file}: {body}"
            );
        }
    }
    for file in ["tag-articles", "category-articles"] {
        let (status, body) = invoke(&public, event(&format!("articles/{file}.json"), values)).await;
        assert_eq!((status, &body["code"]), (200, &Value::from(200)), "{file}: {body}");
        assert_eq!(body["data"]["total"], Value::from(0), "{file}: {body}");
    }
}

/// Replays the comments function's events on the published sample article: a comment (its id
/// is `COMMENT_ID`), a reply to it, the tree, the comment, its edit, its report, the
/// moderation (by the admin-comments function, which the comments function does not serve)
/// and its deletion.
async fn replay_comments(ctx: &AppContext, values: &mut HashMap<&str, String>) {
    let comments = lambda::service(&api::COMMENTS, ctx.clone()).unwrap();
    let moderation = lambda::service(&api::ADMIN_COMMENTS, ctx.clone()).unwrap();
    let (status, body) = invoke(&comments, event("comments/create.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(200)), "create: {body}");
    values.insert("COMMENT_ID", body["data"]["id"].as_str().unwrap().to_string());
    for file in COMMENT_SAMPLES {
        let file = format!("comments/{file}.json");
        let (status, body) = invoke(&comments, event(&file, values)).await;
        assert_eq!((status, &body["code"]), (200, &Value::from(200)), "{file}: {body}");
    }
    // A reader reports the administrator's comment (one's own is 400): the sample account,
    // deleted by the users' replay, registers again.
    let auth_fn = lambda::service(&api::AUTH, ctx.clone()).unwrap();
    let (status, body) = invoke(&auth_fn, event("auth/register.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(0)), "register again: {body}");
    let (status, body) = invoke(&auth_fn, event("auth/login.json", values)).await;
    assert_eq!(status, 200, "{body}");
    values.insert("USER_TOKEN", body["data"]["token"].as_str().unwrap().to_string());
    let (status, body) = invoke(&comments, event("comments/report.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(200)), "report: {body}");
    values.insert("REPORT_ID", body["data"]["id"].as_str().unwrap().to_string());
    let (status, body) = invoke(&comments, event("admin-comments/list.json", values)).await;
    assert_eq!(status, 404, "the comments function serves no moderation route: {body}");
    for file in MODERATION_SAMPLES {
        let function = if file.starts_with("admin-comments/") { &moderation } else { &comments };
        let file = format!("{file}.json");
        let (status, body) = invoke(function, event(&file, values)).await;
        assert_eq!((status, &body["code"]), (200, &Value::from(200)), "{file}: {body}");
    }
}

/// Replays the events of the two lambda_runtime functions through their handlers once the
/// sample article is published: the worker's SQS batch (`lambda::worker_invocation`; its first
/// record is an ArticlePublishedEvent of that article, its second a poison message that alone
/// is reported back), then the outbox sweep's scheduled event (`lambda::outbox_sweep_invocation`),
/// with one event left in the outbox two minutes ago: it is delivered (with any pending views),
/// and the outbox is empty.
/// The worker refuses that input: it takes SQS events only.
async fn replay_worker(ctx: &AppContext, values: &HashMap<&str, String>) {
    let worker_event = |file: &str| -> Value {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events").join(file);
        let mut text = std::fs::read_to_string(&file).unwrap();
        text = text.replace("{{ARTICLE_ID}}", &values["ARTICLE_ID"]);
        serde_json::from_str(&text).unwrap()
    };
    let batch = worker_event("worker/sqs-batch.json");
    let poison = batch["Records"][1]["messageId"].clone();
    let answer =
        lambda::worker_invocation(&AreaState::from_context(ctx).unwrap(), batch).await.unwrap();
    assert_eq!(answer, serde_json::json!({ "batchItemFailures": [{ "itemIdentifier": poison }] }));
    let id: u64 = values["ARTICLE_ID"].parse().unwrap();
    let stats = blog_api::ports::table::Key::new(format!("ARTICLE#{id}"), "A#STATS");
    assert!(ctx.table.get(&stats).await.unwrap().is_some(), "the event was handled");
    let head = articles::read::load_head(ctx.table.as_ref(), id).await.unwrap().unwrap();
    let mut stale = ArticlePublishedEvent::of(&head);
    stale.created_at -= 120_000;
    ctx.table.transact(vec![articles::events::outbox_write(&stale).unwrap()]).await.unwrap();
    let sweep = worker_event("outbox-sweep/scheduled.json");
    let answer =
        lambda::outbox_sweep_invocation(&AreaState::from_context(ctx).unwrap(), sweep.clone())
            .await
            .unwrap();
    assert_eq!(answer["delivered"], serde_json::json!(1), "{answer}");
    assert!(answer["views"].is_u64(), "the pending views are moved too: {answer}");
    assert!(answer["sitemapPages"].is_u64(), "the sitemap's rebuild runs too: {answer}");
    let answer =
        lambda::outbox_sweep_invocation(&AreaState::from_context(ctx).unwrap(), sweep.clone())
            .await
            .unwrap();
    let nothing_left =
        serde_json::json!({ "delivered": 0, "views": 0, "sitemapPages": 0, "published": 0 });
    assert_eq!(
        answer, nothing_left,
        "the outbox is empty, and so are the pending views and the schedule; the rebuild is done"
    );
    let refused =
        lambda::worker_invocation(&AreaState::from_context(ctx).unwrap(), sweep).await.unwrap_err();
    assert!(refused.to_string().contains("SQS events only"), "{refused}");
}

/// Bytes of the sample upload (`events/files/presigned.json` declares their size and MD5).
const SAMPLE_FILE: &[u8] = b"Hello from a sample event of the files area.\n";

/// Replays the events of the files function on the local blob store: presigned, the PUT of the
/// bytes to the signed URL (served by the store's own routes, as the local gateway does), then
/// confirm, metadata, access-url and delete; every answer is code 0.
async fn replay_files(ctx: &AppContext, values: &mut HashMap<&str, String>) {
    let dir = tempfile::tempdir().unwrap();
    let base = "http://blobs.events";
    let store = LocalBlobs::open(dir.path(), base, b"events-blob-key").unwrap();
    let ctx = ctx.clone().with_blobs(Arc::new(store.clone()));
    let function = lambda::service(&api::FILES, ctx.clone()).unwrap();
    let (status, body) = invoke(&function, event("files/presigned.json", values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from(0)), "presigned: {body}");
    let data = &body["data"];
    values.insert("FILE_ID", data["fileId"].as_str().unwrap().to_string());

    let url = data["uploadUrl"].as_str().unwrap().strip_prefix(base).unwrap();
    let mut put = axum::http::Request::put(url).header("content-length", SAMPLE_FILE.len());
    for (name, value) in data["uploadHeaders"].as_object().unwrap() {
        put = put.header(name.as_str(), value.as_str().unwrap());
    }
    let stored = store.router().oneshot(put.body(axum::body::Body::from(SAMPLE_FILE)).unwrap());
    assert_eq!(stored.await.unwrap().status(), 200, "PUT to the signed URL");

    for file in ["confirm", "metadata", "access-url", "delete"] {
        let (status, body) = invoke(&function, event(&format!("files/{file}.json"), values)).await;
        assert_eq!((status, &body["code"]), (200, &Value::from(0)), "files/{file}: {body}");
        match file {
            "metadata" => assert_eq!(body["data"]["uploadStatus"], Value::from(1), "{body}"),
            "access-url" => assert!(body["data"].as_str().unwrap().starts_with(base), "{body}"),
            _ => assert_eq!(body["data"], Value::Null, "{body}"),
        }
    }
    // The worker skips the file (private, and deleted now), acknowledging the event.
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events/worker/file-confirmed.json");
    let text = std::fs::read_to_string(file).unwrap().replace("{{FILE_ID}}", &values["FILE_ID"]);
    let batch = serde_json::from_str(&text).unwrap();
    let worker = AreaState::from_context(&ctx).unwrap();
    let answer = lambda::worker_invocation(&worker, batch).await.unwrap();
    assert_eq!(answer, serde_json::json!({ "batchItemFailures": [] }));
}

/// Replays the events of a categories or tags function: create first (its id feeds the
/// others), the reads, then update and delete; every answer is the string-code envelope.
async fn replay_taxonomy(
    ctx: &AppContext,
    values: &mut HashMap<&str, String>,
    function: &api::Function,
    folder: &str,
    placeholder: &'static str,
) {
    let function = lambda::service(function, ctx.clone()).unwrap();
    let (status, body) = invoke(&function, event(&format!("{folder}/create.json"), values)).await;
    assert_eq!((status, &body["code"]), (200, &Value::from("200")), "{folder}/create: {body}");
    values.insert(placeholder, body["data"]["id"].as_str().unwrap().to_string());
    let reads: &[&str] = if folder == "categories" {
        &["tree", "list", "by-slug", "update", "delete"]
    } else {
        &["list", "hot", "by-slug", "update", "delete"]
    };
    for name in reads {
        let (status, body) =
            invoke(&function, event(&format!("{folder}/{name}.json"), values)).await;
        assert_eq!(status, 200, "{folder}/{name}: {body}");
        assert_eq!(body["code"], Value::from("200"), "{folder}/{name}: {body}");
    }
}

#[tokio::test]
async fn every_sample_event_is_answered_by_its_function_on_the_embedded_table() {
    let table = blog_api::ports::table::embedded::SqliteTable::in_memory().unwrap();
    let (queue, _receiver) = blog_api::ports::events::local::InProcessQueue::new();
    every_sample_event_is_answered_by_its_function(Arc::new(table), Some(Arc::new(queue))).await;
}

#[cfg(all(feature = "dynamodb", feature = "sqs", feature = "test-support"))]
#[tokio::test]
#[ignore = "needs DynamoDB Local and moto; make test runs it"]
async fn every_sample_event_is_answered_by_its_function_on_dynamodb_local_and_sqs() {
    let endpoint =
        std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT").expect("BLOG_TEST_DYNAMODB_ENDPOINT");
    let name = format!("events-{}", uuid::Uuid::new_v4().simple());
    let table = blog_api::ports::table::dynamodb::DynamoTable::connect_for_tests(&endpoint, &name)
        .await
        .unwrap();
    let sqs = std::env::var("BLOG_TEST_SQS_ENDPOINT").expect("BLOG_TEST_SQS_ENDPOINT");
    let queue =
        blog_api::ports::events::sqs::SqsQueue::connect_for_tests(&sqs, &name).await.unwrap();
    every_sample_event_is_answered_by_its_function(Arc::new(table), Some(Arc::new(queue.clone())))
        .await;
    let sent = queue.receive(10, 1).await.unwrap();
    assert!(
        sent.iter().any(|received| received.message.body.contains("ArticlePublishedEvent")),
        "publish sent its event to SQS: {sent:?}"
    );
}
