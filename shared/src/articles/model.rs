//! Article records (head and body), statuses, and the shapes the API answers with.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    codes::{self, Coded},
    http::docs::{api_time, api_time_or_null, id_string, id_string_or_empty},
    taxonomy::TagLabel,
};

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
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

/// The attributes of a head that are only ever ADDed.
pub const COUNTERS: [&str; 3] = ["viewCount", "likeCount", "commentCount"];

impl ArticleHead {
    /// Whether it is PUBLISHED and not deleted (what the public lists and counters count).
    pub fn is_listed(&self) -> bool {
        !self.is_deleted && self.status == Status::Published
    }

    /// Sets the author card read from the account at `stamp` (epoch milliseconds).
    pub fn set_author(&mut self, card: crate::users::principal::AuthorCard, stamp: i64) {
        (self.author_name, self.author_avatar) = (card.name, card.avatar);
        self.author_renamed_at = stamp;
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

    /// The list item of the API.
    pub fn list_item(&self) -> ListItem {
        ListItem {
            id: self.id.to_string(),
            title: self.title.clone(),
            summary: self.summary.clone(),
            cover_image: self.cover_image.clone(),
            author_id: self.author_id.to_string(),
            category_id: self.category_id.map(|c| c.to_string()).unwrap_or_default(),
            category_name: self.category_name.clone(),
            tags: self.tags.clone(),
            publish_time: self.publish_time.clone(),
            is_top: self.is_top.into(),
            status: self.status.code(),
            author_name: self.author_name.clone(),
            view_count: self.view_count.max(0),
            like_count: self.like_count.max(0),
            comment_count: self.comment_count.max(0),
        }
    }
}

/// A related-article item (spec 2.3).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = RelatedArticle)]
pub struct RelatedItem {
    /// Id.
    #[schema(schema_with = id_string)]
    id: String,
    /// Title, plain text (show it as text, never as HTML).
    title: String,
    /// Summary, plain text (show it as text, never as HTML).
    summary: String,
    /// Cover image URL or absolute path; empty when none.
    cover_image: String,
    /// First publication.
    #[schema(schema_with = api_time_or_null, required = true)]
    publish_time: Option<String>,
    /// The author's nickname, else username.
    author_name: String,
    /// Views counted (at most a sweep interval, a minute, behind).
    #[schema(minimum = 0)]
    view_count: i64,
    /// Likes.
    #[schema(minimum = 0)]
    like_count: i64,
    /// Approved, not deleted comments.
    #[schema(minimum = 0)]
    comment_count: i64,
}

impl ArticleHead {
    /// The related-article item of the API.
    pub fn related_item(&self) -> RelatedItem {
        RelatedItem {
            id: self.id.to_string(),
            title: self.title.clone(),
            summary: self.summary.clone(),
            cover_image: self.cover_image.clone(),
            publish_time: self.publish_time.clone(),
            author_name: self.author_name.clone(),
            view_count: self.view_count.max(0),
            like_count: self.like_count.max(0),
            comment_count: self.comment_count.max(0),
        }
    }
}

/// The large part of an article (`ARTICLE#<id>`/`A#BODY`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticleBody {
    /// Markdown as written.
    pub content: String,
    /// Sanitised HTML rendering.
    pub content_html: String,
    /// Table of contents as a JSON string.
    pub toc_json: String,
}

/// A list item (spec 2.3) with the decided extras.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticleListItem)]
pub struct ListItem {
    /// Id.
    #[schema(schema_with = id_string)]
    id: String,
    /// Title, 1-200 characters of plain text (show it as text, never as HTML).
    title: String,
    /// Summary, given or derived from the content: plain text (show it as text, never as HTML).
    summary: String,
    /// Cover image URL or absolute path; empty when none.
    cover_image: String,
    /// The administrator who created it.
    #[schema(schema_with = id_string)]
    author_id: String,
    /// Category; empty when none.
    #[schema(schema_with = id_string_or_empty)]
    category_id: String,
    /// The category's name; `null` when none.
    #[schema(required = true)]
    category_name: Option<String>,
    /// Tags in the order given.
    tags: Vec<TagRef>,
    /// First publication; `null` only for a never-published draft (administration views).
    #[schema(schema_with = api_time_or_null, required = true)]
    publish_time: Option<String>,
    /// Pinned: 0 or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_top: i64,
    /// 0 DRAFT, 1 PUBLISHED, 2 ARCHIVED.
    #[schema(minimum = 0, maximum = 2)]
    status: i64,
    /// The author's nickname, else username.
    author_name: String,
    /// Views counted (at most a sweep interval, a minute, behind).
    #[schema(minimum = 0)]
    view_count: i64,
    /// Likes.
    #[schema(minimum = 0)]
    like_count: i64,
    /// Approved, not deleted comments.
    #[schema(minimum = 0)]
    comment_count: i64,
}

/// The article detail (spec 2.3) with the decided extras.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ArticleDetail)]
pub struct Detail {
    #[serde(flatten)]
    item: ListItem,
    /// Markdown as written.
    content: String,
    /// The sanitised HTML rendering of `content`: the only field meant to be inserted as HTML.
    /// Every `id` in it starts with `user-content-`.
    content_html: String,
    /// 0 or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_featured: i64,
    /// 0 or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_comment_disabled: i64,
    /// A JSON array of headings `{level, title, id}`, as a string: `title` is plain text (show
    /// it as text, never as HTML), `id` the heading's `id` in `contentHtml` (`user-content-...`).
    toc_json: String,
    /// Creation.
    #[schema(schema_with = api_time)]
    create_time: String,
    /// Last change.
    #[schema(schema_with = api_time)]
    update_time: String,
    /// Rises by 1 on every update.
    #[schema(minimum = 1)]
    version: i64,
    /// The author's avatar URL; empty when none.
    author_avatar: String,
}

impl Detail {
    /// A detail from the two parts (the body's texts are moved, not copied).
    pub fn new(head: &ArticleHead, body: ArticleBody) -> Self {
        Detail {
            item: head.list_item(),
            content: body.content,
            content_html: body.content_html,
            is_featured: head.is_featured.into(),
            is_comment_disabled: head.is_comment_disabled.into(),
            toc_json: body.toc_json,
            create_time: head.create_time.clone(),
            update_time: head.update_time.clone(),
            version: head.version,
            author_avatar: head.author_avatar.clone(),
        }
    }
}

/// A page of results (spec 2.4), with `current` when the caller used that alias.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    /// Items of the page.
    pub records: Vec<T>,
    /// Items across all pages.
    pub total: u64,
    /// Page number, from 1.
    #[schema(minimum = 1)]
    pub page: u64,
    /// Page size.
    #[schema(minimum = 1, maximum = 100)]
    pub size: u64,
    /// Number of pages.
    pub pages: u64,
    /// Same as `page`, present when requested as `current`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = u64, minimum = 1)]
    pub current: Option<u64>,
}

impl<T> Page<T> {
    /// A page with its derived `pages`.
    pub fn new(records: Vec<T>, total: u64, page: u64, size: u64, current: bool) -> Self {
        Page {
            records,
            total,
            page,
            size,
            pages: total.div_ceil(size),
            current: current.then_some(page),
        }
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
