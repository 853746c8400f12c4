//! The one-off move of comments stored before threads had key ranges: a reply at `C#<id16>`
//! moves to `C#<rootId16>#<id16>`, its locator learns its root, and every thread gets its root
//! entry, computed from the thread as stored (`blog-gateway migrate-indexes`, which the local
//! gateway also runs when it starts; docs/data-model.md, "The tree of an article").
//!
//! Each move is one transaction: the comment put at its new key (on condition none is there),
//! the old item deleted on condition it is as read (so a concurrent edit or like is never
//! lost: the article is read again), the locator updated. A marker item records the run, so a
//! second run reads one item and stops.

use std::collections::{BTreeMap, BTreeSet};

use futures::{stream, StreamExt, TryStreamExt};

use blog_core::{
    ports::table::{
        n, s, Condition, Index, Item, Key, Query, Scan, SortKey, Table, TableError, Update, Write,
    },
    records,
};

use crate::{keys, model::StoredComment, repo, thread::Thread};

/// The marker item of a completed run.
pub fn marker() -> Key {
    Key::new("MIGRATION#THREADS", "THREADS")
}

/// Attempts per article when concurrent writers keep changing it.
const ATTEMPTS: usize = 5;
/// Articles migrated at once.
const CONCURRENCY: usize = 8;
/// Items evaluated per scan page.
const PAGE: u32 = 500;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadsOutcome {
    /// A marker said an earlier run had completed: nothing was read but it.
    pub already_done: bool,
    /// Articles whose comments were read.
    pub articles: usize,
    /// Replies moved to their thread's key range.
    pub moved: usize,
    /// Root entries written.
    pub entries: usize,
}

impl ThreadsOutcome {
    /// What happened, in words (the command's output).
    pub fn summary(&self) -> String {
        if self.already_done {
            return "the comment threads were migrated already; nothing to do".into();
        }
        format!(
            "moved {} replies into their threads' key ranges and wrote {} thread entries on {} \
             articles",
            self.moved, self.entries, self.articles
        )
    }
}

/// Moves every comment stored under the earlier layout and writes every thread's entry,
/// unless the marker says it was done; then writes the marker.
pub async fn migrate_threads(table: &dyn Table) -> anyhow::Result<ThreadsOutcome> {
    if table.get(&marker()).await?.is_some() {
        return Ok(ThreadsOutcome { already_done: true, ..ThreadsOutcome::default() });
    }
    let articles = articles_with_comments(table).await?;
    let done: Vec<(usize, usize)> = stream::iter(articles.iter().copied())
        .map(|article| migrate_article(table, article))
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await?;
    let outcome = ThreadsOutcome {
        already_done: false,
        articles: articles.len(),
        moved: done.iter().map(|(moved, _)| moved).sum(),
        entries: done.iter().map(|(_, entries)| entries).sum(),
    };
    let mut item = records::key_item(&marker());
    item.insert("completedAt".into(), s(blog_core::time::now_string()));
    item.insert("moved".into(), n(outcome.moved as i64));
    table.put(item, None).await?;
    Ok(outcome)
}

/// The articles that have comments: a scan of the table (the partitions `COMMENTS#<id>`).
async fn articles_with_comments(table: &dyn Table) -> Result<BTreeSet<u64>, TableError> {
    let mut scan = Scan::of(Index::Primary);
    scan.limit = Some(PAGE);
    let mut articles = BTreeSet::new();
    loop {
        let page = table.scan(scan.clone()).await?;
        for item in &page.items {
            let partition = Key::of(item).map(|key| key.pk);
            if let Some(id) = partition.as_deref().and_then(|pk| pk.strip_prefix("COMMENTS#")) {
                articles.extend(id.parse::<u64>().ok());
            }
        }
        match page.next {
            Some(next) => scan.start_after = Some(next),
            None => return Ok(articles),
        }
    }
}

/// Moves the article's replies that are not in their thread's range, then writes the entry of
/// each thread: (replies moved, entries written).
async fn migrate_article(table: &dyn Table, article_id: u64) -> anyhow::Result<(usize, usize)> {
    let mut moved = 0;
    for _ in 0..ATTEMPTS {
        let stored = stored_comments(table, article_id).await?;
        let mut lost = false;
        for (sort, comment, item) in &stored {
            if *sort == keys::comment_sort(comment.root_id, comment.id) {
                continue;
            }
            match table.transact(move_writes(sort, comment, item)).await {
                Ok(()) => moved += 1,
                Err(TableError::TransactionCancelled { .. }) => lost = true,
                Err(other) => return Err(other.into()),
            }
        }
        if lost {
            continue;
        }
        let mut threads: BTreeMap<u64, Vec<StoredComment>> = BTreeMap::new();
        for (_, comment, _) in stored {
            threads.entry(comment.root_id).or_default().push(comment);
        }
        let mut entries = 0;
        for (root, comments) in threads {
            if let Some(entry) = Thread::from_comments(comments).entry(root) {
                table.put(entry.item(article_id), None).await?;
                entries += 1;
                // A root's locator names its thread too (it is found without it).
                let located = Update::new().set("rootId", n(root as i64));
                match table.update(&keys::locator(root), located, Some(Condition::Exists)).await {
                    Ok(_) | Err(TableError::ConditionFailed) => {}
                    Err(other) => return Err(other.into()),
                }
            }
        }
        return Ok((moved, entries));
    }
    anyhow::bail!("the comments of article {article_id} kept changing: run the migration again")
}

/// Every comment item of the article with its sort key as stored.
async fn stored_comments(
    table: &dyn Table,
    article_id: u64,
) -> Result<Vec<(String, StoredComment, Item)>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id))
        .sort(SortKey::BeginsWith(keys::COMMENT_PREFIX.into()));
    let items = records::query_all(table, query).await?;
    items
        .into_iter()
        .map(|item| {
            let sort = Key::of(&item).map(|key| key.sk).unwrap_or_default();
            let comment: StoredComment = records::from_item(item.clone())?;
            Ok((sort, comment, item))
        })
        .collect()
}

/// The writes that move `comment` from `sort` to its thread's key: the new item, the old one's
/// delete on condition it is as read, and its locator's root.
fn move_writes(sort: &str, comment: &StoredComment, stored: &Item) -> Vec<Write> {
    let old = Key::new(keys::comments(comment.article_id), sort);
    let mut item = stored.clone();
    let new_key = comment.key();
    item.insert("pk".into(), s(&new_key.pk));
    item.insert("sk".into(), s(&new_key.sk));
    let as_read = ["updateTime", "likeCount", "replyCount", "status", "userRenamedAt"]
        .into_iter()
        .map(|attribute| match stored.get(attribute) {
            Some(value) => Condition::Equals(attribute.into(), value.clone()),
            None => Condition::LacksAttribute(attribute.into()),
        })
        .collect();
    vec![
        Write::Put { item, condition: Some(Condition::NotExists) },
        Write::Delete { key: old, condition: Some(Condition::All(as_read)) },
        Write::Update {
            key: keys::locator(comment.id),
            update: Update::new().set("rootId", n(comment.root_id as i64)),
            condition: Some(Condition::Exists),
        },
    ]
}

/// The items of `comments` as the present layout stores them: each comment, its locator, and
/// the entry of each thread whose root is among them, counted from the comments given (for
/// tools and tests that write comments straight into the table).
pub fn stored_items(comments: &[StoredComment]) -> Result<Vec<Item>, TableError> {
    let mut items = Vec::with_capacity(comments.len() * 2);
    let mut threads: BTreeMap<(u64, u64), Vec<StoredComment>> = BTreeMap::new();
    for comment in comments {
        items.push(repo::item_of(comment)?);
        items.push(repo::locator_item(comment));
        threads.entry((comment.article_id, comment.root_id)).or_default().push(comment.clone());
    }
    for ((article_id, root), thread) in threads {
        items.extend(Thread::from_comments(thread).entry(root).map(|e| e.item(article_id)));
    }
    Ok(items)
}

/// An APPROVED comment of 2,000 characters by user 1 (`flooder`), under `parent` (a root) when
/// given: the flood that tests and benches write with [`stored_items`], which no client could
/// write past the rate limits.
#[cfg(any(test, feature = "test-support"))]
pub fn flood_comment(article_id: u64, id: u64, parent: Option<u64>) -> StoredComment {
    let text = "Buy now! ".repeat(222) + "xx";
    StoredComment {
        id,
        article_id,
        parent_id: parent,
        root_id: parent.unwrap_or(id),
        depth: u8::from(parent.is_some()),
        user_id: 1,
        user_name: "flooder".into(),
        user_avatar: String::new(),
        user_renamed_at: 0,
        reply_to_user_id: parent.map(|_| 1),
        reply_to_user_name: parent.map(|_| "flooder".into()),
        reply_to_renamed_at: 0,
        content_html: format!("<p>{text}</p>\n"),
        content: text,
        status: crate::model::CommentStatus::Approved,
        like_count: 0,
        reply_count: 0,
        is_edited: false,
        thread_rev: 0,
        create_time: "2026-01-01T00:00:00".into(),
        update_time: "2026-01-01T00:00:00".into(),
    }
}
