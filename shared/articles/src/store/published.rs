//! What the feeds and the sitemap read of published articles, exported at the feature's root so
//! that they never decode an article record: the latest articles of a listing with their HTML
//! (two round trips), and the ids and update times of published articles by id range (from the
//! sitemap's pages, [`crate::sitemap_pages`]).

use std::collections::HashMap;
use std::ops::RangeInclusive;

use futures::try_join;
use serde::Deserialize;

use blog_core::{
    ports::table::{AttributeValue, Index, Key, Query, SortKey, Table, TableError},
    records::{self, number},
};

use crate::{
    keys,
    model::{ArticleBody, ArticleHead},
    read::{first_n, get_all},
    sitemap_pages,
};

/// Which published articles: all of them, a category's or a tag's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// The whole blog.
    All,
    /// The articles of category `id`.
    Category(u64),
    /// The articles carrying tag `id`.
    Tag(u64),
}

/// A published article as a feed shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublishedArticle {
    /// Id.
    pub id: u64,
    /// Title (plain text).
    pub title: String,
    /// Summary (plain text).
    pub summary: String,
    /// The author's name shown (empty on heads written before names were kept).
    pub author_name: String,
    /// The category's name, when it has one.
    pub category_name: Option<String>,
    /// The tags' names, in the article's order.
    pub tag_names: Vec<String>,
    /// First publication, UTC `YYYY-MM-DDTHH:MM:SS`.
    pub publish_time: String,
    /// Last change, UTC `YYYY-MM-DDTHH:MM:SS`.
    pub update_time: String,
    /// The sanitised HTML of its content.
    pub content_html: String,
}

impl PublishedArticle {
    fn of(head: ArticleHead, body: ArticleBody) -> Self {
        PublishedArticle {
            id: head.id,
            publish_time: head.publish_time.unwrap_or_else(|| head.update_time.clone()),
            title: head.title,
            summary: head.summary,
            author_name: head.author_name,
            category_name: head.category_name,
            tag_names: head.tags.into_iter().map(|tag| tag.name).collect(),
            update_time: head.update_time,
            content_html: body.content_html,
        }
    }
}

/// The `n` (at most 100) latest published articles of `listing` by first publication, newest
/// first, whether pinned or not. The listing partition sorts pinned articles first
/// (`<isTop>#<publishTime>#<id16>`), so its pinned and its other keys are read apart, `n` each,
/// with two Queries made together, and merged; then one BatchGetItem reads the bodies (and for
/// a category or tag, whose partition holds link items, the heads too): two round trips.
pub async fn latest_published(
    table: &dyn Table,
    listing: Listing,
    n: usize,
) -> Result<Vec<PublishedArticle>, TableError> {
    let n = n.min(100);
    let partition = match listing {
        Listing::All => keys::PUBLISHED.to_string(),
        Listing::Category(id) => keys::published_in_category(id),
        Listing::Tag(id) => keys::published_with_tag(id),
    };
    let part = |prefix: &str| {
        let query = Query::partition(Index::Gsi1, partition.clone())
            .sort(SortKey::BeginsWith(prefix.into()))
            .descending();
        first_n(table, query, n)
    };
    let (pinned, others) = try_join!(part("1#"), part("0#"))?;
    // (listing sort key without the pin, id): the order of first publication.
    let mut latest: Vec<(String, u64, _)> = pinned
        .into_iter()
        .chain(others)
        .filter_map(|item| {
            let order = match item.get(Index::Gsi1.key_attributes().1) {
                Some(AttributeValue::S(sk)) => sk.get(2..)?.to_string(),
                _ => return None,
            };
            let id = number(&item, "articleId").or_else(|| number(&item, "id"))? as u64;
            Some((order, id, item))
        })
        .collect();
    latest.sort_by(|a, b| b.0.cmp(&a.0));
    latest.truncate(n);
    let ids: Vec<u64> = latest.iter().map(|(_, id, _)| *id).collect();
    let mut heads: HashMap<u64, ArticleHead> = HashMap::new();
    let mut wanted: Vec<Key> = ids.iter().map(|id| keys::body(*id)).collect();
    match listing {
        Listing::All => {
            for (_, _, item) in latest {
                let head: ArticleHead = records::from_item(item)?;
                heads.insert(head.id, head);
            }
        }
        Listing::Category(_) | Listing::Tag(_) => {
            wanted.extend(ids.iter().map(|id| keys::head(*id)))
        }
    }
    let mut bodies: HashMap<u64, ArticleBody> = HashMap::new();
    for item in get_all(table, &wanted).await? {
        let Some(key) = Key::of(&item) else { continue };
        let Some(id) = key.pk.strip_prefix("ARTICLE#").and_then(|id| id.parse().ok()) else {
            continue;
        };
        if key.sk == keys::HEAD {
            heads.insert(id, records::from_item(item)?);
        } else {
            bodies.insert(id, records::from_item(item)?);
        }
    }
    Ok(ids
        .iter()
        .filter_map(|id| {
            let head = heads.remove(id).filter(ArticleHead::is_listed)?;
            Some(PublishedArticle::of(head, bodies.remove(id)?))
        })
        .collect())
}

/// A published article's id and last change (what a sitemap says of it).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedStamp {
    /// Id.
    pub id: u64,
    /// Last change, UTC `YYYY-MM-DDTHH:MM:SS`.
    pub update_time: String,
}

/// What the sitemap knows of the published articles: their ids, page by page (the bitmaps the
/// worker keeps beside the pages).
pub use sitemap_pages::Occupancy as PublishedIds;

/// The published ids (one Query of the sitemap's bitmap items, one per million ids).
pub async fn published_ids(table: &dyn Table) -> Result<PublishedIds, TableError> {
    sitemap_pages::occupancy(table).await
}

/// Every published article whose id is in `ids`, by id, from the sitemap's pages: one
/// BatchGetItem per 100 pages of 1,000 ids (`ids` of 50,000: 51 items at most).
pub async fn published_stamps(
    table: &dyn Table,
    ids: RangeInclusive<u64>,
) -> Result<Vec<PublishedStamp>, TableError> {
    let pages: Vec<u64> = sitemap_pages::pages_of(&ids).collect();
    sitemap_pages::stamps(table, &pages, ids).await
}

/// The published articles of `pages` (pages of 1,000 ids, as [`PublishedIds::pages`] names
/// them), by id: one BatchGetItem per 100 pages.
pub async fn published_stamps_of_pages(
    table: &dyn Table,
    pages: &[u64],
) -> Result<Vec<PublishedStamp>, TableError> {
    sitemap_pages::stamps(table, pages, 1..=blog_core::ids::MAX_ID).await
}
