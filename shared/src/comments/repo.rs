//! Storage of comments: the item with its index keys, the locator by id (and by author), the
//! tree's Query (the writes that change a comment's status with the counts they move: `thread`).

use futures::future::try_join_all;

use crate::{
    articles,
    ports::table::{n, s, Index, Item, Key, Query, Table, TableError},
    records::{self, query_all},
};

use super::{keys, model::StoredComment};

/// The comment's item, in the administration's index of its status (gsi3, which only the
/// administration reads: a hidden comment is in no index anyone else may query).
pub fn item_of(comment: &StoredComment) -> Result<Item, TableError> {
    let mut item = records::to_item(comment, &keys::comment(comment.article_id, comment.id))?;
    item.insert("gsi3pk".into(), s(keys::by_status(comment.status)));
    item.insert("gsi3sk".into(), s(status_order(comment)));
    Ok(item)
}

/// The sort key of a comment in its status partition: newest last.
pub(super) fn status_order(comment: &StoredComment) -> String {
    format!("{}#{:016}", comment.create_time, comment.id)
}

/// The locator of a new comment: its article by its id, and its place among its author's
/// comments (gsi3 `UCOMMENTS#<userId>`; the comment itself is in its status partition).
pub fn locator_item(comment: &StoredComment) -> Item {
    let mut item = records::key_item(&keys::locator(comment.id));
    item.insert("articleId".into(), n(comment.article_id as i64));
    item.insert("commentId".into(), n(comment.id as i64));
    item.insert("gsi3pk".into(), s(keys::by_user(comment.user_id)));
    item.insert("gsi3sk".into(), s(format!("{:016}", comment.id)));
    item
}

/// A comment's place, as its locator in the author's partition says it.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Located {
    /// The article it is on.
    pub article_id: u64,
    /// The comment's id.
    pub comment_id: u64,
}

/// Where every comment of `user_id` is (deleted ones too): one Query of gsi3
/// `UCOMMENTS#<userId>`, following its pages.
pub async fn of_user(table: &dyn Table, user_id: u64) -> Result<Vec<Located>, TableError> {
    let query = Query::partition(Index::Gsi3, keys::by_user(user_id));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// Every comment of an article in id (creation) order: one Query.
pub async fn of_article(
    table: &dyn Table,
    article_id: u64,
) -> Result<Vec<StoredComment>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// The comments `located` points at (those still stored): one BatchGetItem per 100, together.
pub async fn get_located(
    table: &dyn Table,
    located: &[Located],
) -> Result<Vec<StoredComment>, TableError> {
    let keys: Vec<Key> =
        located.iter().map(|l| keys::comment(l.article_id, l.comment_id)).collect();
    let batches = try_join_all(keys.chunks(100).map(|chunk| table.get_many(chunk))).await?;
    batches.into_iter().flatten().map(records::from_item).collect()
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
