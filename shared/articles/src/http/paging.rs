//! Pages cut from lists read whole (the administration's lists: revisions, comments, reports):
//! the article list's page object, `page` or its alias `current` from 1, `size` 1-100.

use blog_core::http::Failure;

use crate::Page;

/// The page asked for.
pub struct Paging {
    page: u64,
    size: u64,
    current: bool,
}

fn number(name: &str, raw: Option<&str>, max: u64) -> Result<Option<u64>, Failure> {
    match raw.map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => match raw.parse::<u64>() {
            Ok(value) if (1..=max).contains(&value) => Ok(Some(value)),
            _ => Err(Failure::Invalid(format!("{name} must be an integer from 1 to {max}"))),
        },
    }
}

impl Paging {
    /// `page` (or `current`) from 1, `size` 1-100 (default 10).
    pub fn parse(
        page: Option<&str>,
        current: Option<&str>,
        size: Option<&str>,
    ) -> Result<Self, Failure> {
        let page = number("page", page, 1_000_000)?;
        let current = number("current", current, 1_000_000)?;
        Ok(Paging {
            page: page.or(current).unwrap_or(1),
            size: number("size", size, 100)?.unwrap_or(10),
            current: current.is_some() && page.is_none(),
        })
    }

    /// The page of `items` (every match, in order).
    pub fn cut<T>(&self, items: Vec<T>) -> Page<T> {
        let total = items.len() as u64;
        let skip = ((self.page - 1) * self.size).min(total) as usize;
        let records = items.into_iter().skip(skip).take(self.size as usize).collect();
        Page::new(records, total, self.page, self.size, self.current)
    }
}
