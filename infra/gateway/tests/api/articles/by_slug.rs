//! The articles of a tag or a category by its slug (`/api/v1/tags/slug/{slug}/articles`,
//! `/api/v1/categories/slug/{slug}/articles`): the public list's page filtered by its id,
//! written once against [`Api`].

use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_error, assert_ok, create, published, searched, taxonomy},
    support::Api,
};

fn titles(page: &Value) -> Vec<String> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

async fn read(api: &Api, path: &str) -> Value {
    assert_ok(&api.call("GET", path, None, None).await).clone()
}

/// A small blog for the pages by slug: categories `rust` and `go`, tags `async` and `web`, four
/// articles published one second apart (one pinned), a draft and an archived article carrying
/// both `rust` and `async`. Returns the ids `(rust, go, async, web)`.
async fn blog(api: &Api) -> (String, String, String, String) {
    let admin = api.admin_token().await;
    let rust = taxonomy(api, &admin, "categories", "Rust").await;
    let go = taxonomy(api, &admin, "categories", "Go").await;
    let async_tag = taxonomy(api, &admin, "tags", "Async").await;
    let web = taxonomy(api, &admin, "tags", "Web").await;
    let bodies = [
        json!({"title": "Ownership", "content": "x", "categoryId": rust, "tagIds": [web],
            "summary": "Borrowing and lifetimes"}),
        json!({"title": "Tokio tasks", "content": "x", "categoryId": rust,
            "tagIds": [async_tag, web], "summary": "An async runtime"}),
        json!({"title": "Pinned futures", "content": "x", "categoryId": rust,
            "tagIds": [async_tag], "isTop": 1, "summary": "Async pinning"}),
        json!({"title": "Goroutines", "content": "x", "categoryId": go, "tagIds": [async_tag],
            "summary": "Concurrency in Go"}),
    ];
    for body in bodies {
        published(api, &admin, body).await;
        // Publish times have second precision: one second apart, the order is known.
        tokio::time::sleep(std::time::Duration::from_millis(1050)).await;
    }
    let unpublished =
        json!({"title": "Draft", "content": "x", "categoryId": rust, "tagIds": [async_tag]});
    create(api, &admin, unpublished).await;
    let old =
        json!({"title": "Archived", "content": "x", "categoryId": rust, "tagIds": [async_tag]});
    let old = published(api, &admin, old).await;
    assert_ok(&act(api, &admin, &old, "archive").await);
    // Five publications and an archive: the keyword pages read the index the worker keeps.
    api.follow_up(6).await;
    searched(api, "/api/v1/articles?keyword=async", &["Pinned futures", "Tokio tasks"]).await;
    (rust, go, async_tag, web)
}

/// For each query, the page by slug is the list's page with `filter=<id>` added: records,
/// total and paging alike.
async fn assert_same_pages(api: &Api, by_slug: &str, filter: &str, queries: &[String]) {
    for query in queries {
        let page = read(api, &format!("{by_slug}?{query}")).await;
        let list = read(api, &format!("/api/v1/articles?{filter}&{query}")).await;
        assert_eq!(page, list, "{by_slug}?{query}");
    }
}

pub async fn a_tags_articles_are_the_list_filtered_by_its_id(api: Api) {
    let (rust, go, async_tag, _) = blog(&api).await;
    let path = "/api/v1/tags/slug/async/articles";
    let all = read(&api, path).await;
    assert_eq!(
        titles(&all),
        ["Pinned futures", "Goroutines", "Tokio tasks"],
        "no draft, no archive"
    );
    assert_eq!(
        (all["total"].clone(), all["page"].clone(), all["size"].clone(), all["pages"].clone()),
        (json!(3), json!(1), json!(10), json!(1))
    );
    let queries = [
        String::new(),
        "size=1".into(),
        "page=2&size=2".into(),
        "current=3&size=1".into(),
        "page=9&size=2".into(),
        format!("categoryId={rust}"),
        format!("categoryId={go}&size=1"),
        "categoryId=9007199254740991".into(),
        "keyword=async".into(),
        format!("keyword=concurrency&categoryId={rust}"),
    ];
    assert_same_pages(&api, path, &format!("tagId={async_tag}"), &queries).await;
    let alias = read(&api, &format!("{path}?current=2&size=1")).await;
    assert_eq!((titles(&alias), alias["current"].clone()), (vec!["Goroutines".into()], json!(2)));
}

pub async fn a_categorys_articles_are_the_list_filtered_by_its_id(api: Api) {
    let (rust, _, async_tag, web) = blog(&api).await;
    let path = "/api/v1/categories/slug/rust/articles";
    let all = read(&api, path).await;
    assert_eq!(
        titles(&all),
        ["Pinned futures", "Tokio tasks", "Ownership"],
        "no draft, no archive"
    );
    assert_eq!(all["total"], json!(3));
    let queries = [
        String::new(),
        "size=2".into(),
        "page=2&size=2".into(),
        "current=1&size=1".into(),
        format!("tagId={web}"),
        format!("tagId={async_tag}&page=2&size=1"),
        "tagId=9007199254740991".into(),
        "keyword=lifetimes".into(),
        "keyword=haskell".into(),
    ];
    assert_same_pages(&api, path, &format!("categoryId={rust}"), &queries).await;
    let empty = read(&api, "/api/v1/categories/slug/go/articles?keyword=rust").await;
    assert_eq!((empty["records"].clone(), empty["total"].clone()), (json!([]), json!(0)));
}

pub async fn an_unknown_or_malformed_slug_is_not_found_in_the_articles_envelope(api: Api) {
    let admin = api.admin_token().await;
    taxonomy(&api, &admin, "tags", "Known").await;
    taxonomy(&api, &admin, "categories", "Known").await;
    let long = "a".repeat(51);
    for kind in ["tags", "categories"] {
        // The taxonomy's own read by slug answers 404 for each of these too.
        for slug in ["nobody", "Known", "a_b", "%C3%A9t%C3%A9", "a%20b", long.as_str()] {
            let path = format!("/api/v1/{kind}/slug/{slug}/articles");
            let reply = api.call("GET", &path, None, None).await;
            assert_error(&reply, 404, "NOT_FOUND");
            let own = api.call("GET", &format!("/api/v1/{kind}/slug/{slug}"), None, None).await;
            assert_eq!(own.status, 404, "{kind}/slug/{slug}: {:?}", own.body);
        }
        let known = read(&api, &format!("/api/v1/{kind}/slug/known/articles")).await;
        assert_eq!(known["total"], json!(0));
    }
    let reply = api.call("GET", "/api/v1/tags/slug/nobody/articles", None, None).await;
    assert_eq!(reply.body["message"], json!("no tag has the slug `nobody`"));
    let reply = api.call("GET", "/api/v1/categories/slug/nobody/articles", None, None).await;
    assert_eq!(reply.body["message"], json!("no category has the slug `nobody`"));
    // Where the list answers an empty page for an unknown id, the slug names nothing to list.
    let unknown = read(&api, "/api/v1/articles?tagId=9007199254740991").await;
    assert_eq!(unknown["total"], json!(0));
}

pub async fn the_pages_by_slug_take_the_lists_parameters_and_refuse_the_paths_filter(api: Api) {
    let admin = api.admin_token().await;
    taxonomy(&api, &admin, "tags", "Checked").await;
    taxonomy(&api, &admin, "categories", "Checked").await;
    let tag = "/api/v1/tags/slug/checked/articles";
    let category = "/api/v1/categories/slug/checked/articles";
    let cases = [
        (tag, "page=0", "page"),
        (tag, "size=101", "size"),
        (tag, "page=x", "page"),
        (tag, "current=-1", "current"),
        (tag, "size=1.5", "size"),
        (tag, "categoryId=abc", "categoryId"),
        (tag, "tagId=7", "tagId"),
        (tag, "tagId=abc", "tagId"),
        (category, "size=0", "size"),
        (category, "tagId=0", "tagId"),
        (category, "categoryId=7", "categoryId"),
        // A bad parameter is refused before the slug is looked up.
        ("/api/v1/tags/slug/nobody/articles", "page=0", "page"),
        ("/api/v1/categories/slug/Not_A_Slug/articles", "tagId=x", "tagId"),
    ];
    for (path, query, field) in cases {
        let path = format!("{path}?{query}");
        let (reply, calls) = api.calls_of(api.call("GET", &path, None, None)).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{path}: {message}");
        assert_eq!(calls.total(), 0, "{path}: refused without reading: {calls:?}");
    }
    // The list's depth bound, named as the list names it; the advice names only the filters
    // the endpoint takes (the path's own one would be refused).
    for (query, field) in [("page=11&size=100", "page"), ("current=101&size=10", "current")] {
        for (path, refused) in [(tag, "tagId"), (category, "categoryId")] {
            let path = format!("{path}?{query}");
            let (reply, calls) = api.calls_of(api.call("GET", &path, None, None)).await;
            assert_error(&reply, 400, "PARAM_ERROR");
            let message = reply.body["message"].as_str().unwrap();
            assert!(message.starts_with(&format!("{field} × size")), "{path}: {message}");
            assert!(
                message.ends_with("keyword") && !message.contains(refused),
                "{path}: {message}"
            );
            assert_eq!(calls.total(), 0, "{path}: {calls:?}");
        }
    }
    // Empty filters are absent ones, as in the list; unknown parameters are ignored.
    for path in [format!("{tag}?tagId=&categoryId=&x=1"), format!("{category}?categoryId=")] {
        assert_eq!(read(&api, &path).await["total"], json!(0), "{path}");
    }
    for query in ["page=100&size=10", "page=1000&size=1"] {
        assert_ok(&api.call("GET", &format!("{tag}?{query}"), None, None).await);
    }
}

pub async fn a_page_by_slug_reads_the_slugs_marker_then_what_the_list_reads(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Metered").await;
    let tag = taxonomy(&api, &admin, "tags", "Counted").await;
    let body = json!({"title": "Metered", "content": "x", "categoryId": cat, "tagIds": [tag]});
    published(&api, &admin, body).await;
    // (path, calls, round trips): the marker's GetItem, then the listing partition's Query
    // (headed by the tag or category and its count) and the page's BatchGetItem, or the
    // filtered read's.
    let cases = [
        ("/api/v1/tags/slug/counted/articles".to_string(), 3, 3),
        ("/api/v1/categories/slug/metered/articles?page=1&size=5".into(), 3, 3),
        (format!("/api/v1/tags/slug/counted/articles?categoryId={cat}"), 3, 3),
    ];
    for (path, calls, round_trips) in cases {
        let (reply, counts) = api.calls_of_read(|| api.call("GET", &path, None, None)).await;
        assert_eq!(titles(assert_ok(&reply)), ["Metered"], "{path}");
        assert_eq!(counts.get, 1, "{path}: the slug's marker: {counts:?}");
        assert_eq!(
            (counts.total(), counts.round_trips),
            (calls, round_trips),
            "{path}: {counts:?}"
        );
    }
    let (reply, counts) =
        api.calls_of(api.call("GET", "/api/v1/tags/slug/nobody/articles", None, None)).await;
    assert_error(&reply, 404, "NOT_FOUND");
    assert_eq!((counts.get, counts.total()), (1, 1), "the marker only: {counts:?}");
}
