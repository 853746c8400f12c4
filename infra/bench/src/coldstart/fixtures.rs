//! The data the sampled events refer to: a table on DynamoDB Local with the administrator, the
//! events' user (`event_user`, as events/README.md names it), a small published corpus with
//! its search index in a bucket on s3s-fs (as a deployment has it: the worker's first event
//! updates the index rather than building it), and the values of the events'
//! `{{PLACEHOLDERS}}`.

use std::{collections::BTreeMap, path::Path};

use anyhow::{bail, Context, Result};
use axum::{body::Bytes, http::Method};
use blog_api::{
    articles::search::IndexKeeper,
    ports::{blobs::s3::S3Blobs, events::sqs::SqsQueue},
};
use serde_json::json;

use crate::{
    corpus::Corpus,
    harness::Harness,
    seed::{self, Seeder},
};

/// Published articles of the corpus the functions read.
const ARTICLES: usize = 200;
/// The user of the sample events (events/README.md).
const EVENT_USER: (&str, &str, &str) = ("event_user", "Passw0rd1", "event_user@example.com");

/// A seeded table and the values of the events' placeholders.
pub struct Fixtures {
    pub table_name: String,
    pub queue_url: String,
    /// The bucket holding the search index (named like the table).
    pub bucket: String,
    values: BTreeMap<&'static str, String>,
}

impl Fixtures {
    /// Creates and seeds table `table_name` (and an SQS queue of that name on moto).
    pub async fn seed(
        endpoint: &str,
        sqs_endpoint: &str,
        s3_endpoint: &str,
        table_name: &str,
    ) -> Result<Self> {
        let sqs = SqsQueue::connect_for_tests(sqs_endpoint, table_name).await?;
        let queue_url = sqs.queue_url().to_string();
        let harness = Harness::dynamodb(endpoint, table_name, sqs).await?;
        let (admin_token, admin_id) = harness.admin_login().await?;
        let (name, password, email) = EVENT_USER;
        let registration = json!({ "username": name, "password": password, "email": email });
        let uri = "/api/v1/auth/register";
        harness.call(Method::POST, uri, None, Some(registration)).await?;
        let (user_token, user_id) = harness.login(name, password).await?;
        let corpus = Corpus::generate(ARTICLES);
        let seeder = Seeder { token: &admin_token, author: admin_id, concurrency: 8 };
        let seeded = seed::seed(&harness, &corpus, &seeder).await?;
        let client = S3Blobs::test_client(s3_endpoint);
        let bucket = S3Blobs::create_bucket(&client, table_name).await?;
        let model = harness.ctx.require_embedder()?.model_id().to_string();
        let keeper = IndexKeeper::new(std::sync::Arc::new(bucket));
        keeper.rebuild(harness.table(), &model).await.context("the search index")?;
        let article = seeded.article_ids[seeded.article_ids.len() / 2];
        let upload = json!({
            "fileName": "fixture.pdf", "fileSize": 45, "fileType": "application/pdf",
            "md5": "8dcf1642e0275ea60dea97c378bd64d6",
        });
        let uri = "/api/v1/files/presigned";
        let file = harness.call(Method::POST, uri, Some(&admin_token), Some(upload)).await;
        let mut values = BTreeMap::from([
            ("ADMIN_TOKEN", admin_token),
            ("USER_TOKEN", user_token),
            ("USER_ID", user_id.to_string()),
            ("ARTICLE_ID", article.to_string()),
            ("CATEGORY_ID", seeded.category_ids[0].to_string()),
            ("TAG_ID", seeded.tag_ids[0].to_string()),
        ]);
        // The harness has no object storage: only events that name a file need one.
        if let Ok(reply) = file {
            let id = reply["data"]["fileId"].as_str();
            let id = id.with_context(|| format!("no fileId in answer {reply}"))?;
            values.insert("FILE_ID", id.to_string());
        }
        let bucket = table_name.to_string();
        Ok(Self { table_name: table_name.to_string(), queue_url, bucket, values })
    }

    /// The event in `path` with every placeholder filled in; an unknown one is an error.
    pub fn event(&self, path: &Path) -> Result<Bytes> {
        let mut text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for (name, value) in &self.values {
            text = text.replace(&format!("{{{{{name}}}}}"), value);
        }
        if let Some(start) = text.find("{{") {
            let rest = &text[start..];
            let placeholder = &rest[..rest.find("}}").map_or(rest.len(), |end| end + 2)];
            bail!("{}: no value for {placeholder}", path.display());
        }
        serde_json::from_str::<serde_json::Value>(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        Ok(Bytes::from(text))
    }
}
