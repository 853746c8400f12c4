//! Every sample event of `events/` replayed on the stack: the API Gateway ones as the HTTP
//! requests they describe, through the front, which must build the same event (route key,
//! path and query parameters) and hand it to the function of the sample's folder; the SQS
//! batch to the worker and the schedule's input to the outbox sweep through the Invoke API.
//! Each answer is checked, and every AWS call the functions made must be granted. Without a
//! stack: events/README.md lists every sample with the placeholders it holds, and every
//! placeholder, each of which `make invoke` knows how to fill.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    path::Path,
};

use blog_stack::{functions::Outcome, Stack};
use serde_json::{json, Value};

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

const ADMIN: (&str, &str, &str) = ("admin", "Admin12345", "admin@example.com");
/// Bytes of the sample upload (`events/files/presigned.json` declares their size and MD5).
const SAMPLE_FILE: &[u8] = b"Hello from a sample event of the files area.\n";

struct Replay {
    stack: Stack,
    client: reqwest::Client,
    values: HashMap<&'static str, String>,
    /// The sample files sent so far.
    sent: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

/// Headers API Gateway sets itself, which a client does not send.
const GATEWAY_HEADERS: [&str; 6] = [
    "host",
    "content-length",
    "x-amzn-trace-id",
    "x-forwarded-for",
    "x-forwarded-port",
    "x-forwarded-proto",
];

impl Replay {
    fn sample(&self, file: &str) -> Value {
        let path = blog_stack::testing::workspace().join("events").join(file);
        let mut text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        for (placeholder, value) in &self.values {
            text = text.replace(&format!("{{{{{placeholder}}}}}"), value);
        }
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    /// Sends the request `file` describes through the front: the answer's status and body.
    async fn send(&self, file: &str) -> (u16, Value) {
        self.sent.lock().unwrap().insert(file.to_string());
        let sample = self.sample(file);
        let method = sample["requestContext"]["http"]["method"].as_str().unwrap();
        let mut url = format!("{}{}", self.stack.url(), sample["rawPath"].as_str().unwrap());
        let query = sample["rawQueryString"].as_str().unwrap_or_default();
        if !query.is_empty() {
            url = format!("{url}?{query}");
        }
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.client.request(method, url);
        for (name, value) in sample["headers"].as_object().unwrap() {
            if !GATEWAY_HEADERS.contains(&name.as_str()) {
                request = request.header(name, value.as_str().unwrap());
            }
        }
        if let Some(body) = sample["body"].as_str() {
            request = request.body(body.to_string());
        }
        let response = request.send().await.expect("the front answers");
        let status = response.status().as_u16();
        let body = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or(Value::Null);
        let (function, event) = self.stack.front_events().pop().expect("an event was sent");
        let folder = file.split('/').next().unwrap();
        let binary = self.stack.function(&function).unwrap().config().binary;
        assert_eq!(binary, folder, "{file} reaches the function of its folder");
        for field in
            ["routeKey", "rawPath", "rawQueryString", "pathParameters", "queryStringParameters"]
        {
            assert_eq!(event[field], sample[field], "{file}: {field} of the front's event");
        }
        assert_eq!(event["requestContext"]["routeKey"], sample["routeKey"], "{file}");
        (status, body)
    }

    /// Sends `file` and checks the answer's status and `field` (when given).
    async fn expect(&self, file: &str, status: u16, field: Option<(&str, Value)>) -> Value {
        let (got, body) = self.send(file).await;
        assert_eq!(got, status, "{file}: {body}");
        if let Some((name, value)) = field {
            assert_eq!(body[name], value, "{file}: {body}");
        }
        body
    }

    async fn invoke(&self, function: &str, file: &str) -> Outcome {
        self.stack.invoke(function, &self.sample(file)).await.expect("the function answers")
    }
}

async fn replay_accounts(replay: &mut Replay) {
    replay.expect("auth/register.json", 200, Some(("code", json!(0)))).await;
    let login = replay.expect("auth/login.json", 200, Some(("code", json!(0)))).await;
    replay.values.insert("USER_TOKEN", login["data"]["token"].as_str().unwrap().into());
    replay.values.insert("USER_ID", login["data"]["user"]["id"].to_string());
    let body = json!({"username": ADMIN.0, "password": ADMIN.1}).to_string();
    let admin: Value = replay
        .client
        .post(format!("{}/api/v1/auth/login", replay.stack.url()))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    replay.values.insert("ADMIN_TOKEN", admin["data"]["token"].as_str().unwrap().into());
    for file in [
        "users/get-me",
        "users/update-me",
        "auth/logout",
        "users/get-user",
        "users/update-user",
        "users/delete-user",
    ] {
        replay.expect(&format!("{file}.json"), 200, Some(("code", json!(0)))).await;
    }
}

async fn replay_taxonomy(replay: &mut Replay, folder: &str, placeholder: &'static str) {
    let created =
        replay.expect(&format!("{folder}/create.json"), 200, Some(("code", json!("200")))).await;
    replay.values.insert(placeholder, created["data"]["id"].as_str().unwrap().into());
    let reads: &[&str] = if folder == "categories" {
        &["tree", "list", "by-slug", "update", "delete"]
    } else {
        &["list", "hot", "by-slug", "update", "delete"]
    };
    for name in reads {
        replay.expect(&format!("{folder}/{name}.json"), 200, Some(("code", json!("200")))).await;
    }
}

async fn replay_articles(replay: &mut Replay) {
    let created =
        replay.expect("admin-articles/create.json", 200, Some(("code", json!(200)))).await;
    replay.values.insert("ARTICLE_ID", created["data"].as_str().unwrap().into());
    // A preview link to the draft, read anonymously.
    let preview =
        replay.expect("admin-articles/preview.json", 200, Some(("code", json!(200)))).await;
    replay.values.insert("PREVIEW_TOKEN", preview["data"]["token"].as_str().unwrap().into());
    let draft = replay.expect("articles/preview.json", 200, Some(("code", json!(200)))).await;
    assert_eq!(draft["data"]["status"], json!(0), "{draft}");
    for file in [
        "admin-articles/list",
        "admin-articles/detail",
        "admin-articles/update",
        "admin-articles/publish",
    ] {
        replay.expect(&format!("{file}.json"), 200, Some(("code", json!(200)))).await;
    }
    let Outcome::Answered(batch) = replay.invoke("worker", "worker/sqs-batch.json").await else {
        panic!("the worker failed its batch");
    };
    let poison = replay.sample("worker/sqs-batch.json")["Records"][1]["messageId"].clone();
    let batch: Value = serde_json::from_slice(&batch).unwrap();
    assert_eq!(batch, json!({"batchItemFailures": [{"itemIdentifier": poison}]}));
    let Outcome::Answered(sweep) =
        replay.invoke("outbox-sweep", "outbox-sweep/scheduled.json").await
    else {
        panic!("the sweep failed");
    };
    let mut sweep: Value = serde_json::from_slice(&sweep).unwrap();
    // The sitemap's rebuild runs with the sweep: the sample article's page at most.
    let pages = sweep.as_object_mut().unwrap().remove("sitemapPages");
    assert!(pages.as_ref().and_then(Value::as_u64).is_some_and(|n| n <= 1), "{pages:?}");
    assert_eq!(
        sweep,
        json!({"delivered": 0, "views": 0, "published": 0}),
        "the publish sent its event"
    );
    let refused = replay.invoke("worker", "outbox-sweep/scheduled.json").await;
    assert!(matches!(refused, Outcome::Failed(_)), "the worker takes SQS events only");
    let created = replay.expect("comments/create.json", 200, Some(("code", json!(200)))).await;
    replay.values.insert("COMMENT_ID", created["data"]["id"].as_str().unwrap().into());
    for file in COMMENT_SAMPLES {
        replay.expect(&format!("comments/{file}.json"), 200, Some(("code", json!(200)))).await;
    }
    // A reader reports the administrator's comment (one's own is 400): the sample account,
    // deleted by the accounts' replay, registers again.
    replay.expect("auth/register.json", 200, Some(("code", json!(0)))).await;
    let login = replay.expect("auth/login.json", 200, Some(("code", json!(0)))).await;
    replay.values.insert("USER_TOKEN", login["data"]["token"].as_str().unwrap().into());
    let report = replay.expect("comments/report.json", 200, Some(("code", json!(200)))).await;
    replay.values.insert("REPORT_ID", report["data"]["id"].as_str().unwrap().into());
    for file in MODERATION_SAMPLES {
        replay.expect(&format!("{file}.json"), 200, Some(("code", json!(200)))).await;
    }
    for file in [
        "articles/list",
        "articles/list-filtered",
        "articles/search",
        "articles/detail",
        "articles/related",
        "admin-articles/archive",
        "admin-articles/unarchive",
        "articles/preview",
        "admin-articles/unpreview",
        "admin-articles/delete",
    ] {
        replay.expect(&format!("{file}.json"), 200, Some(("code", json!(200)))).await;
    }
    replay.expect("articles/preview.json", 404, Some(("errorCode", json!("NOT_FOUND")))).await;
}

async fn replay_files(replay: &mut Replay) {
    let presigned = replay.expect("files/presigned.json", 200, Some(("code", json!(0)))).await;
    let data = &presigned["data"];
    replay.values.insert("FILE_ID", data["fileId"].as_str().unwrap().into());
    let mut put = replay.client.put(data["uploadUrl"].as_str().unwrap()).body(SAMPLE_FILE);
    for (name, value) in data["uploadHeaders"].as_object().unwrap() {
        put = put.header(name, value.as_str().unwrap());
    }
    assert_eq!(put.send().await.unwrap().status(), 200, "PUT to the presigned URL");
    for file in ["confirm", "metadata", "access-url", "delete"] {
        let body =
            replay.expect(&format!("files/{file}.json"), 200, Some(("code", json!(0)))).await;
        if file == "metadata" {
            assert_eq!(body["data"]["uploadStatus"], json!(1), "{body}");
        }
    }
    // The worker skips the file (private, and deleted now), acknowledging the event.
    let Outcome::Answered(batch) = replay.invoke("worker", "worker/file-confirmed.json").await
    else {
        panic!("the worker failed the FileConfirmedEvent");
    };
    let batch: Value = serde_json::from_slice(&batch).unwrap();
    assert_eq!(batch, json!({"batchItemFailures": []}));
}

async fn replay_ops(replay: &Replay) {
    for name in [
        "index",
        "health",
        "liveness",
        "readiness",
        "info",
        "metrics",
        "prometheus",
        "metric",
        "loggers",
    ] {
        replay.expect(&format!("ops/{name}.json"), 200, None).await;
    }
    replay.expect("ops/set-logger.json", 204, None).await;
    replay.expect("ops/logger.json", 200, Some(("configuredLevel", json!("DEBUG")))).await;
    replay.expect("ops/api-docs.json", 200, Some(("openapi", json!("3.1.0")))).await;
    replay.expect("ops/unknown-route.json", 404, Some(("code", json!(404)))).await;
}

/// Every API Gateway sample the replays above do not name (a new endpoint's, say) reaches its
/// function and is answered with neither a server error nor the "no such endpoint" 404.
async fn replay_the_rest(replay: &Replay) {
    let events = blog_stack::testing::workspace().join("events");
    let mut files = Vec::new();
    for folder in std::fs::read_dir(&events).unwrap() {
        let folder = folder.unwrap().path();
        for file in std::fs::read_dir(&folder).into_iter().flatten() {
            let path = file.unwrap().path();
            let relative = path.strip_prefix(&events).unwrap().to_string_lossy().into_owned();
            let sample: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{relative}: {e}"));
            if sample.get("routeKey").is_some() {
                files.push(relative);
            }
        }
    }
    files.sort();
    for file in files {
        if replay.sent.lock().unwrap().contains(&file) {
            continue;
        }
        let (status, body) = replay.send(&file).await;
        assert!(status < 500, "{file}: {status} {body}");
        assert_ne!(body["message"], json!("no such endpoint"), "{file}: not routed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn every_sample_event_replays_through_the_front_to_its_function() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let options = blog_stack::testing::options(ADMIN, &[]).unwrap();
    let stack = Stack::start(options).await.unwrap();
    // The actuator's token, as an operator reads it from the generated secret.
    let actuator_token = stack.secret_value("ActuatorTokenSecret").await.unwrap();
    let values = HashMap::from([("ACTUATOR_TOKEN", actuator_token)]);
    let mut replay =
        Replay { stack, client: reqwest::Client::new(), values, sent: Default::default() };
    replay_accounts(&mut replay).await;
    replay_taxonomy(&mut replay, "categories", "CATEGORY_ID").await;
    replay_taxonomy(&mut replay, "tags", "TAG_ID").await;
    replay_articles(&mut replay).await;
    replay_files(&mut replay).await;
    replay_ops(&replay).await;
    replay_the_rest(&replay).await;
    let violations = replay.stack.iam_violations();
    assert!(violations.is_empty(), "AccessDenied in AWS:\n{}", violations.join("\n"));
    // The report names resources by their logical ids, S3 objects by their first segment.
    for row in replay.stack.iam_rows() {
        let physical = replay.stack.reference("UploadsBucket").unwrap();
        assert!(!row.resource.contains(physical), "{row:?}");
        if row.action.starts_with("s3:") && row.resource.contains('/') {
            assert!(row.resource.ends_with("/*"), "{row:?}");
        }
    }
    let rows = blog_stack::testing::workspace().join("target/stack/iam");
    replay.stack.save_iam_rows(&rows).unwrap();
    assert!(Path::new(&rows).exists());
}

/// The rows of events/README.md's table of samples: file, and the placeholders its last
/// column ("Needs") names.
fn readme_samples() -> BTreeMap<String, BTreeSet<String>> {
    let readme = blog_stack::testing::workspace().join("events/README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|line| line.starts_with("| `")) {
        let file = line.trim_start_matches("| `").split('`').next().unwrap();
        if file.ends_with(".json") {
            let needs = line.trim_end().trim_end_matches('|').rsplit('|').next().unwrap();
            let previous = rows.insert(file.to_string(), blog_stack::render::placeholders(needs));
            assert!(previous.is_none(), "{file} has two rows");
        }
    }
    rows
}

/// Every sample of `events/` (`<folder>/<file>.json`) and its placeholders.
fn samples() -> BTreeMap<String, BTreeSet<String>> {
    let events = blog_stack::testing::workspace().join("events");
    let mut samples = BTreeMap::new();
    for folder in std::fs::read_dir(&events).unwrap() {
        for file in std::fs::read_dir(folder.unwrap().path()).into_iter().flatten() {
            let path = file.unwrap().path();
            let relative = path.strip_prefix(&events).unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            samples.insert(relative, blog_stack::render::placeholders(&text));
        }
    }
    samples
}

#[test]
fn every_sample_event_is_in_the_readmes_table_which_names_the_placeholders_it_holds() {
    let (table, samples) = (readme_samples(), samples());
    let mut wrong: Vec<String> = samples
        .iter()
        .filter(|(file, holds)| table.get(*file) != Some(holds))
        .map(|(file, holds)| match table.get(file) {
            Some(named) => format!("{file}: holds {holds:?}, its row names {named:?}"),
            None => format!("{file}: no row"),
        })
        .collect();
    wrong.extend(
        table.keys().filter(|f| !samples.contains_key(*f)).map(|f| format!("{f}: no file")),
    );
    assert!(wrong.is_empty(), "events/README.md's table of samples:\n{}", wrong.join("\n"));
}

#[test]
fn the_readmes_placeholder_table_is_every_placeholder_of_the_samples_and_make_invoke_fills_each() {
    let readme = blog_stack::testing::workspace().join("events/README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let table: BTreeSet<String> = text
        .lines()
        .filter(|line| line.starts_with("| `{{"))
        .flat_map(|line| blog_stack::render::placeholders(line.split(" | ").next().unwrap()))
        .collect();
    let used: BTreeSet<String> = samples().into_values().flatten().collect();
    assert_eq!(table, used, "the placeholder table against the samples");
    let filled: BTreeSet<String> =
        blog_stack::render::PLACEHOLDERS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(filled, used, "the placeholders blog-stack invoke knows");
}
