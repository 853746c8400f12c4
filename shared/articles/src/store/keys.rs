//! Keys of the article items (see docs/data-model.md).

use blog_core::{codes::Coded, ports::table::Key};

use crate::model::Status;

/// Partition of one article.
pub fn partition(id: u64) -> String {
    format!("ARTICLE#{id}")
}

/// Head item.
pub fn head(id: u64) -> Key {
    Key::new(partition(id), HEAD)
}

/// Body item.
pub fn body(id: u64) -> Key {
    Key::new(partition(id), BODY)
}

/// Sort key of the head.
pub const HEAD: &str = "A#HEAD";
/// Sort key of the body.
pub const BODY: &str = "A#BODY";
/// Sort key of the category link.
pub const CATEGORY_LINK: &str = "A#CAT";

/// Sort key of the author link.
pub const AUTHOR_LINK: &str = "A#AUTHOR";

/// Sort key of the schedule of a scheduled draft (in gsi3 partition [`SCHEDULED`]).
pub const SCHEDULE: &str = "A#SCHEDULE";

/// Sort key of the item naming an article's live preview link (the digest of its token).
pub const PREVIEW: &str = "A#PREVIEW";

/// The item naming article `id`'s live preview link.
pub fn live_preview(id: u64) -> Key {
    Key::new(partition(id), PREVIEW)
}

/// A preview link, by the SHA-256 digest of its token (hex).
pub fn preview_link(digest: &str) -> Key {
    Key::new(format!("PREVIEW#{digest}"), "PREVIEW")
}

/// Sort key of a tag link.
pub fn tag_link(tag_id: u64) -> String {
    format!("A#TAG#{tag_id:016}")
}

/// The statistics item: per-status counts of non-deleted articles.
pub fn stats() -> Key {
    Key::new("STATS", "ARTICLES")
}

/// gsi1 partition of the public listing (heads of published articles).
pub const PUBLISHED: &str = "PUB";

/// gsi3 partition of the scheduled drafts' schedule items, sorted by `<scheduledAt>#<id16>`.
pub const SCHEDULED: &str = "SCHEDULED";

/// Sort key of the summary of the revision that kept `version`.
pub fn revision(version: i64) -> String {
    format!("{REVISION_PREFIX}{version:016}")
}

/// Sort key of the content of the revision that kept `version`.
pub fn revision_content(version: i64) -> String {
    format!("A#REVBODY#{version:016}")
}

/// What every revision summary's sort key starts with (their content's keys do not).
pub const REVISION_PREFIX: &str = "A#REV#";

/// gsi1 partition of a category's published articles.
pub fn published_in_category(category_id: u64) -> String {
    blog_taxonomy::category_listing(category_id)
}

/// gsi1 partition of a tag's published articles.
pub fn published_with_tag(tag_id: u64) -> String {
    blog_taxonomy::tag_listing(tag_id)
}

/// gsi3 partition of the administration list of one status (heads sorted by id).
pub fn admin(status: Status) -> String {
    format!("ADMIN#{}", status.code())
}

/// gsi2 partition of every non-deleted article carrying a category.
pub fn category_links(category_id: u64) -> String {
    format!("CATLINK#{category_id}")
}

/// gsi2 partition of every non-deleted article carrying a tag.
pub fn tag_links(tag_id: u64) -> String {
    format!("TAGLINK#{tag_id}")
}

/// gsi2 partition of every non-deleted article of an author (for renames).
pub fn author_links(user_id: u64) -> String {
    format!("AUTHOR#{user_id}")
}
