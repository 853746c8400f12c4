//! Public and admin read cases, written once against [`Api`].

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

async fn page(api: &Api, query: &str) -> Value {
    let reply = api.call("GET", &format!("/api/v1/articles?{query}"), None, None).await;
    assert_ok(&reply).clone()
}

/// Publishes articles one second apart (publish times have second precision).
async fn publish_in_order(api: &Api, admin: &str, bodies: Vec<Value>) -> Vec<String> {
    let mut ids = vec![];
    for body in bodies {
        ids.push(published(api, admin, body).await);
        tokio::time::sleep(std::time::Duration::from_millis(1050)).await;
    }
    ids
}

pub async fn the_public_list_orders_pinned_then_newest_with_exact_pages(api: Api) {
    let admin = api.admin_token().await;
    create(&api, &admin, json!({"title": "Draft", "content": "x"})).await;
    let bodies = vec![
        json!({"title": "A", "content": "x"}),
        json!({"title": "Pinned", "content": "x", "isTop": 1}),
        json!({"title": "B", "content": "x"}),
        json!({"title": "C", "content": "x"}),
        json!({"title": "D", "content": "x"}),
    ];
    publish_in_order(&api, &admin, bodies).await;
    let first = page(&api, "size=2").await;
    assert_eq!(titles(&first), ["Pinned", "D"]);
    assert_eq!(
        (
            first["total"].clone(),
            first["page"].clone(),
            first["size"].clone(),
            first["pages"].clone()
        ),
        (json!(5), json!(1), json!(2), json!(3))
    );
    assert!(first.get("current").is_none());
    assert_eq!(titles(&page(&api, "page=2&size=2").await), ["C", "B"]);
    let alias = page(&api, "current=3&size=2").await;
    assert_eq!(titles(&alias), ["A"]);
    assert_eq!((alias["page"].clone(), alias["current"].clone()), (json!(3), json!(3)));
    let past = page(&api, "page=9&size=2").await;
    assert_eq!((past["records"].clone(), past["total"].clone()), (json!([]), json!(5)));
    let default = page(&api, "").await;
    assert_eq!(
        (default["size"].clone(), default["records"].as_array().unwrap().len()),
        (json!(10), 5)
    );
}

pub async fn the_public_list_filters_by_category_tag_and_keyword(api: Api) {
    let admin = api.admin_token().await;
    let rust = taxonomy(&api, &admin, "categories", "Rust").await;
    let go = taxonomy(&api, &admin, "categories", "Go").await;
    let async_tag = taxonomy(&api, &admin, "tags", "Async").await;
    let bodies = vec![
        json!({"title": "Ownership in Rust", "content": "x", "categoryId": rust, "summary": "Borrowing and lifetimes"}),
        json!({"title": "Tokio tasks", "content": "x", "categoryId": rust, "tagIds": [async_tag], "summary": "Async Rust runtime"}),
        json!({"title": "Goroutines", "content": "x", "categoryId": go, "tagIds": [async_tag], "summary": "Concurrency in Go"}),
        json!({"title": "学习编程语言", "content": "x", "summary": "入门指南"}),
    ];
    publish_in_order(&api, &admin, bodies).await;
    create(&api, &admin, json!({"title": "Unpublished Rust", "content": "x", "categoryId": rust}))
        .await;
    // The keyword is searched in the index the worker keeps.
    api.follow_up(4).await;
    searched(&api, "/api/v1/articles?keyword=RUST", &["Tokio tasks", "Ownership in Rust"]).await;
    let by_category = page(&api, &format!("categoryId={rust}")).await;
    assert_eq!(
        (titles(&by_category), by_category["total"].clone()),
        (vec!["Tokio tasks".to_string(), "Ownership in Rust".into()], json!(2))
    );
    let by_tag = page(&api, &format!("tagId={async_tag}&size=1")).await;
    assert_eq!(
        (titles(&by_tag), by_tag["total"].clone(), by_tag["pages"].clone()),
        (vec!["Goroutines".to_string()], json!(2), json!(2))
    );
    let both = page(&api, &format!("tagId={async_tag}&categoryId={go}")).await;
    assert_eq!((titles(&both), both["total"].clone()), (vec!["Goroutines".to_string()], json!(1)));
    let keyword = page(&api, "keyword=RUST").await;
    assert_eq!(
        (titles(&keyword), keyword["total"].clone()),
        (vec!["Tokio tasks".to_string(), "Ownership in Rust".into()], json!(2))
    );
    let in_summary = page(&api, "keyword=lifetimes").await;
    assert_eq!(titles(&in_summary), ["Ownership in Rust"]);
    let two_words = page(&api, "keyword=async%20runtime").await;
    assert_eq!(titles(&two_words), ["Tokio tasks"]);
    let combined = page(&api, &format!("keyword=concurrency&categoryId={rust}")).await;
    assert_eq!(combined["total"], json!(0));
    let cjk = page(&api, "keyword=%E7%BC%96%E7%A8%8B").await;
    assert_eq!(titles(&cjk), ["学习编程语言"]);
    let nothing = page(&api, "keyword=haskell").await;
    assert_eq!((nothing["records"].clone(), nothing["total"].clone()), (json!([]), json!(0)));
    let unknown = page(&api, "categoryId=999999").await;
    assert_eq!(unknown["total"], json!(0));
    let item = &by_category["records"][0];
    assert_eq!(item["categoryId"], json!(rust));
    assert_eq!(item["categoryName"], json!("Rust"));
    assert_eq!(item["tags"][0]["name"], json!("Async"));
}

pub async fn list_parameters_are_validated(api: Api) {
    for query in [
        "page=0",
        "size=0",
        "size=101",
        "page=x",
        "current=-1",
        "categoryId=abc",
        "tagId=0",
        "size=1.5",
    ] {
        let reply = api.call("GET", &format!("/api/v1/articles?{query}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
    }
    let admin = api.admin_token().await;
    let reply = api.call("GET", "/api/v1/admin/articles?status=7", Some(&admin), None).await;
    assert_error(&reply, 400, "PARAM_ERROR");
}

pub async fn a_public_page_deeper_than_1000_articles_is_refused_without_reading(api: Api) {
    for (query, field) in [
        ("page=1000000", "page"),
        ("page=11&size=100", "page"),
        ("current=101&size=10", "current"),
        ("page=101&keyword=rust", "page"),
        ("page=501&size=2&categoryId=1", "page"),
    ] {
        let path = format!("/api/v1/articles?{query}");
        let (reply, calls) = api.calls_of(api.call("GET", &path, None, None)).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("{field} × size")), "{query}: {message}");
        assert_eq!(calls.total(), 0, "{query}: {calls:?}");
    }
    for query in ["page=100&size=10", "page=10&size=100", "page=1000&size=1"] {
        let reply = api.call("GET", &format!("/api/v1/articles?{query}"), None, None).await;
        assert_eq!(reply.status, 200, "{query}: {:?}", reply.body);
    }
}

pub async fn the_public_detail_shows_published_and_archived_only(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Secret", "content": "x"})).await;
    assert_error(
        &api.call("GET", &format!("/api/v1/articles/{draft}"), None, None).await,
        404,
        "ARTICLE_NOT_FOUND",
    );
    assert_ok(&act(&api, &admin, &draft, "publish").await);
    assert_ok(&api.call("GET", &format!("/api/v1/articles/{draft}"), None, None).await);
    assert_ok(&act(&api, &admin, &draft, "archive").await);
    let archived = api.call("GET", &format!("/api/v1/articles/{draft}"), None, None).await;
    assert_eq!(assert_ok(&archived)["status"], json!(2));
    let list = page(&api, "").await;
    assert_eq!(list["total"], json!(0), "archived articles are not listed");
    for bad in ["0", "abc", "-1"] {
        assert_error(
            &api.call("GET", &format!("/api/v1/articles/{bad}"), None, None).await,
            400,
            "PARAM_ERROR",
        );
    }
    assert_error(
        &api.call("GET", "/api/v1/articles/424242", None, None).await,
        404,
        "ARTICLE_NOT_FOUND",
    );
}

pub async fn every_field_has_its_spec_type(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Typed").await;
    let id = published(&api, &admin, json!({"title": "Types", "content": "# H", "coverImage": "https://example.com/c.png", "categoryId": cat, "isFeatured": 1})).await;
    let detail = api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await;
    let detail = assert_ok(&detail);
    for field in [
        "id",
        "title",
        "summary",
        "coverImage",
        "authorId",
        "categoryId",
        "publishTime",
        "content",
        "contentHtml",
        "tocJson",
        "createTime",
        "updateTime",
    ] {
        assert!(detail[field].is_string(), "{field} is a string: {detail}");
    }
    for field in ["isTop", "status", "isFeatured", "isCommentDisabled", "version"] {
        assert!(detail[field].is_i64(), "{field} is an integer: {detail}");
    }
    assert_eq!(detail["isFeatured"], json!(1));
    for field in ["publishTime", "createTime", "updateTime"] {
        let value = detail[field].as_str().unwrap();
        assert!(chrono_like(value), "{field}: {value}");
    }
    let list = page(&api, "").await;
    let item = &list["records"][0];
    for field in ["id", "title", "summary", "coverImage", "authorId", "categoryId", "publishTime"] {
        assert!(item[field].is_string(), "{field} is a string: {item}");
    }
    assert!(item["isTop"].is_i64());
    assert!(item.get("content").is_none() && item.get("contentHtml").is_none());
}

fn chrono_like(value: &str) -> bool {
    let bytes = value.as_bytes();
    value.len() == 19
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
        && bytes[16] == b':'
        && value.chars().filter(|c| c.is_ascii_digit()).count() == 14
}

pub async fn reads_cost_what_the_data_model_says(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Costly").await;
    let tag = taxonomy(&api, &admin, "tags", "Cheap").await;
    let id = published(
        &api,
        &admin,
        json!({"title": "Cost model", "content": "x", "categoryId": cat, "tagIds": [tag]}),
    )
    .await;
    published(&api, &admin, json!({"title": "Another cost", "content": "x", "categoryId": cat}))
        .await;
    api.follow_up(2).await;
    searched(&api, "/api/v1/articles?keyword=cost%20model", &["Cost model"]).await;
    // The detail counts its view (its first read by this reader): in Lambda a transaction made
    // with the read (one round trip), locally kept in memory for the next flush.
    let detail_calls = if api.on_stack().is_some() { 2 } else { 1 };
    // (path, calls, round trips): the list's statistics item is read with its page; a keyword
    // is searched in the index in memory, and its page's heads read in one batch.
    let cases = [
        (format!("/api/v1/articles/{id}"), detail_calls, 1),
        ("/api/v1/articles".to_string(), 2, 1),
        (format!("/api/v1/articles?categoryId={cat}&page=1&size=5"), 2, 2),
        (format!("/api/v1/articles?tagId={tag}"), 2, 2),
        ("/api/v1/articles?keyword=cost".to_string(), 1, 1),
        ("/api/v1/articles?keyword=cost%20model".to_string(), 1, 1),
    ];
    for (path, calls, round_trips) in cases {
        api.ctx.tally.flush().await.expect("views written");
        let (reply, counts) = api.calls_of_read(|| api.call("GET", &path, None, None)).await;
        assert_ok(&reply);
        assert_eq!(
            (counts.total(), api.exact(counts.round_trips)),
            (calls, api.exact(round_trips)),
            "{path}: {counts:?}"
        );
    }
    let (reply, _) =
        api.calls_of(api.call("GET", "/api/v1/articles?keyword=cost%20model", None, None)).await;
    assert_eq!(titles(assert_ok(&reply)), ["Cost model"]);
}

pub async fn the_admin_list_reads_every_state_and_the_total_in_one_round_trip(api: Api) {
    let admin = api.admin_token().await;
    create(&api, &admin, json!({"title": "Draft", "content": "x"})).await;
    published(&api, &admin, json!({"title": "Live", "content": "x"})).await;
    // (query, calls): one listing Query per state wanted, and the statistics item.
    for (query, calls) in [("", 4), ("?status=1", 2)] {
        let path = format!("/api/v1/admin/articles{query}");
        let (reply, counts) =
            api.calls_of_read(|| api.call("GET", &path, Some(&admin), None)).await;
        assert_ok(&reply);
        let seen = (counts.total(), api.exact(counts.round_trips));
        assert_eq!(seen, (calls, api.exact(1)), "{path}: {counts:?}");
    }
}

pub async fn a_full_page_of_a_category_or_tag_is_still_two_calls(api: Api) {
    use futures::StreamExt;
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Crowded").await;
    let tag = taxonomy(&api, &admin, "tags", "Busy").await;
    let body = |n: usize| json!({"title": format!("Crowd {n}"), "content": "x", "categoryId": cat, "tagIds": [tag]});
    let publishes = futures::stream::iter(0..101).map(|n| published(&api, &admin, body(n)));
    publishes.buffer_unordered(8).collect::<Vec<_>>().await;
    let cases = [
        (format!("categoryId={cat}&page=1&size=100"), 100),
        (format!("tagId={tag}&page=1&size=100"), 100),
        (format!("categoryId={cat}&page=2&size=100"), 1),
    ];
    for (query, records) in cases {
        let path = format!("/api/v1/articles?{query}");
        let (reply, counts) = api.calls_of(api.call("GET", &path, None, None)).await;
        let page = assert_ok(&reply);
        assert_eq!(counts.total(), 2, "{path}: {counts:?}");
        assert_eq!(page["total"], json!(101), "{path}");
        assert_eq!(page["records"].as_array().unwrap().len(), records, "{path}");
    }
}

pub async fn the_admin_list_shows_every_state_with_a_status_filter(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Draft", "content": "x"})).await;
    let live = published(&api, &admin, json!({"title": "Live", "content": "x"})).await;
    let old = published(&api, &admin, json!({"title": "Old", "content": "x"})).await;
    assert_ok(&act(&api, &admin, &old, "archive").await);
    let gone = create(&api, &admin, json!({"title": "Gone", "content": "x"})).await;
    api.call("DELETE", &format!("/api/v1/admin/articles/{gone}"), Some(&admin), None).await;
    let all = api.call("GET", "/api/v1/admin/articles", Some(&admin), None).await;
    let all = assert_ok(&all);
    assert_eq!(
        (titles(all), all["total"].clone()),
        (vec!["Old".to_string(), "Live".into(), "Draft".into()], json!(3))
    );
    let drafts = api.call("GET", "/api/v1/admin/articles?status=0", Some(&admin), None).await;
    let drafts = assert_ok(&drafts);
    assert_eq!((titles(drafts), drafts["total"].clone()), (vec!["Draft".to_string()], json!(1)));
    let paged = api.call("GET", "/api/v1/admin/articles?size=1&page=2", Some(&admin), None).await;
    assert_eq!(titles(assert_ok(&paged)), ["Live"]);
    let _ = (draft, live);
}

pub async fn a_repeated_public_read_is_kept_until_the_next_write(api: Api) {
    let admin = api.admin_token().await;
    let cat = taxonomy(&api, &admin, "categories", "Kept").await;
    let id =
        published(&api, &admin, json!({"title": "First words", "content": "x", "categoryId": cat}))
            .await;
    let detail = format!("/api/v1/articles/{id}");
    let read = |path: String| {
        let api = &api;
        async move { assert_ok(&api.call("GET", &path, None, None).await).clone() }
    };
    assert_eq!(read(detail.clone()).await["title"], json!("First words"));
    // The view it counted is committed now (which drops the answers kept so far), not by the
    // periodic flush during the metered read; the next read is kept again.
    api.ctx.tally.flush().await.expect("views written");
    assert_eq!(read(detail.clone()).await["title"], json!("First words"));
    let (again, counts) = api.calls_of(api.call("GET", &detail, None, None)).await;
    assert_eq!(assert_ok(&again)["title"], json!("First words"));
    // The embedded table tells when it has changed, so the answer is kept; DynamoDB cannot.
    if api.table.change_stamp().is_some() {
        assert_eq!(counts.total(), 0, "{counts:?}");
    } else {
        // In Lambda the read also tries its view's transaction (cancelled: the reader's view
        // is counted), unless the instance remembers the reader's marker.
        let most = if api.on_stack().is_some() { 2 } else { 1 };
        assert!(counts.query == 1 && counts.total() <= most, "{counts:?}");
    }

    let update = json!({"title": "Second words", "content": "x", "categoryId": cat, "version": 1});
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(update)).await);
    assert_eq!(read(detail.clone()).await["title"], json!("Second words"));
    assert_eq!(titles(&page(&api, "page=1&size=10").await), ["Second words"]);

    let tree = || async {
        let reply = api.call("GET", "/api/v1/categories/tree", None, None).await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        reply.body["data"][0]["name"].clone()
    };
    assert_eq!(tree().await, json!("Kept"));
    let rename = Some(json!({"name": "Renamed"}));
    let renamed =
        api.call("PUT", &format!("/api/v1/admin/categories/{cat}"), Some(&admin), rename).await;
    assert_eq!(renamed.status, 200);
    assert_eq!(tree().await, json!("Renamed"));
    assert_eq!(read(detail.clone()).await["categoryName"], json!("Renamed"));

    assert_ok(&act(&api, &admin, &id, "archive").await);
    assert_eq!(read(detail.clone()).await["status"], json!(2));
    api.call("DELETE", &path, Some(&admin), None).await;
    assert_error(&api.call("GET", &detail, None, None).await, 404, "ARTICLE_NOT_FOUND");
}
