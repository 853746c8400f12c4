//! The documents' absolute URLs of the API start with its configured base URL, whatever host
//! the request names.

use serde_json::{json, Value};

use crate::{articles::cases::published, support::Api};

use super::check::parse;

/// Headers that name another host, as a client or a proxy on its path may send them.
const FORGED: [(&str, &str); 4] = [
    ("host", "evil.example"),
    ("x-forwarded-host", "evil.example"),
    ("x-forwarded-proto", "http"),
    ("forwarded", "host=evil.example;proto=http"),
];

/// Every document at `paths`, asked with the [`FORGED`] headers: 200, and `evil.example`
/// nowhere in it.
async fn documents(api: &Api, paths: &[&str]) -> Vec<Vec<u8>> {
    let mut documents = vec![];
    for path in paths {
        let fetched = api.document_with(path, &FORGED).await;
        let text = String::from_utf8_lossy(&fetched.body).to_string();
        assert_eq!(fetched.status, 200, "{path}: {text}");
        assert!(!text.contains("evil.example"), "{path} names the forged host: {text}");
        documents.push(fetched.body);
    }
    documents
}

/// The self link of each feed at `paths` (RSS, then Atom) is `base` and the feed's path.
fn assert_self_links(base: &str, paths: &[&str], feeds: &[Vec<u8>]) {
    for (path, feed) in paths.iter().zip(feeds) {
        let head = &parse("feed", feed)["feed"];
        let links: Vec<&str> = head["links"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|link| link["rel"] == json!("self"))
            .map(|link| link["href"].as_str().unwrap())
            .collect();
        assert_eq!(links, [format!("{base}{path}")], "{path}: {head}");
    }
}

pub async fn a_forged_host_appears_in_no_feed_or_sitemap(mut api: Api) {
    let admin = api.admin_token().await;
    published(&api, &admin, json!({"title": "Read me", "content": "Where am I?"})).await;
    // The sitemap lists the article once the worker has handled its publication.
    api.follow_up(1).await;
    let feeds = ["/api/v1/feeds/rss.xml", "/api/v1/feeds/atom.xml"];
    assert_self_links(&api.origin(), &feeds, &documents(&api, &feeds).await);
    documents(&api, &["/api/v1/sitemap.xml", "/api/v1/sitemaps/pages.xml"]).await;

    // The template's parameter sets the base; the sitemap as an index lists its files there.
    api.set_parameter("ApiBaseUrl", "https://api.blog.test/").await;
    assert_eq!(api.origin(), "https://api.blog.test");
    assert_self_links("https://api.blog.test", &feeds, &documents(&api, &feeds).await);
    api.set_parameter("SitemapUrlsPerFile", "1").await;
    let index = documents(&api, &["/api/v1/sitemap.xml"]).await.remove(0);
    let index = parse("sitemap", &index);
    assert_eq!(index["root"], json!("sitemapindex"), "{index}");
    let locations: Vec<&Value> = index["entries"].as_array().unwrap().iter().collect();
    assert!(!locations.is_empty(), "{index}");
    for entry in locations {
        let location = entry["loc"].as_str().unwrap();
        assert!(location.starts_with("https://api.blog.test/api/v1/sitemaps/"), "{location}");
    }
}
