//! The public site the feeds and the sitemap point readers to: its title, description and URL,
//! the URL patterns of the frontend's pages, and how many URLs one sitemap file holds.

use anyhow::{bail, Context};

/// Most URLs one sitemap file may hold (sitemaps.org 0.9).
pub const SITEMAP_MAX_URLS: usize = 50_000;

/// The public site (`BLOG_SITE_*`, `BLOG_*_URL`, `BLOG_SITEMAP_URLS_PER_FILE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Title of the feeds (`BLOG_SITE_TITLE`).
    pub title: String,
    /// Description of the feeds (`BLOG_SITE_DESCRIPTION`).
    pub description: String,
    /// Absolute http(s) URL of the site's home page, without a trailing `/` (`BLOG_SITE_URL`).
    pub url: String,
    /// Pattern of an article's page with `{id}` (`BLOG_ARTICLE_URL`).
    article: String,
    /// Pattern of a category's page with `{slug}` (`BLOG_CATEGORY_URL`).
    category: String,
    /// Pattern of a tag's page with `{slug}` (`BLOG_TAG_URL`).
    tag: String,
    /// URLs per sitemap file, 1 to [`SITEMAP_MAX_URLS`] (`BLOG_SITEMAP_URLS_PER_FILE`).
    pub sitemap_urls_per_file: usize,
}

impl Site {
    /// Reads and checks the site's variables through `lookup` (empty values count as unset).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Site> {
        let url = lookup("BLOG_SITE_URL").unwrap_or_else(|| "https://blog.example.com".into());
        let url = base_url("BLOG_SITE_URL", &url)?;
        let pattern = |name: &str, default: &str, placeholder: &str| {
            page_pattern(&url, name, &lookup(name).unwrap_or_else(|| default.into()), placeholder)
        };
        let article = pattern("BLOG_ARTICLE_URL", "/articles/{id}", "{id}")?;
        let category = pattern("BLOG_CATEGORY_URL", "/categories/{slug}", "{slug}")?;
        let tag = pattern("BLOG_TAG_URL", "/tags/{slug}", "{slug}")?;
        let per_file = match lookup("BLOG_SITEMAP_URLS_PER_FILE") {
            None => SITEMAP_MAX_URLS,
            Some(raw) => raw
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=SITEMAP_MAX_URLS).contains(n))
                .with_context(|| {
                    format!("BLOG_SITEMAP_URLS_PER_FILE must be an integer from 1 to 50000, not `{raw}`")
                })?,
        };
        Ok(Site {
            title: lookup("BLOG_SITE_TITLE").unwrap_or_else(|| "Blog".into()),
            description: lookup("BLOG_SITE_DESCRIPTION")
                .unwrap_or_else(|| "The latest articles".into()),
            url,
            article,
            category,
            tag,
            sitemap_urls_per_file: per_file,
        })
    }

    /// The home page (`<site URL>/`).
    pub fn home(&self) -> String {
        format!("{}/", self.url)
    }

    /// The page of article `id`.
    pub fn article(&self, id: u64) -> String {
        self.article.replace("{id}", &id.to_string())
    }

    /// The page of the category `slug`.
    pub fn category(&self, slug: &str) -> String {
        self.category.replace("{slug}", slug)
    }

    /// The page of the tag `slug`.
    pub fn tag(&self, slug: &str) -> String {
        self.tag.replace("{slug}", slug)
    }
}

/// The value of the variable `name`: an absolute http(s) URL with a host and neither query nor
/// fragment; the trailing `/` dropped.
pub(super) fn base_url(name: &str, raw: &str) -> anyhow::Result<String> {
    let trimmed = raw.trim().trim_end_matches('/');
    let uri: Option<axum::http::Uri> = trimmed.parse().ok();
    let valid = uri.as_ref().is_some_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https"))
            && uri.host().is_some_and(|host| !host.is_empty())
            && !uri.authority().is_some_and(|authority| authority.as_str().contains('@'))
            && uri.query().is_none()
            && !trimmed.contains('#')
    });
    if !valid {
        bail!(
            "{name} must be an absolute http(s) URL without query or fragment, such as \
             https://blog.example.com, not `{raw}`"
        );
    }
    Ok(trimmed.to_string())
}

/// A page pattern: starting with `/` it is relative to the site URL, else an absolute http(s)
/// URL; either way it must hold `placeholder`.
fn page_pattern(site: &str, name: &str, raw: &str, placeholder: &str) -> anyhow::Result<String> {
    let raw = raw.trim();
    if !raw.contains(placeholder) {
        bail!("{name} must contain {placeholder} (the page's {placeholder}), not `{raw}`");
    }
    let absolute = if raw.starts_with('/') { format!("{site}{raw}") } else { raw.to_string() };
    let probe = absolute.replace(placeholder, "1");
    let uri: Option<axum::http::Uri> = probe.parse().ok();
    let valid = uri.is_some_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https")) && uri.host().is_some()
    });
    if !valid {
        bail!(
            "{name} must start with / (a path of BLOG_SITE_URL) or be an absolute http(s) URL \
             with {placeholder}, not `{raw}`"
        );
    }
    Ok(absolute)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn site(vars: &[(&str, &str)]) -> anyhow::Result<Site> {
        let map: HashMap<&str, &str> = vars.iter().copied().collect();
        Site::from_lookup(|name| map.get(name).map(|v| v.to_string()))
    }

    #[test]
    fn defaults_point_at_the_original_frontends_pages_on_blog_example_com() {
        let site = site(&[]).unwrap();
        assert_eq!((site.title.as_str(), site.url.as_str()), ("Blog", "https://blog.example.com"));
        assert_eq!(site.home(), "https://blog.example.com/");
        assert_eq!(site.article(42), "https://blog.example.com/articles/42");
        assert_eq!(site.category("rust"), "https://blog.example.com/categories/rust");
        assert_eq!(site.tag("web"), "https://blog.example.com/tags/web");
        assert_eq!(site.sitemap_urls_per_file, 50_000);
    }

    #[test]
    fn a_relative_pattern_follows_the_site_url_and_an_absolute_one_is_kept() {
        let site = site(&[
            ("BLOG_SITE_URL", "http://example.org/blog/"),
            ("BLOG_ARTICLE_URL", "/posts/{id}.html"),
            ("BLOG_TAG_URL", "https://tags.example.org/t/{slug}?from=feed"),
        ])
        .unwrap();
        assert_eq!(site.home(), "http://example.org/blog/");
        assert_eq!(site.article(7), "http://example.org/blog/posts/7.html");
        assert_eq!(site.tag("a-b"), "https://tags.example.org/t/a-b?from=feed");
    }

    #[test]
    fn a_bad_value_stops_the_start_naming_its_variable() {
        let cases: [(&str, &str); 8] = [
            ("BLOG_SITE_URL", "blog.example.com"),
            ("BLOG_SITE_URL", "ftp://blog.example.com"),
            ("BLOG_SITE_URL", "https://blog.example.com/?a=1"),
            ("BLOG_ARTICLE_URL", "/articles/"),
            ("BLOG_CATEGORY_URL", "categories/{slug}"),
            ("BLOG_TAG_URL", "/tags/{id}"),
            ("BLOG_SITEMAP_URLS_PER_FILE", "50001"),
            ("BLOG_SITEMAP_URLS_PER_FILE", "0"),
        ];
        for (name, value) in cases {
            let error = site(&[(name, value)]).expect_err(value).to_string();
            assert!(error.contains(name), "{error}");
        }
        assert_eq!(site(&[("BLOG_SITEMAP_URLS_PER_FILE", "3")]).unwrap().sitemap_urls_per_file, 3);
    }
}
