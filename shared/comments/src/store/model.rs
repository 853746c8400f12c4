//! Comment records (`COMMENTS#<articleId>` / `C#<id16>`) and the comment object the API
//! answers with (comments-and-stats.md, "The comment object").

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::http::docs::{api_time, id_string, id_string_or_null};

/// Where a comment stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommentStatus {
    /// Waiting for an administrator (moderation on).
    Pending,
    /// Visible to everyone.
    Approved,
    /// Refused by an administrator: seen by its author and administrators only.
    Rejected,
    /// Deleted by its author or an administrator.
    Deleted,
}

impl CommentStatus {
    /// Every status.
    pub const ALL: [CommentStatus; 4] =
        [Self::Pending, Self::Approved, Self::Rejected, Self::Deleted];

    /// The stored and served name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
            Self::Deleted => "DELETED",
        }
    }

    /// Whether it hides its replies from everyone but its author and administrators (PENDING,
    /// REJECTED): nothing under it is shown to others or counted (docs/decisions.md).
    pub fn hides_replies(self) -> bool {
        matches!(self, Self::Pending | Self::Rejected)
    }

    /// The status named `raw` (any case).
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(raw.trim()))
    }
}

/// A stored comment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredComment {
    /// Id.
    pub id: u64,
    /// The article it is on.
    pub article_id: u64,
    /// The comment it answers (none for a root).
    #[serde(default)]
    pub parent_id: Option<u64>,
    /// The root of its thread (itself for a root).
    pub root_id: u64,
    /// 0 for a root, at most 4.
    pub depth: u8,
    /// Author.
    pub user_id: u64,
    /// Author's nickname, else user name, when written.
    pub user_name: String,
    /// Author's avatar URL (may be empty).
    #[serde(default)]
    pub user_avatar: String,
    /// When `user_name` and `user_avatar` were read from the account, or the rename that
    /// wrote them happened (epoch milliseconds): a rename rewrites them only when newer
    /// (absent on comments written before it existed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub user_renamed_at: i64,
    /// The parent's author.
    #[serde(default)]
    pub reply_to_user_id: Option<u64>,
    /// The parent's author's name, as the parent showed it when the reply was written or the
    /// parent's author was last renamed (the tree shows the parent's own instead).
    #[serde(default)]
    pub reply_to_user_name: Option<String>,
    /// The stamp of `reply_to_user_name`: the parent's `user_renamed_at` when copied, or the
    /// rename that wrote it (epoch milliseconds; absent when unknown).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reply_to_renamed_at: i64,
    /// Markdown as written.
    pub content: String,
    /// Rendered and sanitised.
    pub content_html: String,
    /// Status.
    pub status: CommentStatus,
    /// Readers' likes (only ever ADDed).
    #[serde(default)]
    pub like_count: i64,
    /// APPROVED direct replies, not deleted (only ever ADDed).
    #[serde(default)]
    pub reply_count: i64,
    /// Edited since written.
    #[serde(default)]
    pub is_edited: bool,
    /// On a root: ADDed by every write that moves the counts of its thread (a reply, a status
    /// change), so that a change counted from the thread as read is conditioned on it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thread_rev: i64,
    /// Creation.
    pub create_time: String,
    /// Last change.
    pub update_time: String,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

impl StoredComment {
    /// Its key: in its article's partition, under its thread.
    pub fn key(&self) -> blog_core::ports::table::Key {
        crate::keys::comment(self.article_id, self.root_id, self.id)
    }

    /// Whether `viewer` (`None`: anonymous) may see it: APPROVED to anyone, PENDING and
    /// REJECTED to its author and administrators, DELETED to nobody (bar its placeholder).
    pub fn visible_to(&self, viewer: Option<(u64, bool)>) -> bool {
        match self.status {
            CommentStatus::Approved => true,
            CommentStatus::Pending | CommentStatus::Rejected => {
                viewer.is_some_and(|(id, admin)| admin || id == self.user_id)
            }
            CommentStatus::Deleted => false,
        }
    }

    /// The comment object as administrators see it: a deleted one keeps its author.
    pub fn admin_view(&self) -> Comment {
        let mut view = self.view();
        if self.status == CommentStatus::Deleted {
            view.user_id = Some(self.user_id.to_string());
            view.user_name = self.user_name.clone();
            view.user_avatar = Some(self.user_avatar.clone());
        }
        view
    }

    /// The comment object; a deleted comment is its placeholder (no content, no author:
    /// `userName` the empty string, as clients read it as a string).
    pub fn view(&self) -> Comment {
        let deleted = self.status == CommentStatus::Deleted;
        let text = |value: &str| if deleted { String::new() } else { value.to_string() };
        Comment {
            id: self.id.to_string(),
            target_type: "ARTICLE",
            target_id: self.article_id.to_string(),
            parent_id: self.parent_id.map(|id| id.to_string()),
            root_id: self.root_id.to_string(),
            depth: self.depth,
            content: text(&self.content),
            content_html: text(&self.content_html),
            user_id: (!deleted).then(|| self.user_id.to_string()),
            user_name: text(&self.user_name),
            user_avatar: (!deleted).then(|| self.user_avatar.clone()),
            reply_to_user_id: self.reply_to_user_id.map(|id| id.to_string()),
            reply_to_user_name: self.reply_to_user_name.clone(),
            status: self.status,
            like_count: self.like_count,
            reply_count: self.reply_count,
            is_edited: self.is_edited,
            create_time: self.create_time.clone(),
            update_time: self.update_time.clone(),
        }
    }
}

/// A comment as the API answers it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    /// Id.
    #[schema(schema_with = id_string)]
    pub id: String,
    /// Always `ARTICLE`.
    #[schema(value_type = String, example = "ARTICLE")]
    pub target_type: &'static str,
    /// The article's id.
    #[schema(schema_with = id_string)]
    pub target_id: String,
    /// The comment it answers; `null` for a root.
    #[schema(schema_with = id_string_or_null)]
    pub parent_id: Option<String>,
    /// The root of its thread (itself for a root).
    #[schema(schema_with = id_string)]
    pub root_id: String,
    /// 0 for a root, at most 4.
    #[schema(minimum = 0, maximum = 4)]
    pub depth: u8,
    /// The Markdown as written (empty for a deleted placeholder).
    pub content: String,
    /// Rendered and sanitised (empty for a deleted placeholder).
    pub content_html: String,
    /// Author (`null` for a deleted placeholder).
    #[schema(schema_with = id_string_or_null)]
    pub user_id: Option<String>,
    /// Author's nickname, else user name (the empty string for a deleted placeholder).
    pub user_name: String,
    /// Author's avatar URL (`null` for a deleted placeholder).
    pub user_avatar: Option<String>,
    /// The parent's author (replies).
    #[schema(schema_with = id_string_or_null)]
    pub reply_to_user_id: Option<String>,
    /// The parent's author's name (replies).
    pub reply_to_user_name: Option<String>,
    /// Status.
    pub status: CommentStatus,
    /// Readers' likes.
    pub like_count: i64,
    /// APPROVED direct replies.
    pub reply_count: i64,
    /// Edited since written.
    pub is_edited: bool,
    /// Creation.
    #[schema(schema_with = api_time)]
    pub create_time: String,
    /// Last change.
    #[schema(schema_with = api_time)]
    pub update_time: String,
}

/// A comment of the tree with its replies.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CommentNode {
    /// The comment.
    #[serde(flatten)]
    pub comment: Comment,
    /// Its replies the caller sees, oldest first.
    #[schema(no_recursion)]
    pub children: Vec<CommentNode>,
}
