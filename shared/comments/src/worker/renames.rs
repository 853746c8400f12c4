//! A renamed author's name and avatar on their comments, and on the replies to them
//! (`replyToUserName`): the comments' part of an AuthorRenamedEvent, which the worker hands
//! over after the articles' heads (wired where the features are composed).
//!
//! The author's comments are one Query of gsi3 `UCOMMENTS#<userId>` (their locators); the
//! replies to them are in
//! the partitions of the articles those comments are on (one Query each). Every write is an
//! UpdateItem conditioned on the stamp it carries being older than the rename (`userRenamedAt`,
//! `replyToRenamedAt`), so renames apply newest-last whatever the delivery order, and a
//! redelivered event changes nothing.

use std::collections::BTreeSet;

use futures::{stream, StreamExt, TryStreamExt};

use blog_articles::AuthorRename;
use blog_core::{
    ports::table::{s, Key, Table, TableError, Update},
    records::update_if_older,
};

use crate::{model::StoredComment, repo};

/// Comments rewritten, or article partitions read, at once.
const CONCURRENCY: usize = 8;

/// Shows `rename` on its author's comments, then on the replies to them (logged with how many
/// of each changed).
pub async fn show_renamed_author(table: &dyn Table, rename: &AuthorRename) -> anyhow::Result<()> {
    let (comments, replies) = rename_comments(table, rename).await?;
    tracing::info!(user_id = rename.user_id, comments, replies, "author renamed on the comments");
    Ok(())
}

/// Renames `rename`'s author on their comments, then on the replies to them: how many of each
/// changed.
async fn rename_comments(
    table: &dyn Table,
    rename: &AuthorRename,
) -> Result<(usize, usize), TableError> {
    let own = repo::of_user(table, rename.user_id).await?;
    let card = Update::new().set("userName", s(&rename.name)).set("userAvatar", s(&rename.avatar));
    let own_keys = own.iter().map(repo::Located::key);
    let renamed = apply(table, own_keys, card, "userRenamedAt", rename.created_at).await?;
    let articles: BTreeSet<u64> = own.iter().map(|comment| comment.article_id).collect();
    let partitions: Vec<Vec<StoredComment>> = stream::iter(articles)
        .map(|article| repo::of_article(table, article))
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await?;
    let replies: Vec<StoredComment> = partitions
        .into_iter()
        .flatten()
        .filter(|comment| comment.reply_to_user_id == Some(rename.user_id))
        .collect();
    let named = Update::new().set("replyToUserName", s(&rename.name));
    let reply_keys = replies.iter().map(StoredComment::key);
    let answered = apply(table, reply_keys, named, "replyToRenamedAt", rename.created_at).await?;
    Ok((renamed, answered))
}

/// Applies `update` to each comment whose `stamp` is older than `at`: how many changed.
async fn apply(
    table: &dyn Table,
    comments: impl Iterator<Item = Key>,
    update: Update,
    stamp: &str,
    at: i64,
) -> Result<usize, TableError> {
    let changed: Vec<bool> = stream::iter(comments.collect::<Vec<_>>())
        .map(|key| apply_one(table, key, update.clone(), stamp, at))
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await?;
    Ok(changed.into_iter().filter(|c| *c).count())
}

async fn apply_one(
    table: &dyn Table,
    key: Key,
    update: Update,
    stamp: &str,
    at: i64,
) -> Result<bool, TableError> {
    update_if_older(table, &key, update, stamp, at).await
}
