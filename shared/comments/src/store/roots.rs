//! Root entries (`COMMENTS#<articleId>` / `R#<root16>`): one small item per thread, saying what
//! the tree needs to count and page its roots without reading the comments: the root's status
//! and author, the comments of the thread everyone sees (`shown`), and its replies that are not
//! deleted (`kept`). They move in the transaction of every change that moves them, as the
//! article's `commentCount` does (docs/data-model.md, "The tree of an article").

use serde::Deserialize;

use blog_core::ports::table::{n, s, Condition, Item, Update, Write};

use crate::{
    keys,
    model::{CommentStatus, StoredComment},
};

/// Comments of the thread that everyone sees: APPROVED, under no PENDING or REJECTED one.
pub const SHOWN: &str = "shown";
/// Replies of the thread that are not DELETED.
pub const KEPT: &str = "kept";

/// A thread as its root entry describes it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootEntry {
    /// The root's id.
    pub root_id: u64,
    /// The root's author.
    pub user_id: u64,
    /// The root's status.
    pub status: CommentStatus,
    /// Comments of the thread everyone sees (the root included when it is one of them).
    #[serde(default)]
    pub shown: i64,
    /// Replies of the thread not DELETED.
    #[serde(default)]
    pub kept: i64,
}

/// Whether a thread is on a viewer's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed {
    /// It is.
    Yes,
    /// It is not.
    No,
    /// Only when one of its replies is shown to the viewer: a deleted root whose only replies
    /// are hidden from others (its thread is read to tell).
    IfTheyShow,
}

impl RootEntry {
    /// The entry of a new root, with the thread's first comment counted when everyone sees it.
    pub fn of_new_root(root: &StoredComment) -> Self {
        RootEntry {
            root_id: root.id,
            user_id: root.user_id,
            status: root.status,
            shown: i64::from(root.status == CommentStatus::Approved),
            kept: 0,
        }
    }

    /// Its item.
    pub fn item(&self, article_id: u64) -> Item {
        let mut item = blog_core::records::key_item(&keys::root_entry(article_id, self.root_id));
        item.insert("rootId".into(), n(self.root_id as i64));
        item.insert("userId".into(), n(self.user_id as i64));
        item.insert("status".into(), s(self.status.name()));
        item.insert(SHOWN.into(), n(self.shown));
        item.insert(KEPT.into(), n(self.kept));
        item
    }

    /// Whether the thread is on the pages of `viewer` (`None`: anonymous; else the caller's
    /// id and whether they administer). Everyone: an APPROVED root, or a DELETED one (its
    /// placeholder) with a reply everyone sees. Its author also: their PENDING or REJECTED
    /// root. An administrator: every root not deleted, and a deleted one with a reply left.
    pub fn listed_for(&self, viewer: Option<(u64, bool)>) -> Listed {
        let yes = |listed: bool| if listed { Listed::Yes } else { Listed::No };
        match (self.status, viewer) {
            (CommentStatus::Approved, _) => Listed::Yes,
            (CommentStatus::Deleted, _) if self.shown > 0 => Listed::Yes,
            (CommentStatus::Deleted, Some((_, true))) => yes(self.kept > 0),
            (CommentStatus::Deleted, Some(_)) if self.kept > 0 => Listed::IfTheyShow,
            (CommentStatus::Deleted, _) => Listed::No,
            (_, Some((id, admin))) => yes(admin || id == self.user_id),
            (_, None) => Listed::No,
        }
    }
}

/// The write that moves a thread's entry by a change: `shown` and `kept` ADDed, the root's
/// new status when the root changed; none when nothing moves. The entry must exist.
pub fn moved(
    article_id: u64,
    root_id: u64,
    shown: i64,
    kept: i64,
    root_status: Option<CommentStatus>,
) -> Option<Write> {
    if shown == 0 && kept == 0 && root_status.is_none() {
        return None;
    }
    let mut update = Update::new();
    if shown != 0 {
        update = update.add(SHOWN, shown);
    }
    if kept != 0 {
        update = update.add(KEPT, kept);
    }
    if let Some(status) = root_status {
        update = update.set("status", s(status.name()));
    }
    Some(Write::Update {
        key: keys::root_entry(article_id, root_id),
        update,
        condition: Some(Condition::Exists),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: CommentStatus, shown: i64, kept: i64) -> RootEntry {
        RootEntry { root_id: 1, user_id: 7, status, shown, kept }
    }

    const ANONYMOUS: Option<(u64, bool)> = None;
    const AUTHOR: Option<(u64, bool)> = Some((7, false));
    const READER: Option<(u64, bool)> = Some((8, false));
    const ADMIN: Option<(u64, bool)> = Some((9, true));

    #[test]
    fn an_approved_root_is_listed_for_everyone() {
        for viewer in [ANONYMOUS, AUTHOR, READER, ADMIN] {
            assert_eq!(entry(CommentStatus::Approved, 1, 0).listed_for(viewer), Listed::Yes);
        }
    }

    #[test]
    fn a_hidden_root_is_listed_for_its_author_and_administrators_only() {
        for status in [CommentStatus::Pending, CommentStatus::Rejected] {
            let hidden = entry(status, 0, 2);
            assert_eq!(hidden.listed_for(ANONYMOUS), Listed::No);
            assert_eq!(hidden.listed_for(READER), Listed::No);
            assert_eq!(hidden.listed_for(AUTHOR), Listed::Yes);
            assert_eq!(hidden.listed_for(ADMIN), Listed::Yes);
        }
    }

    #[test]
    fn a_deleted_root_is_listed_while_a_reply_shows_under_it() {
        assert_eq!(entry(CommentStatus::Deleted, 1, 1).listed_for(ANONYMOUS), Listed::Yes);
        assert_eq!(entry(CommentStatus::Deleted, 0, 0).listed_for(ANONYMOUS), Listed::No);
        assert_eq!(entry(CommentStatus::Deleted, 0, 0).listed_for(ADMIN), Listed::No);
        assert_eq!(entry(CommentStatus::Deleted, 0, 1).listed_for(ANONYMOUS), Listed::No);
        assert_eq!(entry(CommentStatus::Deleted, 0, 1).listed_for(ADMIN), Listed::Yes);
        assert_eq!(entry(CommentStatus::Deleted, 0, 1).listed_for(READER), Listed::IfTheyShow);
    }

    #[test]
    fn a_change_that_moves_nothing_writes_nothing() {
        assert!(moved(1, 2, 0, 0, None).is_none());
        let Some(Write::Update { update, condition, .. }) =
            moved(1, 2, -3, -1, Some(CommentStatus::Deleted))
        else {
            panic!("an update")
        };
        assert_eq!(condition, Some(Condition::Exists));
        assert_eq!(update.add, [(SHOWN.to_string(), -3), (KEPT.to_string(), -1)]);
    }
}
