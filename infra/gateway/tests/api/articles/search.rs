//! Keyword search reads a bounded number of items, however many articles carry its words.

use blog_api::{
    articles::read::MATCHES_READ,
    ports::table::{n, s, AttributeValue, Item, Write},
};
use serde_json::{json, Value};

use crate::{
    articles::cases::{assert_ok, published},
    support::Api,
};

/// More search-index links of `word` than a search reads: as if that many older articles (ids
/// from `first`, published in 2000, so every real article is newer) had it in their title.
async fn seed_links(api: &Api, word: &str, first: u64, count: u64) {
    let items: Vec<Item> = (first..first + count)
        .map(|id| {
            let item = [
                ("pk", s(format!("ARTICLE#{id}"))),
                ("sk", s(format!("A#WORD#{word}"))),
                ("gsi1pk", s(format!("WORD#{word}"))),
                ("gsi1sk", s(format!("0#2000-01-01T00:00:00#{id:016}"))),
                ("articleId", n(id as i64)),
                ("tagIds", AttributeValue::L(Vec::new())),
            ];
            Item::from(
                item.map(|(name, value)| (name.to_string(), value))
                    .into_iter()
                    .collect::<std::collections::HashMap<_, _>>(),
            )
        })
        .collect();
    for chunk in items.chunks(100) {
        let writes = chunk.iter().map(|item| Write::Put { item: item.clone(), condition: None });
        api.table.transact(writes.collect()).await.expect("links seeded");
    }
}

fn titles(page: &Value) -> Vec<&str> {
    page["records"].as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap()).collect()
}

pub async fn a_keyword_search_reads_at_most_1000_matches_in_all_its_words(api: Api) {
    let admin = api.admin_token().await;
    seed_links(&api, "plentiful", 9_000_000_000, MATCHES_READ as u64 + 200).await;
    published(&api, &admin, json!({"title": "Plentiful harvest", "content": "x"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(1050)).await;
    published(&api, &admin, json!({"title": "Plentiful and rare", "content": "x"})).await;
    // One word: its newest 1,000 links and the page's heads, whatever the number of matches;
    // `total` counts the matches read (1,000: the deepest a list is paged anyway).
    let path = "/api/v1/articles?keyword=plentiful&size=5";
    let (reply, counts) = api.calls_of(api.call("GET", path, None, None)).await;
    let page = assert_ok(&reply);
    assert_eq!(titles(page), ["Plentiful and rare", "Plentiful harvest"], "newest first");
    assert_eq!(page["total"], json!(MATCHES_READ), "{page}");
    let bound = MATCHES_READ as u64..=(MATCHES_READ + 5) as u64;
    assert!(bound.contains(&counts.items_read), "{path}: {counts:?}");
    assert_eq!(counts.total(), 2, "one Query and one BatchGetItem: {counts:?}");
    // Two words: 1,000 links in all (the newest 500 of each), the intersection exact within
    // them; five words of 1,200 links each: 1,000 links in all too.
    let path = "/api/v1/articles?keyword=plentiful%20rare";
    let (reply, counts) = api.calls_of(api.call("GET", path, None, None)).await;
    let page = assert_ok(&reply);
    assert_eq!((titles(page), page["total"].clone()), (vec!["Plentiful and rare"], json!(1)));
    assert!(counts.items_read <= (MATCHES_READ + 10) as u64, "{path}: {counts:?}");
    for word in ["abundant", "copious", "ample", "profuse"] {
        seed_links(&api, word, 9_000_000_000, MATCHES_READ as u64 + 200).await;
    }
    let path = "/api/v1/articles?keyword=plentiful%20abundant%20copious%20ample%20profuse";
    let (reply, counts) = api.calls_of(api.call("GET", path, None, None)).await;
    let page = assert_ok(&reply);
    // The newest 200 of each word: of `plentiful`'s, the two articles and 198 seeded links,
    // which the four other words' newest 200 hold.
    assert_eq!(page["total"], json!(MATCHES_READ / 5 - 2), "{page}");
    assert!(counts.items_read <= (MATCHES_READ + 10) as u64, "{path}: {counts:?}");
}
