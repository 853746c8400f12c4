//! Keys of the comment, like and report items (docs/data-model.md).

use crate::ports::table::Key;

use super::model::CommentStatus;

/// Partition of an article's comments.
pub fn comments(article_id: u64) -> String {
    format!("COMMENTS#{article_id}")
}

/// A comment.
pub fn comment(article_id: u64, id: u64) -> Key {
    Key::new(comments(article_id), format!("C#{id:016}"))
}

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
