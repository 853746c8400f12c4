//! Storage of comments: the item with its index keys, the locator by id, the tree's Query
//! (the writes that change a comment's status with the counts they move: `thread`).

use crate::{
    articles,
    ports::table::{n, s, Index, Item, Query, Table, TableError},
    records::{self, query_all},
};

use super::{keys, model::StoredComment};

/// The comment's item, with its administration and per-user index keys.
pub fn item_of(comment: &StoredComment) -> Result<Item, TableError> {
    let mut item = records::to_item(comment, &keys::comment(comment.article_id, comment.id))?;
    item.insert("gsi1pk".into(), s(keys::by_status(comment.status)));
    item.insert("gsi1sk".into(), s(format!("{}#{:016}", comment.create_time, comment.id)));
    item.insert("gsi2pk".into(), s(keys::by_user(comment.user_id)));
    item.insert("gsi2sk".into(), s(format!("{:016}", comment.id)));
    Ok(item)
}

/// The locator of a new comment: its article, by its id.
pub fn locator_item(comment: &StoredComment) -> Item {
    let mut item = records::key_item(&keys::locator(comment.id));
    item.insert("articleId".into(), n(comment.article_id as i64));
    item
}

/// Every comment of an article in id (creation) order: one Query.
pub async fn of_article(
    table: &dyn Table,
    article_id: u64,
) -> Result<Vec<StoredComment>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// A comment of a known article (one GetItem).
pub async fn get_in(
    table: &dyn Table,
    article_id: u64,
    id: u64,
) -> Result<Option<StoredComment>, TableError> {
    table.get(&keys::comment(article_id, id)).await?.map(records::from_item).transpose()
}

/// A comment by its id alone: the locator, then the comment (two GetItems).
pub async fn find(table: &dyn Table, id: u64) -> Result<Option<StoredComment>, TableError> {
    let Some(locator) = table.get(&keys::locator(id)).await? else {
        return Ok(None);
    };
    match records::number(&locator, "articleId") {
        Some(article_id) => get_in(table, article_id as u64, id).await,
        None => Ok(None),
    }
}

/// A comment by its id with whether its article is readable: the locator, then the comment
/// and the article's head together (two round trips).
pub async fn find_with_article(
    table: &dyn Table,
    id: u64,
) -> Result<Option<(StoredComment, bool)>, TableError> {
    let Some(locator) = table.get(&keys::locator(id)).await? else {
        return Ok(None);
    };
    let Some(article_id) = records::number(&locator, "articleId").map(|id| id as u64) else {
        return Ok(None);
    };
    let (comment, article) = futures::try_join!(
        get_in(table, article_id, id),
        articles::reaction_target(table, article_id)
    )?;
    Ok(comment.map(|comment| (comment, article.is_some())))
}
