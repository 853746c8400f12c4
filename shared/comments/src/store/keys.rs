//! Keys of the comment, like and report items (docs/data-model.md).

use blog_core::ports::table::Key;

use crate::model::CommentStatus;

/// Partition of an article's comments.
pub fn comments(article_id: u64) -> String {
    format!("COMMENTS#{article_id}")
}

/// A comment of the thread under `root_id`: a root is `C#<root16>`, a reply
/// `C#<root16>#<id16>`, so a thread is one key range ([`thread`]) in the order of its roots.
pub fn comment(article_id: u64, root_id: u64, id: u64) -> Key {
    Key::new(comments(article_id), comment_sort(root_id, id))
}

/// The sort key of [`comment`].
pub fn comment_sort(root_id: u64, id: u64) -> String {
    if root_id == id {
        format!("C#{root_id:016}")
    } else {
        format!("C#{root_id:016}#{id:016}")
    }
}

/// The sort-key prefix of every comment of an article.
pub const COMMENT_PREFIX: &str = "C#";

/// The sort-key prefix of the thread under `root_id` (the root and every reply).
pub fn thread(root_id: u64) -> String {
    format!("C#{root_id:016}")
}

/// The sort keys from the thread of `first` to the end of the thread of `last`, inclusive.
pub fn threads_between(first: u64, last: u64) -> (String, String) {
    // `~` sorts after `#`, so the upper end takes every reply of `last` and nothing after.
    (thread(first), format!("{}~", thread(last)))
}

/// The root entry of a thread: what the tree's pages are counted and cut from
/// (`R#<root16>`, in the article's comment partition).
pub fn root_entry(article_id: u64, root_id: u64) -> Key {
    Key::new(comments(article_id), format!("{ROOT_PREFIX}{root_id:016}"))
}

/// The sort-key prefix of the root entries.
pub const ROOT_PREFIX: &str = "R#";

/// Where a comment is: its article, found from its id alone.
pub fn locator(id: u64) -> Key {
    Key::new(format!("COMMENT#{id}"), "COMMENT")
}

/// gsi3 partition of the comments of one status (administration, newest first).
pub fn by_status(status: CommentStatus) -> String {
    format!("CSTATUS#{}", status.name())
}

/// gsi3 partition of a user's comments' locators.
pub fn by_user(user_id: u64) -> String {
    format!("UCOMMENTS#{user_id}")
}

/// A user's like of a comment.
pub fn comment_like(user_id: u64, comment_id: u64) -> Key {
    Key::new(format!("LIKES#{user_id}"), format!("C#{comment_id:016}"))
}

/// A user's like of an article.
pub fn article_like(user_id: u64, article_id: u64) -> Key {
    Key::new(format!("LIKES#{user_id}"), format!("A#{article_id:016}"))
}

/// A user's rate window of one minute (epoch minutes) of one kind of write: comments (kind
/// `""`: the sort key is the minute), edits (`E`), reports (`R`) (`<kind>#<minute>`).
pub fn rate_window(kind: &str, user_id: u64, minute: i64) -> Key {
    let sort = if kind.is_empty() { minute.to_string() } else { format!("{kind}#{minute}") };
    Key::new(format!("CRATE#{user_id}"), sort)
}

/// A report.
pub fn report(id: u64) -> Key {
    Key::new(format!("REPORT#{id}"), "REPORT")
}

/// gsi3 partition of the reports of one status.
pub fn reports_by_status(status: &str) -> String {
    format!("RSTATUS#{status}")
}

/// One user's open report of a comment.
pub fn open_report(user_id: u64, comment_id: u64) -> Key {
    Key::new(format!("REPORTS#{user_id}"), format!("C#{comment_id:016}"))
}
