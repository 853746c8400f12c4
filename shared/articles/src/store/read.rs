//! Reads of articles: the detail (one Query: head and body share a partition), public pages
//! (one listing Query plus one more call: the statistics item with the exact total for the
//! whole list, a BatchGetItem of the heads for a category or tag, whose own item heads its
//! listing with the total), keyword search through the token index, and the administration list.
//! Reads that do not depend on each other are made together, so they cost one round trip.

use std::collections::{HashMap, HashSet};

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
    search,
};

/// Link items a keyword search or a combined filter reads at most, newest first, shared evenly
/// among the index partitions it queries (a keyword of n words reads the newest `1000 / n` of
/// each): the deepest a public list is paged anyway. So an anonymous request reads at most this
/// many plus the page's heads, and a search's `total` counts the matches among them: exact
/// while each word has at most its share of published articles, and at most this many
/// otherwise.
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
    /// Only articles whose title or summary contain every word of it.
    pub keyword: Option<String>,
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
    let keyword = filter.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let listing = |partition: String| Query::partition(Index::Gsi1, partition).descending();
    match (keyword, filter.category_id, filter.tag_id) {
        (None, None, None) => {
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
        (None, Some(category), None) => {
            let query = listing(keys::published_in_category(category));
            counted_page(table, query, offset, wanted, taxonomy::category_listing_head(category))
                .await
        }
        (None, None, Some(tag)) => {
            let query = listing(keys::published_with_tag(tag));
            counted_page(table, query, offset, wanted, taxonomy::tag_listing_head(tag)).await
        }
        _ => filtered_page(table, filter, keyword, offset, size as usize).await,
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

/// Keyword searches and combined filters: the newest [`MATCHES_READ`] link items, shared among
/// the most selective index partitions (search tokens, else the tag, else the category) are
/// read, intersected, filtered on the link items' category and tags and counted, and the page's
/// heads fetched in one batch.
async fn filtered_page(
    table: &dyn Table,
    filter: &Filter,
    keyword: Option<&str>,
    offset: usize,
    size: usize,
) -> Result<Found, TableError> {
    let listing = |partition: String| Query::partition(Index::Gsi1, partition).descending();
    let mut sources = Vec::new();
    match keyword {
        Some(keyword) => {
            let tokens = search::keyword_tokens(keyword);
            if tokens.is_empty() {
                return Ok(Found { heads: Vec::new(), total: 0 });
            }
            sources.extend(tokens.iter().map(|t| listing(keys::token(t))));
        }
        None => match filter.tag_id {
            Some(tag) => sources.push(listing(keys::published_with_tag(tag))),
            None => {
                sources.extend(filter.category_id.map(|c| listing(keys::published_in_category(c))))
            }
        },
    }
    let mut matches: Option<Vec<Item>> = None;
    let share = MATCHES_READ / sources.len().max(1);
    let reads = sources.into_iter().map(|source| first_n(table, source, share));
    for items in try_join_all(reads).await? {
        matches = Some(match matches {
            None => items,
            Some(previous) => {
                let ids: HashSet<u64> = items.iter().filter_map(article_id).collect();
                previous
                    .into_iter()
                    .filter(|i| article_id(i).is_some_and(|id| ids.contains(&id)))
                    .collect()
            }
        });
    }
    let carries = |item: &Item, attribute: &str, wanted: Option<u64>| {
        match wanted {
        None => true,
        Some(wanted) => match item.get(attribute) {
            Some(blog_core::ports::table::AttributeValue::L(values)) => {
                values.iter().any(|v| matches!(v, blog_core::ports::table::AttributeValue::N(n) if n.parse() == Ok(wanted)))
            }
            _ => number(item, attribute) == Some(wanted as i64),
        },
    }
    };
    let matches: Vec<u64> = matches
        .unwrap_or_default()
        .iter()
        .filter(|i| {
            carries(i, "categoryId", filter.category_id) && carries(i, "tagIds", filter.tag_id)
        })
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
