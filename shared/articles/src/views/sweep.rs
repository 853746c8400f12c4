//! The sweep of the pending views: what the readers' views added to `VIEWS#<shard>` goes to the
//! heads' `viewCount`.

use futures::{future::try_join_all, stream, StreamExt};

use blog_core::{
    ports::table::{
        refused_by, Condition, Index, Item, Key, Query, Table, TableError, Transaction, Update,
        Write,
    },
    records::{number, query_all},
};

use super::{super::keys, shard, SHARDS, VIEWS};

/// Pending views moved at once by the sweep.
const CONCURRENCY: usize = 8;

/// Moves every pending view to its article's head: one Query per shard (together), then per
/// article one transaction of the head's `viewCount` ADD n (on condition it is PUBLISHED or
/// ARCHIVED) and the pending item's `views` ADD -n (on condition it still holds at least n:
/// views counted meanwhile stay pending). Views of an article that is gone or a draft are
/// dropped. Returns the views moved.
pub async fn sweep(table: &dyn Table) -> Result<u64, TableError> {
    let shards = (0..SHARDS).map(|s| query_all(table, Query::partition(Index::Primary, shard(s))));
    let pending: Vec<Item> = try_join_all(shards).await?.into_iter().flatten().collect();
    let moves = stream::iter(pending).map(|item| move_views(table, item));
    let moved: Vec<Result<u64, TableError>> = moves.buffer_unordered(CONCURRENCY).collect().await;
    let mut total = 0;
    for result in moved {
        total += result?;
    }
    if total > 0 {
        tracing::info!(views = total, "pending views moved to the articles");
    }
    Ok(total)
}

async fn move_views(table: &dyn Table, item: Item) -> Result<u64, TableError> {
    let (Some(key), Some(views)) = (Key::of(&item), number(&item, VIEWS)) else {
        return Ok(0);
    };
    let Ok(id) = key.sk.parse::<u64>() else {
        return Ok(0);
    };
    if views == 0 {
        let condition = Some(Condition::equals(VIEWS, blog_core::ports::table::n(0)));
        return match table.delete(&key, condition).await {
            Ok(_) | Err(TableError::ConditionFailed) => Ok(0),
            Err(other) => Err(other),
        };
    }
    let still = if views > 0 {
        Condition::GreaterThan(VIEWS.into(), views - 1)
    } else {
        Condition::LessThan(VIEWS.into(), views + 1)
    };
    // Published or archived (a deleted one keeps its status: its views are kept with it, never
    // shown; `isDeleted` is not asked for, since heads of the first layout may lack it).
    let visible = Condition::GreaterThan("status".into(), 0);
    let to_head = Write::Update {
        key: keys::head(id),
        update: Update::new().add("viewCount", views),
        condition: Some(visible),
    };
    let from_pending = Write::Update {
        key: key.clone(),
        update: Update::new().add(VIEWS, -views),
        condition: Some(still),
    };
    let writes = Transaction::new().with("head", to_head).with("pending", from_pending);
    match writes.commit(table).await {
        Ok(()) => Ok(views.max(0) as u64),
        Err(error) if refused_by(&error, "head") => {
            // No such article, or a draft: its pending views go.
            let condition = Some(Condition::equals(VIEWS, blog_core::ports::table::n(views)));
            match table.delete(&key, condition).await {
                Ok(_) | Err(TableError::ConditionFailed) => Ok(0),
                Err(other) => Err(other),
            }
        }
        // Another sweep moved them meanwhile: the next one moves what is left.
        Err(TableError::Refused { .. }) => Ok(0),
        Err(other) => Err(other),
    }
}
