//! Seeding the running gateway over HTTP, as an administrator would: the corpus's categories
//! and tags, then every article created and published (so the gateway's worker embeds each one
//! and computes its related articles, as it would for real traffic).

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use futures::{stream, StreamExt, TryStreamExt};
use serde_json::{json, Value};

use crate::{corpus::Corpus, harness::ADMIN};

/// Articles created at a time.
const CONCURRENCY: usize = 8;

/// A JSON client of the gateway at `base` (`http://host:port`).
pub struct Api {
    client: reqwest::Client,
    base: String,
}

/// What the seeding made.
pub struct Seeded {
    pub article_ids: Vec<u64>,
    pub took: Duration,
}

impl Api {
    /// A client of the gateway at `base`.
    pub fn new(base: &str) -> Result<Self> {
        // reqwest's TLS backend needs a process-wide provider even for plain HTTP.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let client = reqwest::Client::builder().build().context("HTTP client")?;
        Ok(Self { client, base: base.trim_end_matches('/').to_string() })
    }

    /// Sends a request; the answer must be HTTP 200 (the envelopes' `code` differs between
    /// areas). Returns `data`.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value> {
        let mut request = self.client.request(method.clone(), format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.with_context(|| format!("{method} {path}"))?;
        let status = response.status();
        let reply: Value = response.json().await.unwrap_or(Value::Null);
        if status != 200 {
            bail!("{method} {path} answered {status}: {reply}");
        }
        Ok(reply["data"].clone())
    }

    /// Logs the administrator in; returns the token.
    pub async fn admin_token(&self) -> Result<String> {
        let credentials = json!({ "username": ADMIN.0, "password": ADMIN.1 });
        let data =
            self.call(reqwest::Method::POST, "/api/v1/auth/login", None, Some(credentials)).await?;
        data["token"].as_str().map(str::to_owned).context("login answer without a token")
    }
}

/// The id in `data` (or `data.id`), as the API writes it.
fn id_of(data: &Value) -> Result<u64> {
    let raw = data["id"].as_str().or(data.as_str());
    raw.and_then(|id| id.parse().ok()).with_context(|| format!("no id in {data}"))
}

/// Creates the corpus through the API and publishes every article.
pub async fn seed(api: &Api, corpus: &Corpus, token: &str) -> Result<Seeded> {
    let started = Instant::now();
    let post = reqwest::Method::POST;
    let mut categories: Vec<u64> = Vec::new();
    for (order, spec) in corpus.categories.iter().enumerate() {
        let body = json!({
            "name": spec.name, "slug": spec.slug, "sortOrder": order,
            "parentId": spec.parent.map(|p| categories[p].to_string()),
        });
        let data = api.call(post.clone(), "/api/v1/admin/categories", Some(token), Some(body));
        categories.push(id_of(&data.await?)?);
    }
    let mut tags: Vec<u64> = Vec::new();
    for spec in &corpus.tags {
        let body = json!({ "name": spec.name, "slug": spec.slug, "color": spec.color });
        let data = api.call(post.clone(), "/api/v1/admin/tags", Some(token), Some(body)).await?;
        tags.push(id_of(&data)?);
    }
    let (categories, tags) = (&categories, &tags);
    let article_ids = stream::iter(&corpus.articles)
        .map(|spec| async move {
            let body = json!({
                "title": spec.title, "summary": spec.summary, "content": spec.markdown,
                "categoryId": categories[spec.category].to_string(),
                "tagIds": spec.tags.iter().map(|t| tags[*t].to_string()).collect::<Vec<_>>(),
                "isTop": i32::from(spec.is_top),
            });
            let created =
                api.call(reqwest::Method::POST, "/api/v1/admin/articles", Some(token), Some(body));
            let id = id_of(&created.await?)?;
            let publish = format!("/api/v1/admin/articles/{id}/publish");
            api.call(reqwest::Method::PUT, &publish, Some(token), None).await?;
            anyhow::Ok(id)
        })
        .buffer_unordered(CONCURRENCY)
        .try_collect::<Vec<u64>>()
        .await?;
    Ok(Seeded { article_ids, took: started.elapsed() })
}
