//! Reading one page of an article's tree with a bounded read: the root entries say which
//! roots the caller sees and how many (one Query of small items), then the page's threads are
//! read, at most [`READ_BUDGET`] comments and about [`READ_BYTES`] in all (docs/data-model.md,
//! "The tree of an article").
//!
//! The threads of a page are one key range: one Query reads them when they are small. When
//! they are not, every thread not yet read whole gets an equal share of what is left of the
//! budget, then the shares the short ones left go to the others. A thread is read oldest
//! first, so a thread cut short keeps its oldest replies, each under its parent.

use std::collections::HashSet;

use futures::future::try_join_all;

use blog_core::{
    ports::table::{AttributeValue, Index, Item, Query, SortKey, Table, TableError},
    records::{self, query_all},
};

use crate::{
    keys,
    model::StoredComment,
    pages::TreePage,
    public::forest,
    repo,
    roots::{Listed, RootEntry},
};

/// Comments a page reads at most, its threads together.
pub const READ_BUDGET: usize = 1000;
/// Bytes of comments a page reads at most (about; twice what its answer may hold of them).
pub const READ_BYTES: usize = 2 << 20;

/// What a read may take.
#[derive(Clone, Copy, Debug)]
struct Budget {
    items: usize,
    bytes: usize,
}

/// What the first read of a page's threads may take, before they are read one by one.
const FIRST_READ: Budget = Budget { items: READ_BUDGET / 2, bytes: READ_BYTES / 2 };

/// The size of a comment's item as its answer and its read units grow with it (about).
fn approximate_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| {
            name.len()
                + match value {
                    AttributeValue::S(text) => text.len(),
                    _ => 8,
                }
        })
        .sum()
}

/// A page of the roots `viewer` sees: their number and the page's roots with what was read of
/// their threads (every comment of them, bar what the budget cut).
pub struct PageRead {
    /// Roots the viewer sees.
    pub total: u64,
    /// The comments read of the page's threads, thread after thread.
    pub comments: Vec<StoredComment>,
}

/// Reads page `page` of the tree of `article_id` as `viewer` sees it.
pub async fn read_page(
    table: &dyn Table,
    article_id: u64,
    viewer: Option<(u64, bool)>,
    page: TreePage,
) -> Result<PageRead, TableError> {
    // The first page's threads are the article's first: they are read beside the entries,
    // so that the page usual clients ask for takes one round trip.
    let (roots, early) = if page.page == 1 {
        let start = Query::partition(Index::Primary, keys::comments(article_id))
            .sort(SortKey::BeginsWith(keys::COMMENT_PREFIX.into()));
        let (roots, early) = futures::try_join!(
            listed_roots(table, article_id, viewer),
            // As many comments as twice its roots (whole threads of one reply each), at most.
            read_up_to(table, start, Budget { items: 2 * page.size as usize, ..FIRST_READ })
        )?;
        (roots, Some(early))
    } else {
        (listed_roots(table, article_id, viewer).await?, None)
    };
    let chosen = &roots[page.range(roots.len())];
    let comments = if chosen.is_empty() {
        Vec::new()
    } else {
        let wanted: HashSet<u64> = chosen.iter().copied().collect();
        let read = read_threads(table, article_id, chosen, early).await?;
        read.into_iter().filter(|c| wanted.contains(&c.root_id)).collect()
    };
    Ok(PageRead { total: roots.len() as u64, comments })
}

/// The roots `viewer` sees, oldest first: from the root entries, reading the thread of a
/// deleted root only when its entry cannot tell (its replies are all hidden from others).
async fn listed_roots(
    table: &dyn Table,
    article_id: u64,
    viewer: Option<(u64, bool)>,
) -> Result<Vec<u64>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id))
        .sort(SortKey::BeginsWith(keys::ROOT_PREFIX.into()));
    let entries: Vec<RootEntry> = query_all(table, query)
        .await?
        .into_iter()
        .map(records::from_item)
        .collect::<Result<_, _>>()?;
    let undecided: Vec<u64> = entries
        .iter()
        .filter(|e| e.listed_for(viewer) == Listed::IfTheyShow)
        .map(|e| e.root_id)
        .collect();
    let decided: HashSet<u64> = try_join_all(undecided.iter().map(|root| async move {
        let thread = repo::of_thread(table, article_id, *root).await?;
        Ok::<_, TableError>((!forest(thread, viewer).is_empty()).then_some(*root))
    }))
    .await?
    .into_iter()
    .flatten()
    .collect();
    Ok(entries
        .iter()
        .filter(|e| match e.listed_for(viewer) {
            Listed::Yes => true,
            Listed::No => false,
            Listed::IfTheyShow => decided.contains(&e.root_id),
        })
        .map(|e| e.root_id)
        .collect())
}

/// Items of `query`, following its pages, until `budget` is spent or none is left; where it
/// stopped, when it did before the end. Each call asks for as many items as the bytes left
/// hold at the size seen so far.
async fn read_up_to(
    table: &dyn Table,
    mut query: Query,
    budget: Budget,
) -> Result<(Vec<Item>, Option<Item>), TableError> {
    let (mut items, mut bytes) = (Vec::new(), 0);
    while items.len() < budget.items && bytes < budget.bytes {
        let seen = if items.is_empty() { 1000 } else { bytes / items.len() };
        let fit = ((budget.bytes - bytes) / seen.max(1)).max(1);
        let wanted = (budget.items - items.len()).min(fit);
        query.limit = Some(u32::try_from(wanted).unwrap_or(u32::MAX));
        let page = table.query(query.clone()).await?;
        bytes += page.items.iter().map(approximate_size).sum::<usize>();
        items.extend(page.items);
        match page.next {
            Some(next) => query.start_after = Some(next),
            None => return Ok((items, None)),
        }
    }
    Ok((items, query.start_after))
}

/// One thread's read so far: where to go on, when it is not read whole.
struct Partial {
    root: u64,
    next: Option<Item>,
}

fn thread_query(article_id: u64, root: u64, after: Option<Item>) -> Query {
    let mut query = Query::partition(Index::Primary, keys::comments(article_id))
        .sort(SortKey::BeginsWith(keys::thread(root)));
    query.start_after = after;
    query
}

/// The comments of the threads of `roots` (the page's, in order, at least one), at most
/// [`READ_BUDGET`]; `early`, the first read of their range when it was made already (from the
/// start of the article's comments).
async fn read_threads(
    table: &dyn Table,
    article_id: u64,
    roots: &[u64],
    early: Option<(Vec<Item>, Option<Item>)>,
) -> Result<Vec<StoredComment>, TableError> {
    let first = roots[0];
    let (items, next) = match early {
        Some(read) => read,
        None => {
            let (low, high) = keys::threads_between(first, roots[roots.len() - 1]);
            let range = Query::partition(Index::Primary, keys::comments(article_id))
                .sort(SortKey::Between(low, high));
            read_up_to(table, range, FIRST_READ).await?
        }
    };
    let Some(next) = next else {
        return items.into_iter().map(records::from_item).collect();
    };
    // The range stopped inside the thread of its last comment: that thread goes on where it
    // stopped, the threads after it are read from their start.
    let cut_at = match items.last() {
        Some(last) => records::from_item::<StoredComment>(last.clone())?.root_id,
        None => first,
    };
    let mut open: Vec<Partial> = roots
        .iter()
        .filter(|root| **root >= cut_at)
        .map(|root| Partial { root: *root, next: (*root == cut_at).then(|| next.clone()) })
        .collect();
    let mut left = Budget {
        items: READ_BUDGET.saturating_sub(items.len()),
        bytes: READ_BYTES.saturating_sub(items.iter().map(approximate_size).sum()),
    };
    let mut comments: Vec<StoredComment> =
        items.into_iter().map(records::from_item).collect::<Result<_, _>>()?;
    for _ in 0..2 {
        if open.is_empty() || left.items < open.len() || left.bytes == 0 {
            break;
        }
        let share = Budget { items: left.items / open.len(), bytes: left.bytes / open.len() };
        let reads = try_join_all(open.iter().map(|thread| {
            let query = thread_query(article_id, thread.root, thread.next.clone());
            read_up_to(table, query, share)
        }))
        .await?;
        let mut still_open = Vec::new();
        for (thread, (items, next)) in open.into_iter().zip(reads) {
            left.items = left.items.saturating_sub(items.len());
            let bytes: usize = items.iter().map(approximate_size).sum();
            left.bytes = left.bytes.saturating_sub(bytes);
            for item in items {
                comments.push(records::from_item(item)?);
            }
            if next.is_some() {
                still_open.push(Partial { root: thread.root, next });
            }
        }
        open = still_open;
    }
    // Thread after thread, each oldest first, as one read would have given them.
    comments.sort_by_key(|c| (c.root_id, c.id));
    Ok(comments)
}
