//! The sitemap documents (sitemaps.org 0.9), written with quick-xml's writer: a `<urlset>` of
//! pages, or a `<sitemapindex>` of the files it is split into past the per-file limit, and the
//! names of those files. Pure functions, tested below.
//!
//! The files: `pages.xml` (the home page, every category's and tag's page) and
//! `articles-<k>.xml` (the published articles whose ids are in `[k·L+1, (k+1)·L]`, L the URLs
//! per file), so a file's articles are one range of the id index and a file keeps its name and
//! contents as others grow.

use std::io;
use std::ops::RangeInclusive;

use quick_xml::{
    events::{BytesDecl, BytesText, Event},
    Writer,
};

use blog_core::{config::Site, ids::MAX_ID};

/// The sitemap protocol's namespace.
pub const NAMESPACE: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// One page of a `<urlset>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Absolute URL.
    pub loc: String,
    /// Last change, W3C date-time (`YYYY-MM-DDTHH:MM:SS+00:00`).
    pub lastmod: Option<String>,
}

/// A file of a sitemap index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum File {
    /// `pages.xml`: the home page, categories and tags.
    Pages,
    /// `articles-<k>.xml`: the published articles of id range `k`.
    Articles(u64),
}

impl File {
    /// Its name under `/api/v1/sitemaps/`.
    pub fn name(self) -> String {
        match self {
            File::Pages => "pages.xml".into(),
            File::Articles(k) => format!("articles-{k}.xml"),
        }
    }

    /// The file `name` names: `pages.xml`, or `articles-<k>.xml` with `k` written in decimal
    /// without leading zeros; anything else is a parameter error.
    pub fn parse(name: &str) -> Result<File, String> {
        if name == "pages.xml" {
            return Ok(File::Pages);
        }
        let k = name.strip_prefix("articles-").and_then(|rest| rest.strip_suffix(".xml"));
        match k {
            Some(k)
                if !k.is_empty()
                    && k.bytes().all(|b| b.is_ascii_digit())
                    && (k == "0" || !k.starts_with('0')) =>
            {
                // Past u64, past every id: a range that holds no article, like any beyond.
                Ok(File::Articles(k.parse().unwrap_or(u64::MAX)))
            }
            _ => Err(format!(
                "file must be pages.xml or articles-<n>.xml (n = 0, 1, 2, ...), not `{}`",
                name.chars().take(60).collect::<String>()
            )),
        }
    }
}

/// The article ids of `articles-<k>.xml` with `per_file` URLs per file; `None` past the
/// largest id.
pub fn article_range(k: u64, per_file: usize) -> Option<RangeInclusive<u64>> {
    let per_file = per_file.max(1) as u64;
    let first = k.checked_mul(per_file)?.checked_add(1).filter(|first| *first <= MAX_ID)?;
    Some(first..=first.saturating_add(per_file - 1).min(MAX_ID))
}

/// The range file that holds article `id`.
pub fn file_of(id: u64, per_file: usize) -> u64 {
    id.saturating_sub(1) / per_file.max(1) as u64
}

/// An API time (`YYYY-MM-DDTHH:MM:SS`, UTC) as a W3C date-time.
pub fn lastmod(time: &str) -> Option<String> {
    super::render::utc(time).map(|at| at.format("%Y-%m-%dT%H:%M:%S+00:00").to_string())
}

/// The home page, then every category's and tag's page, each sorted by slug.
pub fn site_pages(site: &Site, mut categories: Vec<String>, mut tags: Vec<String>) -> Vec<Page> {
    categories.sort();
    tags.sort();
    let page = |loc: String| Page { loc, lastmod: None };
    std::iter::once(page(site.home()))
        .chain(categories.iter().map(|slug| page(site.category(slug))))
        .chain(tags.iter().map(|slug| page(site.tag(slug))))
        .collect()
}

fn document(root: &str, write: impl FnOnce(&mut Writer<Vec<u8>>) -> io::Result<()>) -> String {
    let mut writer = Writer::new(Vec::new());
    let written = writer
        .write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .and_then(|()| {
            writer
                .create_element(root)
                .with_attribute(("xmlns", NAMESPACE))
                .write_inner_content(write)
        });
    // Writing into memory cannot fail, and every text written is a String: UTF-8.
    written.expect("writing XML into memory");
    String::from_utf8(writer.into_inner()).expect("UTF-8 XML")
}

/// A `<urlset>` of `pages`.
pub fn urlset(pages: &[Page]) -> String {
    document("urlset", |writer| {
        for page in pages {
            writer.create_element("url").write_inner_content(|writer| {
                writer.create_element("loc").write_text_content(BytesText::new(&page.loc))?;
                if let Some(lastmod) = &page.lastmod {
                    writer.create_element("lastmod").write_text_content(BytesText::new(lastmod))?;
                }
                Ok(())
            })?;
        }
        Ok(())
    })
}

/// A `<sitemapindex>` of the files at `locs`.
pub fn index(locs: &[String]) -> String {
    document("sitemapindex", |writer| {
        for loc in locs {
            writer.create_element("sitemap").write_inner_content(|writer| {
                writer.create_element("loc").write_text_content(BytesText::new(loc))?;
                Ok(())
            })?;
        }
        Ok(())
    })
}

#[cfg(test)]
#[path = "sitemap_tests.rs"]
mod tests;
