//! Reads of articles: the detail (one Query: head and body share a partition), public pages
//! (one listing Query plus one more call: the statistics item with the exact total for the
//! whole list, a BatchGetItem of the heads for a category or tag, whose own item heads its
//! listing with the total), both filters together, and the administration list. (A keyword is
//! searched in the search index: [`crate::search::keyword_page`].)
//! Reads that do not depend on each other are made together, so they cost one round trip.

use std::collections::HashMap;

use futures::{future::try_join_all, try_join};

use blog_core::{
    ports::table::{Index, Item, Key, Query, SortKey, Table, TableError},
    records::{self, number},
};
use blog_taxonomy::{self as taxonomy};

use crate::{
    input::MAX_PUBLIC_DEPTH,
    keys,
    model::{ArticleBody, ArticleHead, Status},
};

/// Link items a combined filter (a category and a tag) reads at most, newest first: the deepest
/// a public list is paged anyway. So an anonymous request reads at most this many plus the
/// page's heads, and its `total` counts the matches among them: exact while the tag has at
/// most this many published articles.
pub const MATCHES_READ: usize = MAX_PUBLIC_DEPTH as usize;

/// Reads an article's head and body (one Query); `None` when absent or incomplete.
pub async fn load(
    table: &dyn Table,
    id: u64,
) -> Result<Option<(ArticleHead, ArticleBody)>, TableError> {
    let query = Query::partition(Index::Primary, keys::partition(id))
        .sort(SortKey::Between(keys::BODY.into(), keys::HEAD.into()));
    let mut head = None;
    let mut body = None;
    for item in table.query(query).await?.items {
        match Key::of(&item).map(|k| k.sk) {
            Some(sk) if sk == keys::HEAD => head = Some(records::from_item(item)?),
            Some(sk) if sk == keys::BODY => body = Some(records::from_item(item)?),
            _ => {}
        }
    }
    Ok(head.zip(body))
}

/// Reads an article's head (one GetItem).
pub async fn load_head(table: &dyn Table, id: u64) -> Result<Option<ArticleHead>, TableError> {
    table.get(&keys::head(id)).await?.map(records::from_item).transpose()
}

/// Reads items by key, 100 keys per call.
pub(crate) async fn get_all(table: &dyn Table, keys: &[Key]) -> Result<Vec<Item>, TableError> {
    let mut items = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(100) {
        items.extend(table.get_many(chunk).await?);
    }
    Ok(items)
}

/// Reads up to `n` items of a query in order, following continuation keys.
pub(crate) async fn first_n(
    table: &dyn Table,
    mut query: Query,
    n: usize,
) -> Result<Vec<Item>, TableError> {
    let mut items = Vec::new();
    while items.len() < n {
        query.limit = Some((n - items.len()).min(u32::MAX as usize) as u32);
        let page = table.query(query.clone()).await?;
        items.extend(page.items);
        match page.next {
            Some(next) => query.start_after = Some(next),
            None => break,
        }
    }
    items.truncate(n);
    Ok(items)
}

fn article_id(item: &Item) -> Option<u64> {
    number(item, "articleId").map(|id| id as u64)
}

/// Filters of the public list.
#[derive(Debug, Default)]
pub struct Filter {
    /// Only this category.
    pub category_id: Option<u64>,
    /// Only this tag.
    pub tag_id: Option<u64>,
}

/// One page of results: heads in order and the exact total.
pub struct Found {
    /// Heads of the page, in list order.
    pub heads: Vec<ArticleHead>,
    /// Matches across all pages.
    pub total: u64,
}

/// A page of published articles, newest first with pinned ones on top.
pub async fn public_page(
    table: &dyn Table,
    filter: &Filter,
    page: u64,
    size: u64,
) -> Result<Found, TableError> {
    let offset = ((page - 1) * size) as usize;
    let wanted = offset + size as usize;
    let listing = |partition: String| Query::partition(Index::Gsi1, partition).descending();
    match (filter.category_id, filter.tag_id) {
        (None, None) => {
            let stats = keys::stats();
            let (items, stats) = try_join!(
                first_n(table, listing(keys::PUBLISHED.into()), wanted),
                table.get(&stats)
            )?;
            let heads =
                items.into_iter().skip(offset).map(records::from_item).collect::<Result<_, _>>()?;
            let total = stats.and_then(|s| number(&s, Status::Published.counter())).unwrap_or(0);
            Ok(Found { heads, total: total.max(0) as u64 })
        }
        (Some(category), None) => {
            let query = listing(keys::published_in_category(category));
            counted_page(table, query, offset, wanted, taxonomy::category_listing_head(category))
                .await
        }
        (None, Some(tag)) => {
            let query = listing(keys::published_with_tag(tag));
            counted_page(table, query, offset, wanted, taxonomy::tag_listing_head(tag)).await
        }
        (Some(category), Some(tag)) => {
            both_filters_page(table, category, tag, offset, size as usize).await
        }
    }
}

/// A page of a category's or tag's listing partition: one Query, which the category or tag
/// item heads (its count is the total, see [`blog_taxonomy::LISTING_HEAD`]), then one
/// BatchGetItem of the page's heads (at most 100: one call). A taxonomy item without the listing
/// keys (written before they existed) is read in that batch instead.
async fn counted_page(
    table: &dyn Table,
    query: Query,
    offset: usize,
    wanted: usize,
    counter: Key,
) -> Result<Found, TableError> {
    let mut items = first_n(table, query, wanted + 1).await?;
    let headed = items.first().is_some_and(|first| Key::of(first).as_ref() == Some(&counter));
    let head = if headed { Some(items.remove(0)) } else { None };
    items.truncate(wanted);
    let ids: Vec<u64> = items.iter().skip(offset).filter_map(article_id).collect();
    let mut keys: Vec<Key> = ids.iter().map(|id| keys::head(*id)).collect();
    if head.is_none() {
        keys.push(counter.clone());
    }
    let fetched = get_all(table, &keys).await?;
    let mut total = 0;
    let mut heads: HashMap<u64, ArticleHead> = HashMap::new();
    for item in head.into_iter().chain(fetched) {
        if Key::of(&item).as_ref() == Some(&counter) {
            total = taxonomy::published_count(&item);
        } else {
            let head: ArticleHead = records::from_item(item)?;
            heads.insert(head.id, head);
        }
    }
    let heads =
        ids.iter().filter_map(|id| heads.remove(id)).filter(ArticleHead::is_listed).collect();
    Ok(Found { heads, total })
}

/// A category and a tag together: the tag's newest [`MATCHES_READ`] listing items are read,
/// filtered on their category and counted, and the page's heads fetched in one batch.
async fn both_filters_page(
    table: &dyn Table,
    category: u64,
    tag: u64,
    offset: usize,
    size: usize,
) -> Result<Found, TableError> {
    let listing = Query::partition(Index::Gsi1, keys::published_with_tag(tag)).descending();
    let matches: Vec<u64> = first_n(table, listing, MATCHES_READ)
        .await?
        .iter()
        .filter(|item| number(item, "categoryId") == Some(category as i64))
        .filter_map(article_id)
        .collect();
    let page: Vec<Key> = matches.iter().skip(offset).take(size).map(|id| keys::head(*id)).collect();
    let mut heads: HashMap<u64, ArticleHead> = HashMap::new();
    for item in get_all(table, &page).await? {
        let head: ArticleHead = records::from_item(item)?;
        heads.insert(head.id, head);
    }
    let heads = matches.iter().skip(offset).take(size).filter_map(|id| heads.remove(id)).collect();
    Ok(Found { heads, total: matches.len() as u64 })
}

/// A page of the administration list: non-deleted articles of any status (or one), newest
/// first; the exact total from the per-status statistics.
pub async fn admin_page(
    table: &dyn Table,
    status: Option<Status>,
    page: u64,
    size: u64,
) -> Result<Found, TableError> {
    let offset = ((page - 1) * size) as usize;
    let wanted = offset + size as usize;
    let statuses: Vec<Status> = status.map_or(Status::ALL.to_vec(), |s| vec![s]);
    let listings = statuses.iter().map(|status| {
        first_n(table, Query::partition(Index::Gsi3, keys::admin(*status)).descending(), wanted)
    });
    let stats = keys::stats();
    let (listings, stats) = try_join!(try_join_all(listings), table.get(&stats))?;
    let mut heads: Vec<ArticleHead> =
        listings.into_iter().flatten().map(records::from_item).collect::<Result<_, _>>()?;
    heads.sort_by_key(|h| std::cmp::Reverse(h.id));
    let heads = heads.into_iter().skip(offset).take(size as usize).collect();
    let total = statuses
        .iter()
        .map(|s| {
            stats.as_ref().and_then(|item| number(item, s.counter())).unwrap_or(0).max(0) as u64
        })
        .sum();
    Ok(Found { heads, total })
}
