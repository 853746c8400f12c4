//! Pages of the tree: roots oldest first, `size` of them a page, each with its subtree, cut so
//! that every answer stays bounded whatever the number of comments (docs/decisions.md, "The
//! comment tree is paged by roots").
//!
//! A page's replies share a budget of [`REPLY_BUDGET`] bytes of JSON, divided among its
//! threads max-min fairly: a thread that needs less than an equal share keeps all of its
//! replies and leaves the rest to the others, and a thread that would pass its share keeps its
//! replies in reading order (depth first, oldest first) up to it. Pages of ordinary threads
//! are whole; a flood of replies under one root is cut, while the page's other threads stay
//! whole.

use axum::http::{header, HeaderMap, HeaderName, HeaderValue};

use blog_core::http::ApiError;

use crate::{envelope::CommentError, model::CommentNode, BASE};

/// Roots of a page when `size` is not given.
pub const DEFAULT_SIZE: u64 = 50;
/// Most roots a page holds.
pub const MAX_SIZE: u64 = 100;
/// Bytes of replies (their JSON) a page holds at most, its threads together.
pub const REPLY_BUDGET: usize = 1 << 20;

/// The header counting the roots the caller sees.
pub const TOTAL_COUNT: HeaderName = HeaderName::from_static("x-total-count");

/// Which page of roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreePage {
    /// From 1.
    pub page: u64,
    /// Roots per page, 1-100.
    pub size: u64,
}

fn number(name: &str, raw: Option<&str>, max: u64, default: u64) -> Result<u64, CommentError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(default),
        Some(raw) => raw.parse::<u64>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            CommentError::invalid(format!("{name} must be an integer from 1 to {max}"))
        }),
    }
}

impl TreePage {
    /// `page` (from 1, default 1) and `size` (1-100, default 50); PARAM_ERROR naming the field.
    pub fn parse(page: Option<&str>, size: Option<&str>) -> Result<Self, CommentError> {
        Ok(TreePage {
            page: number("page", page, u64::MAX, 1)?,
            size: number("size", size, MAX_SIZE, DEFAULT_SIZE)?,
        })
    }

    /// Where this page's roots are among the `total` roots the caller sees.
    pub fn range(&self, total: usize) -> std::ops::Range<usize> {
        let skip = self.page.saturating_sub(1).saturating_mul(self.size);
        let start = usize::try_from(skip).unwrap_or(usize::MAX).min(total);
        start..start.saturating_add(self.size as usize).min(total)
    }

    /// The answer of this page: its `roots` (the page's, with what was read of their threads),
    /// their replies cut to the budget, and its headers: `X-Total-Count` (`total`, the roots
    /// the caller sees), and `Link` to the next page when roots follow.
    pub fn answer(
        &self,
        total: u64,
        mut roots: Vec<CommentNode>,
        article_id: u64,
    ) -> (HeaderMap, Vec<CommentNode>) {
        fit(&mut roots, REPLY_BUDGET);
        let mut headers = HeaderMap::new();
        headers.insert(TOTAL_COUNT, HeaderValue::from(total));
        let skip = self.page.saturating_sub(1).saturating_mul(self.size);
        if skip.saturating_add(self.size) < total {
            let next = format!(
                "<{BASE}/tree?targetType=ARTICLE&targetId={article_id}&page={}&size={}>; \
                 rel=\"next\"",
                self.page + 1,
                self.size
            );
            if let Ok(value) = HeaderValue::from_str(&next) {
                headers.insert(header::LINK, value);
            }
        }
        (headers, roots)
    }
}

/// Bytes of one comment's JSON, without its replies.
fn own_size(node: &CommentNode) -> usize {
    serde_json::to_vec(&node.comment).map_or(0, |bytes| bytes.len()) + r#","children":[]"#.len()
}

/// Bytes of a node's replies, all levels.
fn replies_size(node: &CommentNode) -> usize {
    node.children.iter().map(|child| own_size(child) + replies_size(child)).sum()
}

/// Cuts the replies of `threads` to `budget` bytes, shared max-min fairly.
fn fit(threads: &mut [CommentNode], budget: usize) {
    let needs: Vec<usize> = threads.iter().map(replies_size).collect();
    let mut order: Vec<usize> = (0..threads.len()).collect();
    order.sort_by_key(|i| needs[*i]);
    let mut left = budget;
    for (done, i) in order.iter().enumerate() {
        let share = left / (threads.len() - done);
        let granted = needs[*i].min(share);
        left -= granted;
        if granted < needs[*i] {
            let mut room = granted;
            keep_within(&mut threads[*i], &mut room);
        }
    }
}

/// Keeps the replies of `node`, in reading order, while they fit in `room`; returns false once
/// one did not fit (nothing after it is kept).
fn keep_within(node: &mut CommentNode, room: &mut usize) -> bool {
    let children = std::mem::take(&mut node.children);
    for mut child in children {
        let size = own_size(&child);
        if size > *room {
            return false;
        }
        *room -= size;
        let whole = keep_within(&mut child, room);
        node.children.push(child);
        if !whole {
            return false;
        }
    }
    true
}
