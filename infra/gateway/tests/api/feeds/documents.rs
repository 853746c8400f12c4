//! The RSS and Atom feeds, parsed by feedparser and checked against the articles' JSON answers.

use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_error, assert_ok, create, published, taxonomy},
    support::Api,
};

use super::check::{article_page, detail, parse, text};

/// The formats of every feed: path suffix, content type, feedparser's version.
const FORMATS: [(&str, &str, &str); 2] = [
    ("rss.xml", "application/rss+xml; charset=utf-8", "rss20"),
    ("atom.xml", "application/atom+xml; charset=utf-8", "atom10"),
];

/// Publishes one article after another (publish times have second precision).
async fn publish_apart(api: &Api, admin: &str, bodies: Vec<Value>) -> Vec<String> {
    let mut ids = vec![];
    for body in bodies {
        ids.push(published(api, admin, body).await);
        tokio::time::sleep(std::time::Duration::from_millis(1050)).await;
    }
    ids
}

/// The feed at `path` in one format: a valid document whose head is `title` and `page`, and
/// whose entries are the articles `ids` in that order, every field as their details say.
async fn check_feed(
    api: &Api,
    path: &str,
    format: (&str, &str, &str),
    title: &str,
    page: &str,
    ids: &[String],
) {
    let (suffix, content_type, version) = format;
    let path = format!("{path}/{suffix}");
    let fetched = api.document(&path).await;
    assert_eq!(fetched.status, 200, "{path}: {}", String::from_utf8_lossy(&fetched.body));
    assert_eq!(fetched.content_type, content_type, "{path}");
    let feed = parse("feed", &fetched.body);
    assert_eq!(feed["bozo"], json!(0), "{path} is not valid: {}", feed["bozo_exception"]);
    assert_eq!(feed["version"], json!(version), "{path}");
    let head = &feed["feed"];
    assert_eq!((text(head, "title"), text(head, "link")), (title, page), "{path}");
    assert_eq!(text(head, "subtitle"), "The latest articles", "{path}");
    let self_link = json!({"rel": "self", "href": format!("{}{path}", api.origin()),
        "type": content_type.split(';').next().unwrap()});
    assert!(head["links"].as_array().unwrap().contains(&self_link), "{path}: {head}");
    let entries = feed["entries"].as_array().unwrap();
    let links: Vec<&str> = entries.iter().map(|e| text(e, "link")).collect();
    let pages: Vec<String> = ids.iter().map(|id| article_page(id)).collect();
    assert_eq!(links, pages, "{path}: the articles, newest first");
    let mut newest = String::new();
    for (entry, id) in entries.iter().zip(ids) {
        let article = detail(api, id).await;
        assert_eq!(text(entry, "id"), article_page(id), "{path}: guid / id");
        assert_eq!(entry["title"], article["title"], "{path}");
        assert_eq!(entry["summary"], article["summary"], "{path}");
        assert_eq!(entry["author"], article["authorName"], "{path}");
        assert_eq!(entry["published"], article["publishTime"], "{path}");
        assert_eq!(entry["updated"], article["updateTime"], "{path}");
        let mut tags: Vec<Value> =
            article["categoryName"].as_str().map(Value::from).into_iter().collect();
        tags.extend(article["tags"].as_array().unwrap().iter().map(|t| t["name"].clone()));
        assert_eq!(entry["tags"], Value::Array(tags), "{path}: category and tag names");
        // feedparser strips the whitespace around a value.
        let html = text(&article, "contentHtml").trim();
        let content = json!([{"type": "text/html", "value": html}]);
        assert_eq!(entry["content"], content, "{path}: the full sanitised HTML");
        newest = newest.max(text(&article, "updateTime").to_string());
    }
    if ids.is_empty() {
        assert!(!fetched.headers.contains_key("last-modified"), "{path}");
        return;
    }
    assert_eq!(text(head, "updated"), newest, "{path}: lastBuildDate / updated");
    let newest = chrono::NaiveDateTime::parse_from_str(&newest, "%Y-%m-%dT%H:%M:%S").unwrap();
    let http_date = newest.and_utc().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    assert_eq!(fetched.headers.get("last-modified"), Some(&http_date), "{path}");
}

pub async fn the_blog_feeds_carry_every_field_of_the_latest_published_articles(api: Api) {
    let admin = api.admin_token().await;
    let category = taxonomy(&api, &admin, "categories", "Rust").await;
    let web = taxonomy(&api, &admin, "tags", "Web").await;
    let cli = taxonomy(&api, &admin, "tags", "Cli").await;
    let markdown = "# Pinned\n\nHello **world** & <b>friends</b> <script>x</script>\n\n```rust\nfn main() {}\n```\n";
    let ids = publish_apart(
        &api,
        &admin,
        vec![
            json!({"title": "Pinned <early>", "content": markdown, "isTop": 1,
                "categoryId": category, "tagIds": [web, cli], "summary": "First & pinned"}),
            json!({"title": "Second", "content": "Plain text", "tagIds": [cli]}),
            json!({"title": "Third", "content": "## Third\n\n- [x] done", "categoryId": category}),
        ],
    )
    .await;
    create(&api, &admin, json!({"title": "A draft", "content": "x"})).await;
    let archived = published(&api, &admin, json!({"title": "Archived", "content": "x"})).await;
    assert_ok(&act(&api, &admin, &archived, "archive").await);
    let deleted = published(&api, &admin, json!({"title": "Deleted", "content": "x"})).await;
    let gone = format!("/api/v1/admin/articles/{deleted}");
    assert_ok(&api.call("DELETE", &gone, Some(&admin), None).await);
    // An update after publishing moves the update time, not the order.
    let edit = json!({"title": "Second, edited", "content": "Plain text, edited", "tagIds": [cli]});
    let path = format!("/api/v1/admin/articles/{}", ids[1]);
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(edit)).await);
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    for format in FORMATS {
        let page = "https://blog.example.com/";
        check_feed(&api, "/api/v1/feeds", format, "Blog", page, &newest_first).await;
    }
    let list = assert_ok(&api.call("GET", "/api/v1/articles", None, None).await).clone();
    assert_eq!(list["records"][0]["id"], json!(ids[0]), "the list shows the pinned one first");
}

pub async fn category_and_tag_feeds_hold_only_their_articles(api: Api) {
    let admin = api.admin_token().await;
    let rust = taxonomy(&api, &admin, "categories", "Rust").await;
    let go = taxonomy(&api, &admin, "categories", "Go").await;
    let web = taxonomy(&api, &admin, "tags", "Web").await;
    taxonomy(&api, &admin, "tags", "Quiet").await;
    let ids = publish_apart(
        &api,
        &admin,
        vec![
            json!({"title": "Rust web", "content": "a", "categoryId": rust, "tagIds": [web]}),
            json!({"title": "Go", "content": "b", "categoryId": go}),
            json!({"title": "Rust alone", "content": "c", "categoryId": rust, "isTop": 1}),
            json!({"title": "Web alone", "content": "d", "tagIds": [web]}),
        ],
    )
    .await;
    let draft = json!({"title": "Draft", "content": "e", "categoryId": rust, "tagIds": [web]});
    create(&api, &admin, draft).await;
    let base = "https://blog.example.com";
    let cases = [
        (
            "categories/rust",
            "Blog: Rust",
            format!("{base}/categories/rust"),
            vec![&ids[2], &ids[0]],
        ),
        ("categories/go", "Blog: Go", format!("{base}/categories/go"), vec![&ids[1]]),
        ("tags/web", "Blog: #Web", format!("{base}/tags/web"), vec![&ids[3], &ids[0]]),
        ("tags/quiet", "Blog: #Quiet", format!("{base}/tags/quiet"), vec![]),
    ];
    for (scope, title, page, expected) in cases {
        let expected: Vec<String> = expected.into_iter().cloned().collect();
        for format in FORMATS {
            let path = format!("/api/v1/feeds/{scope}");
            check_feed(&api, &path, format, title, &page, &expected).await;
        }
    }
}

pub async fn an_unknown_slug_is_a_404_in_the_articles_envelope(api: Api) {
    let admin = api.admin_token().await;
    taxonomy(&api, &admin, "categories", "Rust").await;
    taxonomy(&api, &admin, "tags", "Web").await;
    for (kind, slug) in
        [("categories", "web"), ("tags", "rust"), ("categories", "No%20Such"), ("tags", "%FF")]
    {
        for (suffix, ..) in FORMATS {
            let path = format!("/api/v1/feeds/{kind}/{slug}/{suffix}");
            let reply = api.call("GET", &path, None, None).await;
            assert_error(&reply, 404, "NOT_FOUND");
            let what = if kind == "tags" { "no tag" } else { "no category" };
            assert!(
                reply.body["message"].as_str().unwrap().contains(what),
                "{path}: {:?}",
                reply.body
            );
        }
    }
}
