//! The shapes the API answers articles with: list items, related items, the detail and pages.

use serde::Serialize;
use utoipa::ToSchema;

use blog_core::{
    codes::Coded,
    http::docs::{api_time, api_time_or_null, id_string, id_string_or_empty},
};

use crate::model::{ArticleBody, ArticleHead, TagRef};

impl ArticleHead {
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
            scheduled_at: self.scheduled_at.clone(),
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
    /// First publication; `null` only for a never-published draft (administration views and
    /// preview links).
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
    /// When a scheduled draft will be published (UTC); `null` when it is not scheduled (always
    /// `null` in the public reads, which show no drafts, but for a preview link's).
    #[schema(schema_with = api_time_or_null, required = true)]
    scheduled_at: Option<String>,
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
