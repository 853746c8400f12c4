//! Article records (head and body) and statuses; the shapes the API answers with are in
//! [`crate::response`].

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::{
    codes::{self, Coded},
    http::docs::id_string,
};
use blog_taxonomy::TagLabel;

/// Article status (spec 3.1), stored and served as its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0.
    Draft,
    /// 1.
    Published,
    /// 2.
    Archived,
}

impl Coded for Status {
    const WHAT: &'static str = "article status";

    fn code(self) -> i64 {
        match self {
            Status::Draft => 0,
            Status::Published => 1,
            Status::Archived => 2,
        }
    }

    fn from_code(code: i64) -> Option<Status> {
        Status::ALL.into_iter().find(|status| status.code() == code)
    }
}

impl Status {
    /// Every status.
    pub const ALL: [Status; 3] = [Status::Draft, Status::Published, Status::Archived];

    /// Name of the per-status counter attribute.
    pub fn counter(self) -> &'static str {
        match self {
            Status::Draft => "drafts",
            Status::Published => "published",
            Status::Archived => "archived",
        }
    }
}

/// A tag as carried by an article (denormalised so that a detail is one read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = ArticleTag)]
pub struct TagRef {
    /// Tag id (a string, as in the tags API).
    #[schema(schema_with = id_string)]
    pub id: String,
    /// Name.
    pub name: String,
    /// Slug.
    pub slug: String,
    /// Colour `#RRGGBB`.
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    pub color: String,
}

impl From<&TagLabel> for TagRef {
    fn from(tag: &TagLabel) -> Self {
        Self {
            id: tag.id.to_string(),
            name: tag.name.clone(),
            slug: tag.slug.clone(),
            color: tag.color.clone(),
        }
    }
}

/// The small part of an article: everything a list shows, plus state (`ARTICLE#<id>`/`A#HEAD`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticleHead {
    /// Id.
    pub id: u64,
    /// Title (1-200 characters).
    pub title: String,
    /// Summary (given or derived, at most 500 characters).
    pub summary: String,
    /// Cover image URL (empty when none).
    #[serde(default)]
    pub cover_image: String,
    /// Author (the administrator who created it).
    pub author_id: u64,
    /// Category, when any.
    #[serde(default)]
    pub category_id: Option<u64>,
    /// The category's name when the article was last written or the category renamed.
    #[serde(default)]
    pub category_name: Option<String>,
    /// Tags, in the order given.
    #[serde(default)]
    pub tags: Vec<TagRef>,
    /// Stored as 0 draft, 1 published, 2 archived.
    #[serde(with = "codes::code")]
    pub status: Status,
    /// Pinned (stored as 0 or 1).
    #[serde(with = "codes::flag")]
    pub is_top: bool,
    /// Featured (stored as 0 or 1).
    #[serde(with = "codes::flag")]
    pub is_featured: bool,
    /// Comments disabled (stored as 0 or 1).
    #[serde(with = "codes::flag")]
    pub is_comment_disabled: bool,
    /// Rises by 1 on every update.
    pub version: i64,
    /// First publication (kept when archived and unarchived).
    #[serde(default)]
    pub publish_time: Option<String>,
    /// Creation.
    pub create_time: String,
    /// Last change.
    pub update_time: String,
    /// Logically deleted (stored as 0 or 1; absent reads as 0).
    #[serde(default, with = "codes::flag")]
    pub is_deleted: bool,
    /// The author's name (nickname, else username), written with the article and rewritten
    /// when the author renames; empty on heads written before it existed until then.
    #[serde(default)]
    pub author_name: String,
    /// The author's avatar URL (empty when none), kept like `author_name`.
    #[serde(default)]
    pub author_avatar: String,
    /// When the author card was read from the account (epoch milliseconds): a rename's event
    /// rewrites the card only when it is newer (absent on heads written before cards).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub author_renamed_at: i64,
    /// Views moved from the pending views by the sweep. Like the other counters it is only
    /// ever ADDed (comments, likes, the views sweep), never written by the administration, so
    /// none of its writes overwrites them; absent reads as 0.
    #[serde(default)]
    pub view_count: i64,
    /// Likes of the article (ADDed only).
    #[serde(default)]
    pub like_count: i64,
    /// Approved, not deleted comments (ADDed only).
    #[serde(default)]
    pub comment_count: i64,
    /// When a draft is to be published (UTC, `YYYY-MM-DDTHH:MM:SS`); absent when it is not
    /// scheduled. A scheduled draft has a schedule item in the gsi3 partition `SCHEDULED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_at: Option<String>,
    /// Revisions of earlier versions kept (at most [`crate::revisions::MAX_REVISIONS`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revision_count: i64,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

/// The attributes of a head that are only ever ADDed.
pub const COUNTERS: [&str; 3] = ["viewCount", "likeCount", "commentCount"];

impl ArticleHead {
    /// Article `id` titled `title` by author `author_id`, published, created and last changed
    /// at `at`, at version 1, of no category or tag, with no summary, cover or counts: the
    /// start of a published article that tools and tests vary.
    pub fn published(id: u64, title: &str, author_id: u64, at: &str) -> Self {
        ArticleHead {
            id,
            title: title.into(),
            summary: String::new(),
            cover_image: String::new(),
            author_id,
            category_id: None,
            category_name: None,
            tags: Vec::new(),
            status: Status::Published,
            is_top: false,
            is_featured: false,
            is_comment_disabled: false,
            version: 1,
            publish_time: Some(at.into()),
            create_time: at.into(),
            update_time: at.into(),
            is_deleted: false,
            author_name: String::new(),
            author_avatar: String::new(),
            author_renamed_at: 0,
            view_count: 0,
            like_count: 0,
            comment_count: 0,
            scheduled_at: None,
            revision_count: 0,
        }
    }

    /// For tests to vary: [`ArticleHead::published`] by author 1 at 2026-01-01T00:00:00.
    #[cfg(test)]
    pub(crate) fn published_for_tests(id: u64, title: &str) -> Self {
        Self::published(id, title, 1, "2026-01-01T00:00:00")
    }
}

impl ArticleHead {
    /// Whether it is PUBLISHED and not deleted (what the public lists and counters count).
    pub fn is_listed(&self) -> bool {
        !self.is_deleted && self.status == Status::Published
    }

    /// Sets the author card read from the account at `stamp` (epoch milliseconds).
    pub fn set_author(&mut self, card: blog_users::principal::AuthorCard, stamp: i64) {
        (self.author_name, self.author_avatar) = (card.name, card.avatar);
        self.author_renamed_at = stamp;
    }

    /// Whether a schedule of it can fire: a draft, not deleted.
    pub fn is_schedulable(&self) -> bool {
        !self.is_deleted && self.status == Status::Draft
    }

    /// Tag ids in order.
    pub fn tag_ids(&self) -> Vec<u64> {
        self.tags.iter().filter_map(|t| t.id.parse().ok()).collect()
    }

    /// Listing sort key: read descending it is "isTop desc, publishTime desc" (id breaks ties).
    pub fn listing_key(&self) -> String {
        let top = u8::from(self.is_top);
        format!("{top}#{}#{:016}", self.publish_time.as_deref().unwrap_or(""), self.id)
    }
}

/// The large part of an article (`ARTICLE#<id>`/`A#BODY`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticleBody {
    /// Markdown as written.
    pub content: String,
    /// Sanitised HTML rendering.
    pub content_html: String,
    /// Table of contents as a JSON string.
    pub toc_json: String,
    /// Who wrote this version of the content (0 on bodies written before it was kept: the
    /// author).
    #[serde(default, skip_serializing_if = "is_unset")]
    pub edited_by: u64,
    /// That editor's user name then (empty on older bodies: the author's name).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub editor_name: String,
    /// When this version was written (empty on older bodies: the head's `updateTime`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub edited_at: String,
}

fn is_unset(value: &u64) -> bool {
    *value == 0
}

pub use crate::response::{Detail, ListItem, Page, RelatedItem};

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
