//! Seeding: the taxonomy through the admin API (in-process), then the published articles
//! straight through `store::save`, many at a time, so 10,000 articles take minutes, each with
//! its vector item (its embedding, as the worker stores it), then the sitemap's pages of them
//! (the sweep's rebuild) and the search index (`make reindex`'s rebuild): the data a
//! production blog of that size has.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::http::Method;
use blog_api::{
    articles::{
        content,
        model::{ArticleBody, ArticleHead, TagRef},
        related, search, sitemap_pages,
        store::{self, StoreError},
    },
    ids::{next_id, IdKind},
};
use chrono::{TimeZone, Utc};
use futures::{stream, StreamExt, TryStreamExt};
use serde_json::json;

use crate::{
    corpus::{ArticleSpec, Corpus},
    harness::{id_of, Harness},
};

/// Attempts of one article whose transaction kept conflicting with concurrent ones (they all
/// move the same counters).
const ATTEMPTS: usize = 5;
/// Minutes between the publish times of consecutive articles.
const MINUTES_APART: i64 = 37;

/// What was created, by corpus index, and how long the articles took.
pub struct Seeded {
    pub category_ids: Vec<u64>,
    pub tag_ids: Vec<u64>,
    pub article_ids: Vec<u64>,
    pub articles_time: Duration,
}

/// A created category: id and name.
struct Category {
    id: u64,
    name: String,
}

/// Who seeds and how: the administrator's token and id, and how many articles at a time.
pub struct Seeder<'a> {
    pub token: &'a str,
    pub author: u64,
    pub concurrency: usize,
}

/// Creates the corpus's categories and tags through the admin API, then its articles.
pub async fn seed(harness: &Harness, corpus: &Corpus, seeder: &Seeder<'_>) -> Result<Seeded> {
    let (token, author) = (seeder.token, seeder.author);
    let categories = create_categories(harness, corpus, token).await?;
    let tag_refs = create_tags(harness, corpus, token).await?;
    harness.reset();
    let started = Instant::now();
    let total = corpus.articles.len();
    // `buffered`, not `buffer_unordered`: ids are drawn concurrently, and the rows that pick an
    // article by its place (the middle one for the detail) must get the same content each run.
    let article_ids = stream::iter(corpus.articles.iter().enumerate())
        .map(|(index, spec)| {
            let category = &categories[spec.category];
            let tags: Vec<TagRef> = spec.tags.iter().map(|t| tag_refs[*t].clone()).collect();
            async move {
                let id = save_published(harness, spec, index, category, tags, author)
                    .await
                    .with_context(|| format!("seeding article #{index}"))?;
                if (index + 1) % 1000 == 0 {
                    eprintln!("  {} / {total} articles ({:.0?})", index + 1, started.elapsed());
                }
                anyhow::Ok(id)
            }
        })
        .buffered(seeder.concurrency.max(1))
        .try_collect::<Vec<u64>>()
        .await?;
    let requests = harness.sample().usage.calls;
    if requests > 0 {
        eprintln!(
            "  {requests} requests for {total} articles (an id and a transaction each, plus retries)"
        );
    }
    // The sitemap's pages, as a deployment whose articles predate them has them: the sweep's
    // rebuild, to its end (the worker keeps them from then on).
    let table = harness.table();
    table.delete(&sitemap_pages::rebuild_key(), None).await.context("rebuild progress")?;
    let mut pages = 0;
    loop {
        match sitemap_pages::rebuild_step(table).await.context("sitemap rebuild")? {
            0 => break,
            step => pages += step,
        }
    }
    eprintln!("  {pages} sitemap pages of 1,000 ids built ({:.0?})", started.elapsed());
    let blobs = harness.ctx.require_blobs()?;
    let model = harness.ctx.require_embedder()?.model_id().to_string();
    let indexed = search::IndexKeeper::new(blobs).rebuild(table, &model).await?;
    eprintln!("  search index of {indexed} articles built ({:.0?})", started.elapsed());
    Ok(Seeded {
        category_ids: categories.iter().map(|c| c.id).collect(),
        tag_ids: tag_refs.iter().map(|t| t.id.parse().unwrap_or_default()).collect(),
        article_ids,
        articles_time: started.elapsed(),
    })
}

async fn create_categories(
    harness: &Harness,
    corpus: &Corpus,
    token: &str,
) -> Result<Vec<Category>> {
    let mut created: Vec<Category> = Vec::new();
    for (order, spec) in corpus.categories.iter().enumerate() {
        let parent = spec.parent.map(|p| created[p].id.to_string());
        let body = json!({
            "name": spec.name, "slug": spec.slug, "sortOrder": order,
            "description": format!("Articles about {}", spec.name.to_lowercase()),
            "parentId": parent,
        });
        let uri = "/api/v1/admin/categories";
        let reply = harness.call(Method::POST, uri, Some(token), Some(body)).await?;
        created.push(Category { id: id_of(&reply)?, name: spec.name.clone() });
    }
    Ok(created)
}

async fn create_tags(harness: &Harness, corpus: &Corpus, token: &str) -> Result<Vec<TagRef>> {
    let mut created = Vec::new();
    for spec in &corpus.tags {
        let body = json!({ "name": spec.name, "slug": spec.slug, "color": spec.color });
        let reply =
            harness.call(Method::POST, "/api/v1/admin/tags", Some(token), Some(body)).await?;
        created.push(TagRef {
            id: id_of(&reply)?.to_string(),
            name: spec.name.clone(),
            slug: spec.slug.clone(),
            color: spec.color.clone(),
        });
    }
    Ok(created)
}

/// Writes one published article (head, body and everything derived) and returns its id.
async fn save_published(
    harness: &Harness,
    spec: &ArticleSpec,
    index: usize,
    category: &Category,
    tags: Vec<TagRef>,
    author: u64,
) -> Result<u64> {
    let table = harness.table();
    let id = next_id(table, IdKind::Article).await.context("drawing an article id")?;
    let first = Utc.with_ymd_and_hms(2024, 1, 1, 8, 0, 0).single().context("start date")?;
    let published = first + chrono::Duration::minutes(index as i64 * MINUTES_APART);
    let published = blog_api::time::format(published);
    let rendered = content::render(&spec.markdown);
    let head = ArticleHead {
        summary: spec.summary.clone(),
        category_id: Some(category.id),
        category_name: Some(category.name.clone()),
        tags,
        is_top: spec.is_top,
        ..ArticleHead::published(id, &spec.title, author, &published)
    };
    let body = ArticleBody {
        content: spec.markdown.clone(),
        content_html: rendered.html,
        toc_json: rendered.toc_json,
        ..ArticleBody::default()
    };
    let embedder = harness.ctx.require_embedder()?;
    let text = format!("{}\n{}\n{}", head.title, head.summary, rendered.plain_text);
    let embedding = embedder.embed(&text).await.context("embedding")?;
    let mut attempt = 1;
    loop {
        match store::save(table, None, &head, Some(&body), Vec::new()).await {
            Ok(()) => {
                // Its vector item, without neighbours (none of which a measurement reads).
                related::relate(table, (id, 1), embedder.model_id(), &embedding, 0, &[])
                    .await
                    .with_context(|| format!("the vector of article {id}"))?;
                return Ok(id);
            }
            Err(StoreError::Table(error)) if attempt < ATTEMPTS => {
                eprintln!("  article {id}: attempt {attempt} failed ({error}); retrying");
                attempt += 1;
            }
            Err(error) => return Err(error).context(format!("saving article {id}")),
        }
    }
}
