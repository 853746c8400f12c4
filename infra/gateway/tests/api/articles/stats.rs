//! Reader statistics and author names on articles (comments-and-stats.md): what heads carry,
//! and that the administration never overwrites a counter.

use blog_api::{
    articles::{model::Status, read, store},
    ports::table::{Key, Update},
};
use serde_json::{json, Value};

use crate::{
    articles::cases::{assert_ok, create, published},
    support::Api,
};

fn head_key(id: &str) -> Key {
    Key::new(format!("ARTICLE#{id}"), "A#HEAD")
}

async fn public_detail(api: &Api, id: &str) -> Value {
    let reply = api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await;
    assert_ok(&reply).clone()
}

pub async fn articles_carry_their_authors_name_and_counters(api: Api) {
    let admin = api.admin_token().await;
    let profile = json!({"nickname": "Ada", "avatar": "https://example.com/ada.png"});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&admin), Some(profile)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let id = published(&api, &admin, json!({"title": "Signed", "content": "x"})).await;
    published(&api, &admin, json!({"title": "Signed too", "content": "x"})).await;
    let detail = public_detail(&api, &id).await;
    assert_eq!(detail["authorName"], json!("Ada"), "{detail}");
    assert_eq!(detail["authorAvatar"], json!("https://example.com/ada.png"));
    for counter in ["viewCount", "likeCount", "commentCount"] {
        assert!(detail[counter].is_i64(), "{counter} is an integer: {detail}");
    }
    let list = api.call("GET", "/api/v1/articles", None, None).await;
    let item = &assert_ok(&list)["records"][0];
    assert_eq!(item["authorName"], json!("Ada"));
    assert!(item.get("authorAvatar").is_none(), "only the detail carries the avatar: {item}");
    for counter in ["viewCount", "likeCount", "commentCount"] {
        assert_eq!(item[counter], json!(0), "{counter}: {item}");
    }
    let related = api.call("GET", &format!("/api/v1/articles/{id}/related"), None, None).await;
    for item in assert_ok(&related).as_array().unwrap() {
        assert_eq!(item["authorName"], json!("Ada"), "{item}");
        assert!(item["viewCount"].is_i64() && item["likeCount"].is_i64(), "{item}");
        assert!(item["commentCount"].is_i64(), "{item}");
    }
}

pub async fn an_author_without_a_nickname_shows_by_user_name(api: Api) {
    let admin = api.admin_token().await;
    let profile = json!({"nickname": ""});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&admin), Some(profile)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let id = create(&api, &admin, json!({"title": "Plain", "content": "x"})).await;
    let path = format!("/api/v1/admin/articles/{id}/publish");
    assert_ok(&api.call("PUT", &path, Some(&admin), None).await);
    assert_eq!(public_detail(&api, &id).await["authorName"], json!("admin"));
}

pub async fn a_counter_added_between_an_administration_read_and_its_write_survives(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Liked", "content": "x"})).await;
    let number: u64 = id.parse().unwrap();
    let table = api.table.as_ref();
    let before = read::load_head(table, number).await.unwrap().expect("the head");
    // A like and two comments land after the administration read the head...
    let added = Update::new().add("likeCount", 1).add("commentCount", 2);
    table.update(&head_key(&id), added, None).await.unwrap();
    // ...and its write, guarded by the version it read, still commits and keeps them.
    let mut after = before.clone();
    after.status = Status::Archived;
    after.version += 1;
    store::save(table, Some(&before), &after, None, Vec::new()).await.expect("the write");
    let detail = public_detail(&api, &id).await;
    assert_eq!((detail["likeCount"].clone(), detail["commentCount"].clone()), (json!(1), json!(2)));
    assert_eq!(detail["status"], json!(2));
    // So does an update through the API (which writes the head, the body and the links).
    let path = format!("/api/v1/admin/articles/{id}");
    let body = json!({"title": "Liked still", "content": "y"});
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(body)).await);
    let detail = public_detail(&api, &id).await;
    assert_eq!(detail["title"], json!("Liked still"));
    assert_eq!((detail["likeCount"].clone(), detail["commentCount"].clone()), (json!(1), json!(2)));
}

/// Reads the detail until `field` is `expected` (the worker runs within seconds; 30 s at most).
async fn eventually(api: &Api, id: &str, field: &str, expected: Value) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let seen = public_detail(api, id).await[field].clone();
        if seen == expected {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{field} still {seen}, not {expected}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

pub async fn a_renamed_author_shows_on_every_article_of_theirs(api: Api) {
    let admin = api.admin_token().await;
    let first = published(&api, &admin, json!({"title": "Before", "content": "x"})).await;
    let second = create(&api, &admin, json!({"title": "Draft meanwhile", "content": "x"})).await;
    // Another administrator's article keeps its own author.
    let (other_id, _) = api.user("other").await;
    let roles = json!({"roles": ["ROLE_USER", "ROLE_ADMIN"]});
    let path = format!("/api/v1/users/{other_id}");
    assert_eq!(api.call("PUT", &path, Some(&admin), Some(roles)).await.status, 200);
    let other = api.login("other", crate::support::PASSWORD).await;
    let theirs = published(&api, &other, json!({"title": "Theirs", "content": "x"})).await;
    api.start_worker().await;
    let profile = json!({"nickname": "Grace", "avatar": "https://example.com/grace.png"});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&admin), Some(profile)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    eventually(&api, &first, "authorName", json!("Grace")).await;
    eventually(&api, &first, "authorAvatar", json!("https://example.com/grace.png")).await;
    let path = format!("/api/v1/admin/articles/{second}/publish");
    assert_ok(&api.call("PUT", &path, Some(&admin), None).await);
    eventually(&api, &second, "authorName", json!("Grace")).await;
    assert_eq!(public_detail(&api, &theirs).await["authorName"], json!("other"));
    // A second rename wins over the first, whatever order the worker sees them in.
    let profile = json!({"nickname": "Hopper"});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&admin), Some(profile)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    eventually(&api, &first, "authorName", json!("Hopper")).await;
    eventually(&api, &second, "authorName", json!("Hopper")).await;
    let list = api.call("GET", "/api/v1/articles", None, None).await;
    let records = assert_ok(&list)["records"].as_array().unwrap().clone();
    let mut names: Vec<&str> = records.iter().map(|r| r["authorName"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["Hopper", "Hopper", "other"]);
}

pub async fn an_older_rename_delivered_late_changes_nothing(api: Api) {
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Ordered", "content": "x"})).await;
    let me = api.call("GET", "/api/v1/users/me", Some(&admin), None).await;
    let user_id = me.body["data"]["id"].to_string();
    let event = |name: &str, at: i64| {
        json!({"type": "AuthorRenamedEvent", "eventId": format!("e{at}"), "userId": user_id,
            "name": name, "avatar": "", "createdAt": at})
        .to_string()
    };
    let now = chrono_now_ms();
    let batch = [event("Newer", now + 1_000), event("Older", now), event("Newer", now + 1_000)];
    let messages: Vec<_> = batch
        .iter()
        .enumerate()
        .map(|(i, body)| blog_api::ports::events::Message {
            id: format!("rename-{i}"),
            body: body.clone(),
            receive_count: 1,
        })
        .collect();
    assert!(api.handle_batch(&messages).await.is_empty(), "every rename handled");
    assert_eq!(public_detail(&api, &id).await["authorName"], json!("Newer"));
}

fn chrono_now_ms() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    now.as_millis() as i64
}
