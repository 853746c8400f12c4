//! Scheduled publishing: a draft given a future time is published at that time, once, with its
//! event; what the schedule takes and refuses; a cancelled, moved or overtaken schedule never
//! fires.

use chrono::{Duration, Utc};
use futures::join;
use serde_json::{json, Value};

use crate::{
    articles::cases::{act, assert_error, assert_ok, create, published},
    support::{Api, Reply},
};

fn in_seconds(seconds: i64) -> String {
    (Utc::now() + Duration::seconds(seconds)).format("%Y-%m-%dT%H:%M:%S").to_string()
}

/// Far enough ahead that the calls made before it falls due finish first, even on a loaded
/// machine.
const LEAD_SECONDS: i64 = 6;

/// Waits until a second past `at` (a `publishAt` of [`in_seconds`]).
async fn sleep_past(at: &str) {
    let at = chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M:%S").unwrap().and_utc();
    let left = (at + Duration::seconds(1) - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(left).await;
}

async fn schedule(api: &Api, admin: &str, id: &str, at: &str) -> Reply {
    let path = format!("/api/v1/admin/articles/{id}/schedule");
    api.call("PUT", &path, Some(admin), Some(json!({"publishAt": at}))).await
}

async fn unschedule(api: &Api, admin: &str, id: &str) -> Reply {
    api.call("DELETE", &format!("/api/v1/admin/articles/{id}/schedule"), Some(admin), None).await
}

async fn admin_detail(api: &Api, admin: &str, id: &str) -> Value {
    let reply = api.call("GET", &format!("/api/v1/admin/articles/{id}"), Some(admin), None).await;
    assert_ok(&reply).clone()
}

/// Every ArticlePublishedEvent of article `id` the API emits from now until 10 s pass quietly.
async fn events_of(api: &Api, id: &str) -> Vec<Value> {
    let mut events = Vec::new();
    while let Some(event) = api.next_event().await {
        if event["articleId"] == json!(id) {
            events.push(event);
        }
    }
    events
}

pub async fn a_scheduled_draft_is_published_at_its_time_once_with_its_event(api: Api) {
    let admin = api.admin_token().await;
    let id = create(&api, &admin, json!({"title": "Timed", "content": "On time."})).await;
    let at = in_seconds(LEAD_SECONDS);
    assert_eq!(assert_ok(&schedule(&api, &admin, &id, &at).await), &json!(at));
    let draft = admin_detail(&api, &admin, &id).await;
    assert_eq!((draft["status"].clone(), draft["scheduledAt"].clone()), (json!(0), json!(at)));
    let public = format!("/api/v1/articles/{id}");
    assert_error(&api.call("GET", &public, None, None).await, 404, "ARTICLE_NOT_FOUND");
    // Two runs at once, as overlapping runs of the sweep: each waits for the time (it falls
    // due within their period), and the article is published by one of them.
    let (first, second) = join!(api.run_schedule(), api.run_schedule());
    let runs = first.unwrap() + second.unwrap();
    // On the stack its own schedule may have run meanwhile (then it published it).
    assert!(runs <= 1, "published {runs} times");
    let detail = assert_ok(&api.call("GET", &public, None, None).await).clone();
    let publish_time = detail["publishTime"].as_str().unwrap().to_string();
    assert!(publish_time >= at, "published at {publish_time}, scheduled at {at}");
    assert!(publish_time <= in_seconds(0), "{publish_time}");
    assert_eq!(detail["scheduledAt"], Value::Null);
    let events = events_of(&api, &id).await;
    assert_eq!(events.len(), 1, "one ArticlePublishedEvent: {events:?}");
    assert_eq!(events[0]["publishTime"], json!(publish_time));
    assert_eq!(api.run_schedule().await.unwrap(), 0, "nothing is left to publish");
}

pub async fn a_schedule_needs_a_future_time_and_a_draft(api: Api) {
    let admin = api.admin_token().await;
    let draft = create(&api, &admin, json!({"title": "Later", "content": "x"})).await;
    for body in [
        json!({}),
        json!({"publishAt": "2020-01-01T00:00:00"}),
        json!({"publishAt": in_seconds(-5)}),
        json!({"publishAt": "next tuesday"}),
        json!({"publishAt": 1_900_000_000}),
    ] {
        let path = format!("/api/v1/admin/articles/{draft}/schedule");
        let reply = api.call("PUT", &path, Some(&admin), Some(body.clone())).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        assert!(reply.body["message"].as_str().unwrap().contains("publishAt"), "{body}");
    }
    let zoned = (Utc::now() + Duration::days(1)).format("%Y-%m-%dT%H:%M:%S+00:00").to_string();
    let reply = schedule(&api, &admin, &draft, &zoned).await;
    assert_eq!(assert_ok(&reply), &json!(&zoned[..19]), "an RFC 3339 time is kept as UTC");

    let live = published(&api, &admin, json!({"title": "Live", "content": "x"})).await;
    let later = in_seconds(86_400);
    assert_error(&schedule(&api, &admin, &live, &later).await, 409, "ARTICLE_ALREADY_PUBLISHED");
    assert_ok(&act(&api, &admin, &live, "archive").await);
    assert_error(&schedule(&api, &admin, &live, &later).await, 409, "ARTICLE_STATUS_INVALID");
    let gone = create(&api, &admin, json!({"title": "Gone", "content": "x"})).await;
    let path = format!("/api/v1/admin/articles/{gone}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    for id in [gone.as_str(), "919191"] {
        assert_error(&schedule(&api, &admin, id, &later).await, 404, "ARTICLE_NOT_FOUND");
        assert_error(&unschedule(&api, &admin, id).await, 404, "ARTICLE_NOT_FOUND");
    }
    let (_, user) = api.user("scheduler").await;
    assert_error(&schedule(&api, &user, &draft, &later).await, 403, "ACCESS_DENIED");
    let anonymous = format!("/api/v1/admin/articles/{draft}/schedule");
    let reply = api.call("PUT", &anonymous, None, Some(json!({"publishAt": later}))).await;
    assert_error(&reply, 401, "UNAUTHORIZED");
    let reply = api.call("PUT", "/api/v1/admin/articles/x/schedule", Some(&admin), None).await;
    assert_error(&reply, 400, "PARAM_ERROR");
}

pub async fn a_cancelled_moved_or_overtaken_schedule_does_not_fire(api: Api) {
    let admin = api.admin_token().await;
    let cancelled = create(&api, &admin, json!({"title": "Cancelled", "content": "x"})).await;
    let moved = create(&api, &admin, json!({"title": "Moved", "content": "x"})).await;
    let overtaken = create(&api, &admin, json!({"title": "Overtaken", "content": "x"})).await;
    let soon = in_seconds(LEAD_SECONDS);
    for id in [&cancelled, &moved, &overtaken] {
        assert_ok(&schedule(&api, &admin, id, &soon).await);
    }
    assert_ok(&unschedule(&api, &admin, &cancelled).await);
    assert_ok(&unschedule(&api, &admin, &cancelled).await);
    assert_eq!(admin_detail(&api, &admin, &cancelled).await["scheduledAt"], Value::Null);
    let tomorrow = in_seconds(86_400);
    assert_ok(&schedule(&api, &admin, &moved, &tomorrow).await);
    // An update keeps the schedule; publishing by hand ends it.
    let path = format!("/api/v1/admin/articles/{moved}");
    let body = json!({"title": "Moved again", "content": "y"});
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(body)).await);
    assert_eq!(admin_detail(&api, &admin, &moved).await["scheduledAt"], json!(tomorrow));
    assert_ok(&act(&api, &admin, &overtaken, "publish").await);
    let overtaken_at = admin_detail(&api, &admin, &overtaken).await;
    assert_eq!(overtaken_at["scheduledAt"], Value::Null);
    sleep_past(&soon).await;
    assert_eq!(api.run_schedule().await.unwrap(), 0);
    for id in [&cancelled, &moved] {
        assert_eq!(admin_detail(&api, &admin, id).await["status"], json!(0), "{id} is a draft");
    }
    let again = admin_detail(&api, &admin, &overtaken).await;
    assert_eq!(again["publishTime"], overtaken_at["publishTime"], "published once, by hand");
    assert_eq!(events_of(&api, &overtaken).await.len(), 1, "one event: the manual publish");
    assert_error(&unschedule(&api, &admin, &overtaken).await, 409, "ARTICLE_ALREADY_PUBLISHED");
}
