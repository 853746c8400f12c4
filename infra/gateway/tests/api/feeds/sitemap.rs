//! The sitemap, parsed by xml.etree and checked against the articles' JSON answers.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_error, assert_ok, create, published, taxonomy},
    support::Api,
};

use super::check::{article_page, detail, parse, text};

/// The sitemap document at `path`: 200, XML, and what xml.etree reads of it, every breach of
/// the protocol absent.
async fn sitemap(api: &Api, path: &str) -> Value {
    let fetched = api.document(path).await;
    assert_eq!(fetched.status, 200, "{path}: {}", String::from_utf8_lossy(&fetched.body));
    assert_eq!(fetched.content_type, "application/xml; charset=utf-8", "{path}");
    let parsed = parse("sitemap", &fetched.body);
    assert_eq!(parsed["problems"], json!([]), "{path}");
    parsed
}

/// The `url` entries an article's page has in a sitemap: its page and last change.
async fn article_entries(api: &Api, ids: &[String]) -> Vec<Value> {
    let mut entries = Vec::new();
    for id in ids {
        let lastmod = format!("{}+00:00", text(&detail(api, id).await, "updateTime"));
        entries.push(json!({"loc": article_page(id), "lastmod": lastmod}));
    }
    entries
}

fn page(loc: &str) -> Value {
    json!({ "loc": format!("https://blog.example.com{loc}") })
}

pub async fn the_sitemap_lists_the_home_every_category_and_tag_and_each_published_article(
    api: Api,
) {
    let admin = api.admin_token().await;
    let rust = taxonomy(&api, &admin, "categories", "Rust").await;
    taxonomy(&api, &admin, "categories", "Empty").await;
    let web = taxonomy(&api, &admin, "tags", "Web").await;
    let first =
        published(&api, &admin, json!({"title": "One", "content": "a", "categoryId": rust})).await;
    create(&api, &admin, json!({"title": "Draft", "content": "b"})).await;
    let archived = published(&api, &admin, json!({"title": "Archived", "content": "c"})).await;
    assert_ok(&act(&api, &admin, &archived, "archive").await);
    let deleted = published(&api, &admin, json!({"title": "Gone", "content": "d"})).await;
    let path = format!("/api/v1/admin/articles/{deleted}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    let last =
        published(&api, &admin, json!({"title": "Two", "content": "e", "tagIds": [web]})).await;
    // Four publications, an archive and a deletion of published articles.
    api.follow_up(6).await;
    let map = sitemap(&api, "/api/v1/sitemap.xml").await;
    assert_eq!(map["root"], json!("urlset"));
    let pages = [page("/"), page("/categories/empty"), page("/categories/rust"), page("/tags/web")];
    let mut expected = pages.to_vec();
    expected.extend(article_entries(&api, &[first, last]).await);
    assert_eq!(
        map["entries"],
        Value::Array(expected),
        "home, categories, tags, then articles by id"
    );
    let pages_file = sitemap(&api, "/api/v1/sitemaps/pages.xml").await;
    assert_eq!(pages_file["entries"], json!(pages), "every file answers, index or not");
}

pub async fn a_sitemap_file_name_is_checked_and_an_empty_range_names_no_file(api: Api) {
    let admin = api.admin_token().await;
    published(&api, &admin, json!({"title": "One", "content": "a"})).await;
    api.follow_up(1).await;
    for bad in ["index.xml", "articles-01.xml", "articles-x.xml", "pages.xml.gz"] {
        let reply = api.call("GET", &format!("/api/v1/sitemaps/{bad}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        assert!(reply.body["message"].as_str().unwrap().contains("file"), "{:?}", reply.body);
    }
    for empty in ["articles-1.xml", "articles-99999999999999999999.xml"] {
        let reply = api.call("GET", &format!("/api/v1/sitemaps/{empty}"), None, None).await;
        assert_error(&reply, 404, "NOT_FOUND");
    }
    let first = sitemap(&api, "/api/v1/sitemaps/articles-0.xml").await;
    assert_eq!(first["entries"].as_array().unwrap().len(), 1);
}

pub async fn past_the_per_file_limit_the_sitemap_is_an_index_of_its_files(mut api: Api) {
    api.set_parameter("SitemapUrlsPerFile", "2").await;
    let admin = api.admin_token().await;
    // Ids come in order: with two per file, the third and fourth share a file and leave it
    // empty (a draft, a deleted one).
    let mut ids = vec![];
    for title in ["One", "Two", "Three", "Four", "Five"] {
        ids.push(create(&api, &admin, json!({"title": title, "content": "x"})).await);
    }
    for id in [&ids[0], &ids[1], &ids[4]] {
        assert_ok(&act(&api, &admin, id, "publish").await);
    }
    let path = format!("/api/v1/admin/articles/{}", ids[3]);
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    api.follow_up(3).await;
    let index = sitemap(&api, "/api/v1/sitemap.xml").await;
    assert_eq!(index["root"], json!("sitemapindex"));
    let number = |id: &String| id.parse::<u64>().unwrap();
    let files: BTreeSet<u64> =
        [&ids[0], &ids[1], &ids[4]].iter().map(|id| (number(id) - 1) / 2).collect();
    let base = format!("{}/api/v1/sitemaps", api.origin());
    let mut expected = vec![json!({"loc": format!("{base}/pages.xml")})];
    expected.extend(files.iter().map(|k| json!({"loc": format!("{base}/articles-{k}.xml")})));
    assert_eq!(index["entries"], Value::Array(expected), "pages, then each range holding one");
    let mut listed = vec![];
    for k in &files {
        let file = sitemap(&api, &format!("/api/v1/sitemaps/articles-{k}.xml")).await;
        let entries = file["entries"].as_array().unwrap();
        assert!(!entries.is_empty() && entries.len() <= 2, "{file}");
        listed.extend(entries.iter().cloned());
    }
    let published = [ids[0].clone(), ids[1].clone(), ids[4].clone()];
    assert_eq!(listed, article_entries(&api, &published).await, "each published article once");
    let empty = (number(&ids[2]) - 1) / 2;
    if !files.contains(&empty) {
        let path = format!("/api/v1/sitemaps/articles-{empty}.xml");
        assert_error(&api.call("GET", &path, None, None).await, 404, "NOT_FOUND");
    }
    let pages = sitemap(&api, "/api/v1/sitemaps/pages.xml").await;
    assert_eq!(pages["entries"], json!([page("/")]));
}

/// The article entries of the one-file sitemap and of `articles-0.xml`, which agree.
async fn listed(api: &Api) -> Vec<Value> {
    let map = sitemap(api, "/api/v1/sitemap.xml").await;
    let entries: Vec<Value> = map["entries"].as_array().unwrap().iter().skip(1).cloned().collect();
    match entries.is_empty() {
        true => {
            let path = "/api/v1/sitemaps/articles-0.xml";
            assert_error(&api.call("GET", path, None, None).await, 404, "NOT_FOUND");
        }
        false => assert_eq!(
            sitemap(api, "/api/v1/sitemaps/articles-0.xml").await["entries"],
            json!(entries)
        ),
    }
    entries
}

pub async fn an_article_is_in_the_sitemap_once_the_worker_handled_its_event_and_leaves_with_it(
    api: Api,
) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Fresh", "content": "a"})).await;
    assert_eq!(listed(&api).await, Vec::<Value>::new(), "the worker has not had the event yet");
    let events = api.follow_up(1).await;
    assert_eq!(events[0]["type"], "ArticlePublishedEvent");
    assert_eq!(listed(&api).await, article_entries(&api, std::slice::from_ref(&id)).await);
    // An update of the published article: its lastmod follows with the update's event.
    let before = listed(&api).await;
    tokio::time::sleep(std::time::Duration::from_millis(1050)).await;
    let edit = json!({"title": "Fresher", "content": "b", "version": 1});
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(edit)).await);
    api.follow_up(1).await;
    let after = listed(&api).await;
    assert_ne!(after, before, "a new lastmod");
    assert_eq!(after, article_entries(&api, std::slice::from_ref(&id)).await);
    // Archived: gone with the withdrawal's event; unarchived: back; deleted: gone.
    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(api.follow_up(1).await[0]["type"], "ArticleWithdrawnEvent");
    assert_eq!(listed(&api).await, Vec::<Value>::new());
    assert_ok(&act(&api, &admin, &id, "unarchive").await);
    api.follow_up(1).await;
    assert_eq!(listed(&api).await, article_entries(&api, std::slice::from_ref(&id)).await);
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_eq!(api.follow_up(1).await[0]["type"], "ArticleWithdrawnEvent");
    assert_eq!(listed(&api).await, Vec::<Value>::new());
}

pub async fn the_sweep_builds_the_pages_of_articles_published_before_them(api: Api) {
    let admin = api.admin_token().await;
    let first = published(&api, &admin, json!({"title": "Old", "content": "a"})).await;
    create(&api, &admin, json!({"title": "Draft", "content": "b"})).await;
    let second = published(&api, &admin, json!({"title": "Older", "content": "c"})).await;
    // Their events never reach the worker (as before the pages existed).
    assert_eq!(listed(&api).await, Vec::<Value>::new());
    assert_eq!(api.rebuild_sitemap().await.unwrap(), 1, "one page of 1,000 ids");
    let expected = article_entries(&api, &[first, second]).await;
    assert_eq!(listed(&api).await, expected);
    assert_eq!(api.rebuild_sitemap().await.unwrap(), 1, "again: the same pages");
    assert_eq!(listed(&api).await, expected, "the draft is not listed");
}
