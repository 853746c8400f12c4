//! Search: the list's `keyword` and `GET /api/v1/search`, read from the index the worker keeps.

use serde_json::{json, Value};

use crate::{
    articles::cases::{
        act, assert_error, assert_ok, create, page_titles, published, searched,
        searched_in_any_order, taxonomy,
    },
    support::Api,
};

/// A summary of 59 English words ending with `last`.
fn long_summary(last: &str) -> String {
    let filler = ["storage", "latency", "clients", "network", "queues", "caching", "indexes"];
    let mut words: Vec<&str> = (0..58).map(|n| filler[n % filler.len()]).collect();
    words.push(last);
    words.join(" ")
}

/// A Chinese summary of about 300 characters ending with `last`.
fn long_chinese_summary(last: &str) -> String {
    format!("{}{last}。", "本文介绍分布式系统中的存储与缓存设计，".repeat(15))
}

pub async fn a_keyword_matches_every_word_of_title_and_summary_however_late_in_any_script(
    api: Api,
) {
    let admin = api.admin_token().await;
    let english = json!({"title": "Operating notes", "content": "Airships and dirigibles.",
        "summary": long_summary("zeppelin")});
    let chinese = json!({"title": "系统设计笔记", "content": "x",
        "summary": long_chinese_summary("量子计算")});
    let pinned = json!({"title": "Rust release notes", "content": "x", "isTop": 1});
    for body in [english, chinese, pinned] {
        published(&api, &admin, body).await;
    }
    api.follow_up(3).await;
    // The 59th word of a summary, and the last characters of a 300-character one.
    searched(&api, "/api/v1/articles?keyword=zeppelin", &["Operating notes"]).await;
    let cjk = "/api/v1/articles?keyword=%E9%87%8F%E5%AD%90%E8%AE%A1%E7%AE%97";
    searched(&api, cjk, &["系统设计笔记"]).await;
    // Fullwidth and upper case fold; the last word matches as a prefix; every word must match.
    let fullwidth = "/api/v1/articles?keyword=%EF%BC%B2%EF%BC%B5%EF%BC%B3%EF%BC%B4";
    searched(&api, fullwidth, &["Rust release notes"]).await;
    searched(&api, "/api/v1/articles?keyword=zepp", &["Operating notes"]).await;
    searched(&api, "/api/v1/articles?keyword=notes", &["Rust release notes", "Operating notes"])
        .await;
    searched(&api, "/api/v1/articles?keyword=notes%20zeppelin", &["Operating notes"]).await;
    let none = searched(&api, "/api/v1/articles?keyword=notes%20haskell", &[]).await;
    assert_eq!(none["total"], json!(0));
    // The body is not the keyword's (the spec matches it against title and summary); the
    // search's it is.
    searched(&api, "/api/v1/search?q=dirigibles", &["Operating notes"]).await;
    searched(&api, "/api/v1/articles?keyword=dirigibles", &[]).await;
}

pub async fn a_search_ranks_title_matches_first_and_marks_where_its_words_matched(api: Api) {
    let admin = api.admin_token().await;
    let security = taxonomy(&api, &admin, "categories", "Security").await;
    let java = taxonomy(&api, &admin, "tags", "Java").await;
    let long_body = format!(
        "{}\n\nFinally the borrow checker explains itself.",
        "Paragraph about memory and ownership. ".repeat(60)
    );
    let bodies = [
        json!({"title": "Borrow checker explained", "content": "Short body."}),
        json!({"title": "Misc notes", "content": long_body}),
        json!({"title": "Java 安全管理器", "content": "沙箱与权限。", "categoryId": security,
            "tagIds": [java]}),
        json!({"title": "如何配置策略", "content": "在java中启用安全管理器的步骤。",
            "categoryId": security}),
        json!({"title": "<b>Bold</b> claims", "content": "x"}),
    ];
    for body in bodies {
        published(&api, &admin, body).await;
    }
    api.follow_up(5).await;
    let page = searched(
        &api,
        "/api/v1/search?q=borrow%20checker",
        &["Borrow checker explained", "Misc notes"],
    )
    .await;
    let (first, second) = (&page["records"][0], &page["records"][1]);
    assert!(first["score"].as_f64() > second["score"].as_f64(), "{page}");
    assert_eq!(
        first["highlights"]["title"],
        json!("<mark>Borrow</mark> <mark>checker</mark> explained")
    );
    assert_eq!(second["highlights"]["title"], Value::Null);
    let content = second["highlights"]["content"].as_str().expect("a body fragment");
    assert!(content.contains("<mark>borrow</mark> <mark>checker</mark>"), "{content}");
    assert!(content.chars().count() <= 200, "{content}");
    // A list item's fields, with the search's own.
    for field in ["id", "summary", "publishTime", "authorName", "tags", "viewCount"] {
        assert!(first.get(field).is_some(), "{field}: {first}");
    }
    assert_eq!((page["total"].clone(), page["size"].clone()), (json!(2), json!(10)));
    // Chinese: a title match before a body-only one; any run of characters matches.
    let cjk = "/api/v1/search?q=%E5%AE%89%E5%85%A8";
    let page = searched(&api, cjk, &["Java 安全管理器", "如何配置策略"]).await;
    assert_eq!(page["records"][0]["highlights"]["title"], json!("Java <mark>安全</mark>管理器"));
    let fragment = page["records"][1]["highlights"]["content"].as_str().unwrap();
    assert!(fragment.contains("<mark>安全</mark>"), "{fragment}");
    // Category and tag names are searched (both match the category's name alike: newest first,
    // and the two may have been published within one second); the filters are exact.
    let both = ["Java 安全管理器", "如何配置策略"];
    searched_in_any_order(&api, "/api/v1/search?q=security", &both).await;
    let filtered = format!("/api/v1/search?q=%E5%AE%89%E5%85%A8&tagId={java}");
    searched(&api, &filtered, &["Java 安全管理器"]).await;
    let other = format!("/api/v1/search?q=borrow&categoryId={security}");
    searched(&api, &other, &[]).await;
    // Search as you type, one typo in a long word, and text shown as text.
    searched(&api, "/api/v1/search?q=borrow%20chec", &["Borrow checker explained", "Misc notes"])
        .await;
    searched(&api, "/api/v1/search?q=explaned", &["Borrow checker explained"]).await;
    let bold = searched(&api, "/api/v1/search?q=bold", &["<b>Bold</b> claims"]).await;
    assert_eq!(
        bold["records"][0]["highlights"]["title"],
        json!("&lt;b&gt;<mark>Bold</mark>&lt;/b&gt; claims")
    );
    // Paging: exact totals on every page.
    let second_page =
        searched(&api, "/api/v1/search?q=borrow&size=1&page=2", &["Misc notes"]).await;
    assert_eq!((second_page["total"].clone(), second_page["pages"].clone()), (json!(2), json!(2)));
}

pub async fn a_change_is_searched_after_every_step_of_an_articles_life(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Quasar survey", "content": "x"})).await;
    searched(&api, "/api/v1/search?q=quasar", &[]).await;
    assert_ok(&act(&api, &admin, &draft, "publish").await);
    api.follow_up(1).await;
    searched(&api, "/api/v1/search?q=quasar", &["Quasar survey"]).await;
    let update = json!({"title": "Pulsar survey", "content": "x", "version": 1});
    let path = format!("/api/v1/admin/articles/{draft}");
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(update)).await);
    api.follow_up(1).await;
    searched(&api, "/api/v1/search?q=pulsar", &["Pulsar survey"]).await;
    searched(&api, "/api/v1/search?q=quasar", &[]).await;
    for (action, expected) in [("archive", vec![]), ("unarchive", vec!["Pulsar survey"])] {
        assert_ok(&act(&api, &admin, &draft, action).await);
        api.follow_up(1).await;
        searched(&api, "/api/v1/search?q=pulsar", &expected).await;
    }
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    api.follow_up(1).await;
    searched(&api, "/api/v1/search?q=pulsar", &[]).await;
    searched(&api, "/api/v1/articles?keyword=pulsar", &[]).await;
}

pub async fn semantic_and_hybrid_search_rank_by_meaning_within_a_budget_per_client(api: Api) {
    let admin = api.admin_token().await;
    let bodies = [
        json!({"title": "Sourdough starter", "content": "Flour, water, wild yeast and patience make bread rise."}),
        json!({"title": "Tuning database indexes", "content": "Query plans, index selectivity and table scans."}),
    ];
    for body in bodies {
        published(&api, &admin, body).await;
    }
    api.follow_up(2).await;
    searched(&api, "/api/v1/search?q=sourdough", &["Sourdough starter"]).await;
    let semantic = "/api/v1/search?q=baking%20bread%20with%20yeast&mode=semantic";
    let reply = api.call("GET", semantic, None, None).await;
    let page = assert_ok(&reply);
    assert_eq!(page_titles(page)[0], "Sourdough starter", "{page}");
    // Ranked by meaning; the words found in it are marked still.
    let content = page["records"][0]["highlights"]["content"].as_str().unwrap_or_default();
    assert!(content.contains("<mark>yeast</mark>"), "{page}");
    let hybrid = "/api/v1/search?q=index%20selectivity&mode=hybrid";
    let reply = api.call("GET", hybrid, None, None).await;
    assert_eq!(page_titles(assert_ok(&reply))[0], "Tuning database indexes");
    // New query embeddings are limited per client, 20 in each minute of the clock: new
    // questions are refused once a window is full, within two windows' worth whatever minute
    // boundary the questions cross (the exact count per window is the unit test's, on a fixed
    // clock: query_vectors.rs). A query embedded before is free.
    let mut limited = None;
    for n in 0..=2 * blog_api::articles::search::query_vectors::PER_CLIENT {
        let path = format!("/api/v1/search?q=question%20number%20{n}&mode=semantic");
        let reply = api.call("GET", &path, None, None).await;
        if reply.status == 429 {
            limited = Some(reply);
            break;
        }
        assert_ok(&reply);
    }
    let limited = limited.expect("new questions are refused once the client's window is full");
    assert_error(&limited, 429, "TOO_MANY_REQUESTS");
    let retry: u64 = limited.headers["retry-after"].parse().expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    assert_ok(&api.call("GET", semantic, None, None).await);
    let text = api.call("GET", "/api/v1/search?q=one%20more", None, None).await;
    assert_ok(&text);
}

pub async fn a_query_with_nothing_to_embed_finds_nothing_by_meaning_and_its_words_in_hybrid(
    api: Api,
) {
    let admin = api.admin_token().await;
    published(&api, &admin, json!({"title": "The sourdough starter", "content": "x"})).await;
    api.follow_up(1).await;
    searched(&api, "/api/v1/search?q=sourdough", &["The sourdough starter"]).await;
    // Punctuation, and stop words only: no vector to rank by (the local embedder's zeros).
    for q in ["%21%3F%21", "the%20and%20of"] {
        let semantic = format!("/api/v1/search?q={q}&mode=semantic");
        let page = assert_ok(&api.call("GET", &semantic, None, None).await).clone();
        assert_eq!((page["total"].clone(), page["records"].clone()), (json!(0), json!([])));
    }
    let hybrid = "/api/v1/search?q=the%20sourdough&mode=hybrid";
    let page = assert_ok(&api.call("GET", hybrid, None, None).await).clone();
    assert_eq!(page_titles(&page), ["The sourdough starter"]);
}

pub async fn search_parameters_are_checked_in_the_articles_envelope(api: Api) {
    let long = "%E5%AE%89".repeat(201);
    for query in [
        String::new(),
        "q=".into(),
        "q=%20%20".into(),
        format!("q={long}"),
        "q=rust&mode=fuzzy".into(),
        "q=rust&size=51".into(),
        "q=rust&size=0".into(),
        "q=rust&page=0".into(),
        "q=rust&page=21&size=50".into(),
        "q=rust&categoryId=abc".into(),
        "q=rust&tagId=-1".into(),
    ] {
        let reply = api.call("GET", &format!("/api/v1/search?{query}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
    }
    // Words of one letter or punctuation only: nothing to search, nothing found.
    for query in ["q=a", "q=%21%3F"] {
        let reply = api.call("GET", &format!("/api/v1/search?{query}"), None, None).await;
        assert_eq!(assert_ok(&reply)["total"], json!(0));
    }
}

pub async fn a_renamed_category_or_tag_is_searched_under_its_new_name(api: Api) {
    let admin = api.admin_token().await;
    let category = taxonomy(&api, &admin, "categories", "Astronomy").await;
    let tag = taxonomy(&api, &admin, "tags", "Telescopes").await;
    let body = json!({"title": "Night sky", "content": "x", "categoryId": category,
        "tagIds": [tag]});
    published(&api, &admin, body).await;
    api.follow_up(1).await;
    searched(&api, "/api/v1/search?q=astronomy%20telescopes", &["Night sky"]).await;
    let renames = [
        (format!("/api/v1/admin/categories/{category}"), json!({"name": "Cosmology"})),
        (format!("/api/v1/admin/tags/{tag}"), json!({"name": "Observatories"})),
    ];
    for (path, body) in renames {
        assert_eq!(api.call("PUT", &path, Some(&admin), Some(body)).await.status, 200);
    }
    // Each rename wrote the article's ArticleRelabelledEvent to the outbox; the sweep sends
    // them, and the worker brings the article's search document up to date.
    // (A sweep leaves the events of its own millisecond to their request: swept again.)
    let mut swept = 0;
    while swept < 2 {
        let delivered = api.sweep_outbox().await.unwrap();
        assert!(delivered > 0 || swept > 0, "the renames wrote their events");
        swept += delivered;
    }
    assert_eq!(swept, 2, "one event per rename");
    api.follow_up(2).await;
    searched(&api, "/api/v1/search?q=cosmology%20observatories", &["Night sky"]).await;
    searched(&api, "/api/v1/search?q=astronomy", &[]).await;
}
