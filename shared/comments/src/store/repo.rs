//! Storage of comments: the item with its index keys, the locator by id (and by author), the
//! tree's Query (the writes that change a comment's status with the counts they move: `thread`).

use futures::future::try_join_all;

use blog_articles::{self as articles};
use blog_core::{
    ports::table::{n, s, Index, Item, Key, Query, SortKey, Table, TableError},
    records::{self, query_all},
};

use crate::{keys, model::StoredComment};

/// The comment's item, in the administration's index of its status (gsi3, which only the
/// administration reads: a hidden comment is in no index anyone else may query).
pub fn item_of(comment: &StoredComment) -> Result<Item, TableError> {
    let mut item = records::to_item(comment, &comment.key())?;
    item.insert("gsi3pk".into(), s(keys::by_status(comment.status)));
    item.insert("gsi3sk".into(), s(status_order(comment)));
    Ok(item)
}

/// The sort key of a comment in its status partition: newest last.
pub(crate) fn status_order(comment: &StoredComment) -> String {
    format!("{}#{:016}", comment.create_time, comment.id)
}

/// The locator of a new comment: its article and thread by its id, and its place among its
/// author's comments (gsi3 `UCOMMENTS#<userId>`; the comment itself is in its status partition).
pub fn locator_item(comment: &StoredComment) -> Item {
    let mut item = records::key_item(&keys::locator(comment.id));
    item.insert("articleId".into(), n(comment.article_id as i64));
    item.insert("rootId".into(), n(comment.root_id as i64));
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
    /// The root of its thread (absent on a locator written before threads had key ranges:
    /// then a root's, or a reply not yet moved by the migration, at `C#<id16>`).
    #[serde(default)]
    pub root_id: Option<u64>,
    /// The comment's id.
    pub comment_id: u64,
}

impl Located {
    /// The comment's key.
    pub fn key(&self) -> Key {
        let root = self.root_id.unwrap_or(self.comment_id);
        keys::comment(self.article_id, root, self.comment_id)
    }
}

/// Where every comment of `user_id` is (deleted ones too): one Query of gsi3
/// `UCOMMENTS#<userId>`, following its pages.
pub async fn of_user(table: &dyn Table, user_id: u64) -> Result<Vec<Located>, TableError> {
    let query = Query::partition(Index::Gsi3, keys::by_user(user_id));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// Every comment of an article, thread after thread (roots in creation order, each followed
/// by its replies in creation order): one Query.
pub async fn of_article(
    table: &dyn Table,
    article_id: u64,
) -> Result<Vec<StoredComment>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id))
        .sort(SortKey::BeginsWith(keys::COMMENT_PREFIX.into()));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// The comments of one thread, its root first, then its replies in creation order: one Query.
pub async fn of_thread(
    table: &dyn Table,
    article_id: u64,
    root_id: u64,
) -> Result<Vec<StoredComment>, TableError> {
    let query = Query::partition(Index::Primary, keys::comments(article_id))
        .sort(SortKey::BeginsWith(keys::thread(root_id)));
    query_all(table, query).await?.into_iter().map(records::from_item).collect()
}

/// The comments `located` points at (those still stored): one BatchGetItem per 100, together.
pub async fn get_located(
    table: &dyn Table,
    located: &[Located],
) -> Result<Vec<StoredComment>, TableError> {
    let keys: Vec<Key> = located.iter().map(Located::key).collect();
    let batches = try_join_all(keys.chunks(100).map(|chunk| table.get_many(chunk))).await?;
    batches.into_iter().flatten().map(records::from_item).collect()
}

/// A comment of a known thread (one GetItem).
pub async fn get_in(
    table: &dyn Table,
    article_id: u64,
    root_id: u64,
    id: u64,
) -> Result<Option<StoredComment>, TableError> {
    get_at(table, &keys::comment(article_id, root_id, id)).await
}

async fn get_at(table: &dyn Table, key: &Key) -> Result<Option<StoredComment>, TableError> {
    table.get(key).await?.map(records::from_item).transpose()
}

/// Where the comment `id` is, by its locator (one GetItem; a locator written before the
/// present layout may lack all but `articleId`).
async fn locate(table: &dyn Table, id: u64) -> Result<Option<Located>, TableError> {
    let Some(item) = table.get(&keys::locator(id)).await? else { return Ok(None) };
    let number = |attribute: &str| records::number(&item, attribute).map(|value| value as u64);
    Ok(number("articleId").map(|article_id| Located {
        article_id,
        root_id: number("rootId"),
        comment_id: id,
    }))
}

/// A comment by its id alone: the locator, then the comment (two GetItems).
pub async fn find(table: &dyn Table, id: u64) -> Result<Option<StoredComment>, TableError> {
    match locate(table, id).await? {
        Some(located) => get_at(table, &located.key()).await,
        None => Ok(None),
    }
}

/// A comment of `article_id` by its id alone, read as a root and through its locator at once
/// (a root, as most parents are: one round trip; a reply: its locator's thread, one more).
pub async fn find_in_article(
    table: &dyn Table,
    article_id: u64,
    id: u64,
) -> Result<Option<StoredComment>, TableError> {
    let (as_root, located) =
        futures::try_join!(get_in(table, article_id, id, id), locate(table, id))?;
    let found = match (as_root, located) {
        (Some(root), _) => Some(root),
        (None, Some(located)) if located.article_id == article_id => {
            get_at(table, &located.key()).await?
        }
        _ => None,
    };
    Ok(found.filter(|comment| comment.article_id == article_id))
}

/// A comment by its id with whether its article is readable: the locator, then the comment
/// and the article's head together (two round trips).
pub async fn find_with_article(
    table: &dyn Table,
    id: u64,
) -> Result<Option<(StoredComment, bool)>, TableError> {
    let Some(located) = locate(table, id).await? else {
        return Ok(None);
    };
    let key = located.key();
    let (comment, article) = futures::try_join!(
        get_at(table, &key),
        articles::reaction_target(table, located.article_id)
    )?;
    Ok(comment.map(|comment| (comment, article.is_some())))
}
