//! A comment's thread: what its ancestors let others see, and the counts a status change
//! moves. A PENDING or REJECTED comment hides its whole subtree from everyone but its author
//! and administrators: nothing under it is shown to others or counted in `commentCount`
//! (docs/decisions.md, "Comments under a hidden comment"). So a change of one comment's status
//! moves the article's count by the subtree it shows or hides, computed from the thread as
//! read; every such change, and every reply, ADDs the root's `threadRev`, and a change is
//! conditioned on the revision it read, so concurrent changes of one thread count once.

use std::collections::HashMap;

use blog_articles::{self as articles};
use blog_core::ports::table::{n, s, Condition, Table, TableError, Update, Write};

use crate::{
    keys,
    model::{CommentStatus, StoredComment},
    repo,
    roots::{self, RootEntry},
};

/// The attribute of a root that every counted change of its thread ADDs.
pub const REV: &str = "threadRev";

/// The ancestors of `comment`, its parent first (one GetItem per level, at most four).
pub async fn ancestors(
    table: &dyn Table,
    comment: &StoredComment,
) -> Result<Vec<StoredComment>, TableError> {
    let mut found = Vec::new();
    let mut next = comment.parent_id;
    while let Some(id) = next {
        match repo::get_in(table, comment.article_id, comment.root_id, id).await? {
            Some(parent) => {
                next = parent.parent_id;
                found.push(parent);
            }
            None => break,
        }
    }
    Ok(found)
}

/// Whether `comment` is shown to `viewer` (`None`: anonymous): it is visible to them, and no
/// ancestor they may not see hides it. Reads the ancestors only when that can matter (a reply,
/// APPROVED, read by someone who is neither its author nor an administrator).
pub async fn shown_to(
    table: &dyn Table,
    comment: &StoredComment,
    viewer: Option<(u64, bool)>,
) -> Result<bool, TableError> {
    if !comment.visible_to(viewer) {
        return Ok(false);
    }
    let privileged = viewer.is_some_and(|(id, admin)| admin || id == comment.user_id);
    if comment.parent_id.is_none() || privileged {
        return Ok(true);
    }
    let above = ancestors(table, comment).await?;
    Ok(above.iter().all(|a| !a.status.hides_replies() || a.visible_to(viewer)))
}

/// The condition that the root's revision is still `rev` (absent when 0).
fn rev_is(rev: i64) -> Condition {
    if rev == 0 {
        Condition::LacksAttribute(REV.into())
    } else {
        Condition::equals(REV, n(rev))
    }
}

/// One thread as read: its comments by id.
pub struct Thread {
    comments: HashMap<u64, StoredComment>,
}

impl Thread {
    /// The thread of `comment` (one Query of its key range).
    pub async fn of(table: &dyn Table, comment: &StoredComment) -> Result<Thread, TableError> {
        let comments = repo::of_thread(table, comment.article_id, comment.root_id).await?;
        Ok(Thread::from_comments(comments))
    }

    /// The thread made of `comments` (all of one root's).
    pub fn from_comments(comments: impl IntoIterator<Item = StoredComment>) -> Thread {
        Thread { comments: comments.into_iter().map(|c| (c.id, c)).collect() }
    }

    /// The root entry that describes this thread as it is, when its root is in it.
    pub fn entry(&self, root_id: u64) -> Option<RootEntry> {
        let root = self.comments.get(&root_id)?;
        let kept = self
            .comments
            .values()
            .filter(|c| c.id != root_id && c.status != CommentStatus::Deleted)
            .count() as i64;
        let shown = self.counted((root_id, root.status));
        Some(RootEntry { root_id, user_id: root.user_id, status: root.status, shown, kept })
    }

    /// `comment` as read with its thread, when its status is still the one it had.
    pub fn still(&self, comment: &StoredComment) -> Option<&StoredComment> {
        self.comments.get(&comment.id).filter(|c| c.status == comment.status)
    }

    /// Comments counted in `commentCount` when `changed` has the given status: APPROVED, under
    /// no PENDING or REJECTED ancestor.
    fn counted(&self, changed: (u64, CommentStatus)) -> i64 {
        let status = |c: &StoredComment| if c.id == changed.0 { changed.1 } else { c.status };
        let shown = |comment: &StoredComment| {
            let mut next = comment.parent_id;
            while let Some(parent) = next.and_then(|id| self.comments.get(&id)) {
                if status(parent).hides_replies() {
                    return false;
                }
                next = parent.parent_id;
            }
            true
        };
        self.comments.values().filter(|c| status(c) == CommentStatus::Approved && shown(c)).count()
            as i64
    }

    /// The writes that move `comment` (as read with the thread) to `to`, with `extra` changes
    /// of the comment, and the counts it moves: the article's `commentCount` by the comments it
    /// shows or hides, its parent's `replyCount` (APPROVED direct replies) by itself, and the
    /// thread's root entry likewise. The comment's write comes first, conditioned on its
    /// status; the root's revision, on the one read.
    pub fn status_change(
        &self,
        comment: &StoredComment,
        to: CommentStatus,
        extra: Update,
    ) -> Vec<Write> {
        let root = self.comments.get(&comment.root_id);
        let rev = root.map_or(0, |r| r.thread_rev);
        let mut update = extra
            .set("status", s(to.name()))
            // The sort key too, and no gsi1 keys: a comment written before gsi3 moves there.
            .set("gsi3pk", s(keys::by_status(to)))
            .set("gsi3sk", s(crate::repo::status_order(comment)))
            .remove("gsi1pk")
            .remove("gsi1sk")
            .set("updateTime", s(blog_core::time::now_string()));
        let mut condition = Condition::equals("status", s(comment.status.name()));
        let is_root = comment.parent_id.is_none();
        if is_root {
            update = update.add(REV, 1);
            condition = Condition::All(vec![condition, rev_is(rev)]);
        }
        let mut writes =
            vec![Write::Update { key: comment.key(), update, condition: Some(condition) }];
        let replies = i64::from(to == CommentStatus::Approved)
            - i64::from(comment.status == CommentStatus::Approved);
        if !is_root {
            let mut root_update = Update::new().add(REV, 1);
            if replies != 0 && comment.parent_id == Some(comment.root_id) {
                root_update = root_update.add("replyCount", replies);
            }
            writes.push(Write::Update {
                key: keys::comment(comment.article_id, comment.root_id, comment.root_id),
                update: root_update,
                condition: Some(Condition::All(vec![Condition::Exists, rev_is(rev)])),
            });
        }
        let counted = self.counted((comment.id, to)) - self.counted((comment.id, comment.status));
        if counted != 0 {
            writes.push(articles::counter_add(
                comment.article_id,
                articles::COMMENT_COUNT,
                counted,
            ));
        }
        match comment.parent_id {
            Some(parent) if replies != 0 && parent != comment.root_id => {
                writes.push(Write::Update {
                    key: keys::comment(comment.article_id, comment.root_id, parent),
                    update: Update::new().add("replyCount", replies),
                    condition: Some(Condition::Exists),
                });
            }
            _ => {}
        }
        let deleted = |status: CommentStatus| i64::from(status == CommentStatus::Deleted);
        let kept = if is_root { 0 } else { deleted(comment.status) - deleted(to) };
        let root_status = is_root.then_some(to);
        let entry = roots::moved(comment.article_id, comment.root_id, counted, kept, root_status);
        writes.extend(entry);
        writes
    }
}
