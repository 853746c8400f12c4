//! What readers' reactions (comments and likes, in the comments feature) read and change of an
//! article: whether it is readable and open for comments, and its counters on the head, only
//! ever ADDed (docs/data-model.md, "Comments, likes and reader statistics").

use blog_core::{
    codes::Coded,
    ports::table::{n, Condition, Table, TableError, Update, Write},
};

use crate::{keys, model::Status, read};

/// Head attribute: APPROVED, not deleted comments.
pub const COMMENT_COUNT: &str = "commentCount";
/// Head attribute: readers' likes.
pub const LIKE_COUNT: &str = "likeCount";

/// A readable article (PUBLISHED or ARCHIVED, not deleted) as reactions see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReactionTarget {
    /// The article id.
    pub id: u64,
    /// `isCommentDisabled`: new comments are refused.
    pub comments_disabled: bool,
    status: Status,
}

/// The article `id` when a reader may see it (one GetItem); `None` for a draft, a deleted or
/// an unknown one.
pub async fn reaction_target(
    table: &dyn Table,
    id: u64,
) -> Result<Option<ReactionTarget>, TableError> {
    let head = read::load_head(table, id).await?;
    Ok(head.filter(|h| !h.is_deleted && h.status != Status::Draft).map(|h| ReactionTarget {
        id,
        comments_disabled: h.is_comment_disabled,
        status: h.status,
    }))
}

/// Adds `delta` to a counter of the head on condition that the article is still as `target`
/// was read (same status, not deleted, and open for comments when `open` is asked), so a
/// transaction holding it fails when the article changed in between.
pub fn counter_while(target: &ReactionTarget, counter: &str, delta: i64, open: bool) -> Write {
    let mut conditions = vec![
        Condition::equals("status", n(target.status.code())),
        Condition::equals("isDeleted", n(0)),
    ];
    if open {
        conditions.push(Condition::equals("isCommentDisabled", n(0)));
    }
    Write::Update {
        key: keys::head(target.id),
        update: Update::new().add(counter, delta),
        condition: Some(Condition::All(conditions)),
    }
}

/// Adds `delta` to a counter of the head of an article that exists, whatever its state (a
/// removed comment or like leaves the count even where the article changed since).
pub fn counter_add(article_id: u64, counter: &str, delta: i64) -> Write {
    Write::Update {
        key: keys::head(article_id),
        update: Update::new().add(counter, delta),
        condition: Some(Condition::Exists),
    }
}
