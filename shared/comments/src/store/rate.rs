//! Per-user rate windows of one minute, one implementation for comments, edits and reports:
//! the window item (`CRATE#<userId>`, expiring by TTL) is read with the other reads of the
//! request, and its write (put when absent, else ADD conditioned on the count being below the
//! limit) joins the request's transaction, so a refused or failed write counts nothing and
//! concurrent writes cannot pass the limit.

use blog_core::{
    ports::table::{n, now_epoch_seconds, Condition, Table, TableError, Update, Write, TTL},
    records,
};

use crate::{
    envelope::{CommentError, CommentFault},
    keys,
};

/// One kind of limited write.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// The window's sort-key prefix (`""` for comments).
    kind: &'static str,
    /// Writes allowed per user and minute.
    pub per_minute: i64,
    /// What is counted, plural, for the error message.
    what: &'static str,
}

/// Comments and replies: 5 a minute.
pub const POSTS: Limit = Limit { kind: "", per_minute: 5, what: "comments" };
/// Edits: 10 a minute.
pub const EDITS: Limit = Limit { kind: "E", per_minute: 10, what: "edits" };
/// Reports: 10 a minute.
pub const REPORTS: Limit = Limit { kind: "R", per_minute: 10, what: "reports" };

/// A user's current window of one limit, as read.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    limit: Limit,
    user_id: u64,
    now: i64,
    count: Option<i64>,
}

impl Window {
    /// Reads `user_id`'s current window of `limit` (one GetItem).
    pub async fn read(table: &dyn Table, limit: Limit, user_id: u64) -> Result<Self, TableError> {
        let now = now_epoch_seconds();
        let key = keys::rate_window(limit.kind, user_id, now.div_euclid(60));
        let item = table.get(&key).await?;
        let count = item.map(|item| records::number(&item, "count").unwrap_or(0));
        Ok(Window { limit, user_id, now, count })
    }

    fn minute(&self) -> i64 {
        self.now.div_euclid(60)
    }

    /// Ok while the window has room, else 429 with the seconds left in it.
    pub fn check(&self) -> Result<(), CommentError> {
        if self.count.is_some_and(|count| count >= self.limit.per_minute) {
            return Err(CommentFault::TooManyRequests {
                retry_after_secs: ((self.minute() + 1) * 60 - self.now).max(1) as u64,
                per_minute: self.limit.per_minute,
                what: self.limit.what,
            }
            .into());
        }
        Ok(())
    }

    /// The write that takes a place in the window (its condition fails when another write
    /// took it meanwhile: read again).
    pub fn write(&self) -> Write {
        let minute = self.minute();
        let key = keys::rate_window(self.limit.kind, self.user_id, minute);
        match self.count {
            None => {
                let mut item = records::key_item(&key);
                item.insert("count".into(), n(1));
                item.insert(TTL.into(), n((minute + 2) * 60));
                Write::Put { item, condition: Some(Condition::NotExists) }
            }
            Some(_) => Write::Update {
                key,
                update: Update::new().add("count", 1),
                condition: Some(Condition::LessThan("count".into(), self.limit.per_minute)),
            },
        }
    }
}
