//! The sitemap documents and file names.

use super::*;

fn site() -> Site {
    Site::from_lookup(|_| None).unwrap()
}

#[test]
fn a_urlset_lists_each_page_with_its_lastmod() {
    let pages = vec![
        Page { loc: "https://blog.example.com/".into(), lastmod: None },
        Page {
            loc: "https://blog.example.com/articles/1?a=1&b=2".into(),
            lastmod: lastmod("2026-03-04T05:06:07"),
        },
    ];
    assert_eq!(
        urlset(&pages),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
         <url><loc>https://blog.example.com/</loc></url>\
         <url><loc>https://blog.example.com/articles/1?a=1&amp;b=2</loc>\
         <lastmod>2026-03-04T05:06:07+00:00</lastmod></url></urlset>"
    );
}

#[test]
fn an_index_lists_its_files() {
    let locs = vec!["http://h/api/v1/sitemaps/pages.xml".to_string()];
    assert_eq!(
        index(&locs),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
         <sitemap><loc>http://h/api/v1/sitemaps/pages.xml</loc></sitemap></sitemapindex>"
    );
}

#[test]
fn the_site_pages_are_the_home_then_categories_then_tags_by_slug() {
    let pages = site_pages(&site(), vec!["b".into(), "a".into()], vec!["t".into()]);
    let locs: Vec<&str> = pages.iter().map(|p| p.loc.as_str()).collect();
    assert_eq!(
        locs,
        [
            "https://blog.example.com/",
            "https://blog.example.com/categories/a",
            "https://blog.example.com/categories/b",
            "https://blog.example.com/tags/t",
        ]
    );
}

#[test]
fn file_names_are_pages_or_an_article_range_without_leading_zeros() {
    assert_eq!(File::parse("pages.xml"), Ok(File::Pages));
    assert_eq!(File::parse("articles-0.xml"), Ok(File::Articles(0)));
    assert_eq!(File::parse("articles-12.xml"), Ok(File::Articles(12)));
    for bad in [
        "",
        "page.xml",
        "articles-.xml",
        "articles-01.xml",
        "articles--1.xml",
        "articles-1.xml.gz",
        "articles-1",
        "articles-1.XML",
    ] {
        let error = File::parse(bad).expect_err(bad);
        assert!(error.contains("file"), "{error}");
    }
    assert_eq!(File::Articles(3).name(), "articles-3.xml");
    let beyond = File::parse("articles-99999999999999999999999.xml");
    assert_eq!(beyond, Ok(File::Articles(u64::MAX)), "a range past every id: 404, not 400");
}

#[test]
fn article_ranges_split_the_ids_by_the_per_file_limit() {
    assert_eq!(article_range(0, 50_000), Some(1..=50_000));
    assert_eq!(article_range(2, 3), Some(7..=9));
    assert_eq!(file_of(9, 3), 2);
    assert_eq!(file_of(10, 3), 3);
    assert_eq!(file_of(1, 50_000), 0);
    let last = blog_core::ids::MAX_ID / 50_000;
    assert_eq!(article_range(last, 50_000).map(|r| *r.end()), Some(blog_core::ids::MAX_ID));
    assert_eq!(article_range(last + 1, 50_000), None);
    assert_eq!(article_range(u64::MAX, 2), None);
}

#[test]
fn lastmod_is_a_w3c_date_time_in_utc() {
    assert_eq!(lastmod("2026-12-31T23:59:59").as_deref(), Some("2026-12-31T23:59:59+00:00"));
    assert_eq!(lastmod("yesterday"), None);
}
