//! The calls a feed and the sitemap make, as docs/data-model.md says.

use serde_json::json;

use crate::{
    articles::cases::{published, taxonomy},
    support::Api,
};

pub async fn feeds_and_the_sitemap_cost_what_the_data_model_says(api: Api) {
    let admin = api.admin_token().await;
    let category = taxonomy(&api, &admin, "categories", "Costly").await;
    let tag = taxonomy(&api, &admin, "tags", "Cheap").await;
    let body = json!({"title": "Cost", "content": "x", "categoryId": category, "tagIds": [tag]});
    published(&api, &admin, body).await;
    published(&api, &admin, json!({"title": "Pinned", "content": "y", "isTop": 1})).await;
    api.follow_up(2).await;
    // (path, calls, round trips): the pinned and the other listing keys read together, then
    // the bodies (and heads) in one batch; a slug's marker before them, the name with them;
    // the sitemap's bitmaps (one Query of its own partition, no index) and slugs together,
    // then the one page of 1,000 ids that holds the articles; a file its page alone.
    let cases = [
        ("/api/v1/feeds/rss.xml", 3, 2),
        ("/api/v1/feeds/atom.xml", 3, 2),
        ("/api/v1/feeds/categories/costly/atom.xml", 5, 3),
        ("/api/v1/feeds/tags/cheap/rss.xml", 5, 3),
        ("/api/v1/sitemap.xml", 4, 2),
        ("/api/v1/sitemaps/pages.xml", 2, 1),
        ("/api/v1/sitemaps/articles-0.xml", 1, 1),
    ];
    for (path, calls, round_trips) in cases {
        let (fetched, counts) = api.calls_of_read(|| api.document(path)).await;
        assert_eq!(fetched.status, 200, "{path}");
        assert_eq!(
            (counts.total(), api.exact(counts.round_trips)),
            (calls, api.exact(round_trips)),
            "{path}: {counts:?}"
        );
    }
    let (fetched, counts) = api.calls_of(api.document("/api/v1/feeds/tags/nope/rss.xml")).await;
    assert_eq!((fetched.status, counts.total()), (404, 1), "an unknown slug: its marker only");
}
