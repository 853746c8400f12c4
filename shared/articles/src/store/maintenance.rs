//! Keeping articles consistent with their categories and tags: renames show in the
//! denormalised names of every article carrying them, and a deleted tag is first removed from
//! every article. Each article is changed in its own transaction (counters included), found
//! through the gsi2 link partitions, and its version rises like on any other change. A
//! published article's transaction also writes an ArticleRelabelledEvent to the outbox, which
//! the sweep delivers: the worker then brings its search document up to date.

use blog_core::{
    ports::table::{AttributeValue, Index, Key, Query, Scan, Table, TableError},
    records::{number, query_all},
};
use blog_taxonomy::TagLabel;

use crate::{
    events::{self, ArticlePublishedEvent},
    keys,
    model::{ArticleHead, TagRef},
    read,
    store::{self, StoreError},
};

async fn linked(table: &dyn Table, partition: String) -> Result<Vec<u64>, StoreError> {
    let links = query_all(table, Query::partition(Index::Gsi2, partition)).await?;
    Ok(links.iter().filter_map(|item| number(item, "articleId")).map(|id| id as u64).collect())
}

async fn change(
    table: &dyn Table,
    id: u64,
    edit: impl Fn(&mut ArticleHead),
) -> Result<(), StoreError> {
    for _ in 0..5 {
        let Some(before) = read::load_head(table, id).await?.filter(|h| !h.is_deleted) else {
            return Ok(());
        };
        let mut after = before.clone();
        edit(&mut after);
        if after == before {
            return Ok(());
        }
        after.version += 1;
        after.update_time = blog_core::time::now_string();
        let relabelled = match after.is_listed() {
            true => vec![events::outbox_write(&ArticlePublishedEvent::relabelled(&after))?],
            false => Vec::new(),
        };
        match store::save(table, Some(&before), &after, None, relabelled).await {
            Ok(()) => return Ok(()),
            Err(StoreError::Stale) => continue,
            Err(other) => return Err(other),
        }
    }
    Err(StoreError::Stale)
}

/// Shows a category's new name in its articles.
pub async fn refresh_category(
    table: &dyn Table,
    category_id: u64,
    name: &str,
) -> Result<(), StoreError> {
    for id in linked(table, keys::category_links(category_id)).await? {
        change(table, id, |head| head.category_name = Some(name.to_string())).await?;
    }
    Ok(())
}

/// Shows a tag's new name, slug and colour in its articles.
pub async fn refresh_tag(table: &dyn Table, tag: &TagLabel) -> Result<(), StoreError> {
    let fresh = TagRef::from(tag);
    for id in linked(table, keys::tag_links(tag.id)).await? {
        change(table, id, |head| {
            head.tags.iter_mut().filter(|t| t.id == fresh.id).for_each(|t| *t = fresh.clone())
        })
        .await?;
    }
    Ok(())
}

/// Removes a tag from every article carrying it.
pub async fn detach_tag(table: &dyn Table, tag_id: u64) -> Result<(), StoreError> {
    let tag = tag_id.to_string();
    for id in linked(table, keys::tag_links(tag_id)).await? {
        change(table, id, |head| head.tags.retain(|t| t.id != tag)).await?;
    }
    Ok(())
}

/// Deletes the search-token items (`A#WORD#<token>`, in gsi1 partitions `WORD#<token>`) that
/// versions before the search index wrote for every published article: one scan of gsi1 (which
/// holds only the public listings), one DeleteItem per token item. Answers how many it deleted.
pub async fn remove_search_tokens(table: &dyn Table) -> Result<usize, TableError> {
    let mut scan = Scan::of(Index::Gsi1);
    scan.limit = Some(1_000);
    let mut deleted = 0;
    loop {
        let page = table.scan(scan.clone()).await?;
        let tokens = page.items.iter().filter(|item| {
            matches!(item.get("gsi1pk"), Some(AttributeValue::S(pk)) if pk.starts_with("WORD#"))
        });
        for key in tokens.filter_map(Key::of) {
            table.delete(&key, None).await?;
            deleted += 1;
        }
        match page.next {
            Some(next) => scan.start_after = Some(next),
            None => return Ok(deleted),
        }
    }
}
