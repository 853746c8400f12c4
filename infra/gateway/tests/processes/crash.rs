//! The `blog-gateway` binary killed with SIGKILL in the middle of a stream of writes from several
//! clients, then restarted on the same data directory, a few rounds in a row: the store opens
//! cleanly, every write that got a success reply is there, and nothing is half-written (the
//! article listings agree with the articles, and the category and tag counters with both).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::free_port;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_blog-gateway");
const WRITERS: usize = 4;
/// Acknowledged writes after which each round kills the gateway (one round per entry).
const KILL_AFTER: [usize; 5] = [30, 7, 55, 18, 42];

/// Starts the gateway on `data_dir` and waits until it listens.
async fn start(data_dir: &Path, port: u16) -> Child {
    let mut child = Command::new(BIN)
        .arg("serve")
        .env_clear()
        .env("BLOG_DATA_DIR", data_dir)
        .env("BLOG_PORT", port.to_string())
        .env("BLOG_ADMIN_USERNAME", "boss")
        .env("BLOG_ADMIN_PASSWORD", "Boss12345")
        .env("BLOG_ADMIN_EMAIL", "boss@example.com")
        .env("BLOG_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("gateway starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the gateway exited on start ({status}): the store did not open");
        }
        assert!(Instant::now() < deadline, "gateway did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child
}

/// Kills the child on drop, so a failed assertion leaves no process behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A client of one running gateway.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// What one request came to: a reply, or nothing (the connection died with the process).
enum Outcome {
    Reply(u16, Value),
    Lost,
}

impl Client {
    async fn send(&self, method: &str, path: &str, body: Option<Value>) -> Outcome {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        request = request.bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let Ok(response) = request.send().await else { return Outcome::Lost };
        let status = response.status().as_u16();
        match response.bytes().await {
            Ok(bytes) => Outcome::Reply(status, serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(_) => Outcome::Lost,
        }
    }

    /// A request that must succeed (the gateway is not being killed meanwhile).
    async fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        match self.send(method, path, body).await {
            Outcome::Reply(200, body) => body["data"].clone(),
            Outcome::Reply(status, body) => panic!("{method} {path}: {status} {body}"),
            Outcome::Lost => panic!("{method} {path}: no answer"),
        }
    }
}

async fn connect(port: u16) -> Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let login = http
        .post(format!("{base}/api/v1/auth/login"))
        .json(&json!({"username": "boss", "password": "Boss12345"}))
        .send()
        .await
        .expect("login answers");
    assert_eq!(login.status().as_u16(), 200);
    let body: Value = login.json().await.unwrap();
    let token = body["data"]["token"].as_str().unwrap().to_string();
    Client { http, base, token }
}

/// An article status a client saw acknowledged, and the one it was asking for when cut off.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    acked: i64,
    pending: Option<i64>,
}

/// Every write the clients saw acknowledged, across rounds.
#[derive(Clone, Default)]
struct Ledger {
    articles: BTreeMap<String, Tracked>,
    tags: BTreeSet<String>,
    categories: BTreeSet<String>,
    acked_this_round: usize,
    unexpected: Vec<String>,
}

type Shared = Arc<Mutex<Ledger>>;

/// Interprets a write's outcome: `true` when acknowledged; a reply other than success is noted
/// as unexpected (no client competes with another for the same item).
fn acknowledged(ledger: &Shared, what: &str, outcome: &Outcome) -> Option<Value> {
    let mut ledger = ledger.lock().unwrap();
    match outcome {
        Outcome::Reply(200, body) => {
            ledger.acked_this_round += 1;
            Some(body["data"].clone())
        }
        Outcome::Reply(status, body) => {
            ledger.unexpected.push(format!("{what}: {status} {body}"));
            None
        }
        Outcome::Lost => None,
    }
}

/// Creates articles and walks each through publish (and every third through archive) until the
/// gateway goes away.
async fn article_writer(client: Client, ledger: Shared, round: usize, writer: usize, taxa: Taxa) {
    for i in 0.. {
        let tag_ids =
            if i % 2 == 0 { taxa.tags.clone() } else { vec![taxa.tags[writer % 2].clone()] };
        let body = json!({
            "title": format!("Round {round} writer {writer} number {i}"),
            "content": format!("# Heading {i}\n\nSome *text* of round {round}."),
            "categoryId": taxa.categories[(writer + i) % taxa.categories.len()],
            "tagIds": tag_ids,
        });
        let outcome = client.send("POST", "/api/v1/admin/articles", Some(body)).await;
        let Some(id) = acknowledged(&ledger, "create", &outcome) else { return };
        let id = id.as_str().expect("the new id").to_string();
        ledger.lock().unwrap().articles.insert(id.clone(), Tracked { acked: 0, pending: None });
        let steps: &[(&str, i64)] =
            if i % 3 == 0 { &[("publish", 1), ("archive", 2)] } else { &[("publish", 1)] };
        for (action, status) in steps {
            ledger.lock().unwrap().articles.get_mut(&id).unwrap().pending = Some(*status);
            let path = format!("/api/v1/admin/articles/{id}/{action}");
            let outcome = client.send("PUT", &path, None).await;
            if acknowledged(&ledger, action, &outcome).is_none() {
                return;
            }
            ledger
                .lock()
                .unwrap()
                .articles
                .insert(id.clone(), Tracked { acked: *status, pending: None });
        }
    }
}

/// Creates tags and child categories until the gateway goes away.
async fn taxonomy_writer(client: Client, ledger: Shared, round: usize, parent: String) {
    for i in 0.. {
        let slug = format!("r{round}-t{i}");
        let outcome = client
            .send("POST", "/api/v1/admin/tags", Some(json!({"name": slug, "slug": slug})))
            .await;
        if acknowledged(&ledger, "tag", &outcome).is_none() {
            return;
        }
        ledger.lock().unwrap().tags.insert(slug);
        let slug = format!("r{round}-c{i}");
        let body = json!({"name": slug, "slug": slug, "parentId": parent});
        let outcome = client.send("POST", "/api/v1/admin/categories", Some(body)).await;
        if acknowledged(&ledger, "category", &outcome).is_none() {
            return;
        }
        ledger.lock().unwrap().categories.insert(slug);
    }
}

/// Categories and tags the article writers use.
#[derive(Clone)]
struct Taxa {
    categories: Vec<String>,
    tags: Vec<String>,
}

async fn create_taxa(client: &Client, kind: &str, names: &[&str]) -> Vec<String> {
    let mut ids = vec![];
    for name in names {
        let body = json!({"name": name, "slug": name});
        let data = client.ok("POST", &format!("/api/v1/admin/{kind}"), Some(body)).await;
        ids.push(data["id"].as_str().unwrap().to_string());
    }
    ids
}

/// Every article of the admin list, checked against its detail.
async fn all_articles(client: &Client) -> Vec<Value> {
    let mut articles = vec![];
    for page in 1.. {
        let data =
            client.ok("GET", &format!("/api/v1/admin/articles?page={page}&size=100"), None).await;
        let records = data["records"].as_array().unwrap().clone();
        if records.is_empty() {
            assert_eq!(data["total"].as_u64().unwrap(), articles.len() as u64, "admin total");
            return articles;
        }
        for item in records {
            let id = item["id"].as_str().unwrap();
            let detail = client.ok("GET", &format!("/api/v1/admin/articles/{id}"), None).await;
            for field in ["status", "categoryId", "tags", "title"] {
                assert_eq!(
                    item[field], detail[field],
                    "listing and detail of {id} agree on {field}"
                );
            }
            articles.push(detail);
        }
    }
    unreachable!()
}

/// Checks every acknowledged write and every counter against the articles.
async fn verify(client: &Client, ledger: &Ledger) {
    let articles = all_articles(client).await;
    let by_id: BTreeMap<&str, &Value> =
        articles.iter().map(|a| (a["id"].as_str().unwrap(), a)).collect();
    for (id, tracked) in &ledger.articles {
        let article =
            by_id.get(id.as_str()).unwrap_or_else(|| panic!("acknowledged article {id} lost"));
        let status = article["status"].as_i64().unwrap();
        assert!(
            status == tracked.acked || Some(status) == tracked.pending,
            "article {id} has status {status}, acknowledged {tracked:?}"
        );
    }
    let published: Vec<&Value> = articles.iter().filter(|a| a["status"] == json!(1)).collect();
    let categories = client.ok("GET", "/api/v1/categories", None).await;
    let categories = categories.as_array().unwrap();
    let slugs: BTreeSet<&str> = categories.iter().map(|c| c["slug"].as_str().unwrap()).collect();
    for slug in &ledger.categories {
        assert!(slugs.contains(slug.as_str()), "acknowledged category {slug} lost");
    }
    for category in categories {
        let expected = published.iter().filter(|a| a["categoryId"] == category["id"]).count();
        assert_eq!(category["articleCount"], json!(expected), "count of {category}");
    }
    let tags = client.ok("GET", "/api/v1/tags", None).await;
    let tags = tags.as_array().unwrap();
    let slugs: BTreeSet<&str> = tags.iter().map(|t| t["slug"].as_str().unwrap()).collect();
    for slug in &ledger.tags {
        assert!(slugs.contains(slug.as_str()), "acknowledged tag {slug} lost");
    }
    for tag in tags {
        let carrying =
            |a: &&&Value| a["tags"].as_array().unwrap().iter().any(|t| t["id"] == tag["id"]);
        let expected = published.iter().filter(carrying).count();
        assert_eq!(tag["articleCount"], json!(expected), "count of {tag}");
    }
    let public = client.ok("GET", "/api/v1/articles?size=1", None).await;
    assert_eq!(public["total"], json!(published.len()), "published total");
    let admin_published = client.ok("GET", "/api/v1/admin/articles?status=1&size=1", None).await;
    assert_eq!(admin_published["total"], json!(published.len()), "admin published total");
}

/// SQLite's own check of the data file (run beside the gateway: WAL allows a second reader).
fn integrity_of(data_dir: &Path) -> String {
    let conn = rusqlite::Connection::open(data_dir.join("blog.db")).expect("the store opens");
    conn.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acknowledged_write_survives_a_kill_in_mid_stream() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let ledger: Shared = Arc::default();
    let mut gateway = Running(start(data.path(), port).await);
    let mut client = connect(port).await;
    let taxa = Taxa {
        categories: create_taxa(&client, "categories", &["news", "notes"]).await,
        tags: create_taxa(&client, "tags", &["red", "blue"]).await,
    };
    let parent = taxa.categories[0].clone();
    for (round, threshold) in KILL_AFTER.into_iter().enumerate() {
        ledger.lock().unwrap().acked_this_round = 0;
        let mut writers = vec![];
        for writer in 0..WRITERS {
            let task = article_writer(client.clone(), ledger.clone(), round, writer, taxa.clone());
            writers.push(tokio::spawn(task));
        }
        writers.push(tokio::spawn(taxonomy_writer(
            client.clone(),
            ledger.clone(),
            round,
            parent.clone(),
        )));
        // Killed while every writer is busy: each has a request in flight or about to go.
        let deadline = Instant::now() + Duration::from_secs(120);
        while ledger.lock().unwrap().acked_this_round < threshold {
            assert!(Instant::now() < deadline, "round {round}: the writes stalled");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        gateway.0.kill().expect("SIGKILL");
        gateway.0.wait().unwrap();
        for writer in writers {
            writer.await.expect("a writer panicked");
        }
        gateway = Running(start(data.path(), port).await);
        client = connect(port).await;
        let seen = ledger.lock().unwrap().clone();
        assert!(seen.unexpected.is_empty(), "unexpected replies: {:?}", seen.unexpected);
        verify(&client, &seen).await;
        assert_eq!(integrity_of(data.path()), "ok", "round {round}");
    }
    let ledger = ledger.lock().unwrap();
    assert!(ledger.articles.len() >= 20 && !ledger.tags.is_empty(), "the stream wrote enough");
}
