//! Pages of the administration's lists: the article list's page object (`page` or its alias
//! `current`, `size` 1-100), cut from the items read, newest first.

use serde::Serialize;
use utoipa::ToSchema;

use crate::http::extract::parse_id;

use super::envelope::CommentError;

/// A page of a list.
#[derive(Serialize, ToSchema)]
pub struct Paged<T> {
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

/// The page asked for.
pub struct Paging {
    page: u64,
    size: u64,
    current: bool,
}

fn number(name: &str, raw: Option<&str>, max: u64) -> Result<Option<u64>, CommentError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => match raw.parse::<u64>() {
            Ok(value) if (1..=max).contains(&value) => Ok(Some(value)),
            _ => Err(CommentError::param(format!("{name} must be an integer from 1 to {max}"))),
        },
    }
}

impl Paging {
    /// `page` (or `current`) from 1, `size` 1-100 (default 10).
    pub fn parse(
        page: Option<&str>,
        current: Option<&str>,
        size: Option<&str>,
    ) -> Result<Self, CommentError> {
        let page = number("page", page, 1_000_000)?;
        let current = number("current", current, 1_000_000)?;
        Ok(Paging {
            page: page.or(current).unwrap_or(1),
            size: number("size", size, 100)?.unwrap_or(10),
            current: current.is_some() && page.is_none(),
        })
    }

    /// The page of `items` (every match, in order).
    pub fn cut<T>(&self, items: Vec<T>) -> Paged<T> {
        let total = items.len() as u64;
        let skip = ((self.page - 1) * self.size).min(total) as usize;
        let records = items.into_iter().skip(skip).take(self.size as usize).collect();
        Paged {
            records,
            total,
            page: self.page,
            size: self.size,
            pages: total.div_ceil(self.size),
            current: self.current.then_some(self.page),
        }
    }
}

/// An optional id filter.
pub fn id_filter(name: &str, raw: Option<&str>) -> Result<Option<u64>, CommentError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => parse_id(raw)
            .map(Some)
            .ok_or_else(|| CommentError::param(format!("{name} must be a positive integer id"))),
    }
}
