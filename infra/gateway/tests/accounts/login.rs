//! Signing in and out: user name or e-mail, one answer for every bad credential, the failure
//! window and what a login costs.

use serde_json::json;

use crate::{
    cases::assert_error,
    support::{Api, PASSWORD},
};

pub async fn login_accepts_the_user_name_or_the_email(api: Api) {
    let (id, _) = api.user("erin").await;
    for login in ["erin", "ERIN", "erin@example.com"] {
        let reply = api
            .call(
                "POST",
                "/api/v1/auth/login",
                None,
                Some(json!({"username": login, "password": PASSWORD})),
            )
            .await;
        assert_eq!(reply.status, 200, "{login}: {:?}", reply.body);
        let data = &reply.body["data"];
        assert_eq!(data["tokenType"], json!("Bearer"));
        assert_eq!(data["expiresIn"], json!(7200));
        assert_eq!(data["user"], json!({"id": id, "username": "erin", "roles": ["ROLE_USER"]}));
        assert_eq!(data["token"].as_str().unwrap().split('.').count(), 3);
    }
}

pub async fn a_wrong_password_and_an_unknown_user_get_the_same_401(api: Api) {
    api.user("frank").await;
    let wrong = failed_login(&api, "frank").await;
    let unknown = failed_login(&api, "nobody").await;
    assert_error(&wrong, 401, "wrong");
    assert_eq!(wrong.body, unknown.body);
}

async fn failed_login(api: &Api, username: &str) -> crate::support::Reply {
    api.call(
        "POST",
        "/api/v1/auth/login",
        None,
        Some(json!({"username": username, "password": "Wrong1234"})),
    )
    .await
}

pub async fn five_failed_logins_lock_the_account_for_the_window(api: Api) {
    api.user("grace").await;
    for _ in 0..5 {
        assert_eq!(failed_login(&api, "grace").await.status, 401);
    }
    let body = json!({"username": "grace@example.com", "password": PASSWORD});
    let locked = api.call("POST", "/api/v1/auth/login", None, Some(body)).await;
    assert_error(&locked, 429, "retry");
    let retry_after: u64 = locked.headers["retry-after"].parse().unwrap();
    assert!((1..=900).contains(&retry_after), "{retry_after}");
}

pub async fn a_successful_login_resets_the_failure_count(api: Api) {
    api.user("heidi").await;
    let (_, counts) = api.calls_of(api.login("heidi", PASSWORD)).await;
    let seen = (counts.reads(), counts.delete, counts.total());
    assert_eq!(seen, (3, 0, 3), "no failure counted, nothing to reset: {counts:?}");
    for _ in 0..4 {
        assert_eq!(failed_login(&api, "heidi").await.status, 401);
    }
    let (_, counts) = api.calls_of(api.login("heidi", PASSWORD)).await;
    assert_eq!(counts.delete, 1, "the window ends: {counts:?}");
    for _ in 0..4 {
        assert_eq!(failed_login(&api, "heidi").await.status, 401);
    }
    api.login("heidi", PASSWORD).await;
}

pub async fn logout_needs_a_token_and_answers_null(api: Api) {
    let (_, token) = api.user("ivan").await;
    assert_error(&api.call("POST", "/api/v1/auth/logout", None, None).await, 401, "token");
    let reply = api.call("POST", "/api/v1/auth/logout", Some(&token), None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, json!({"code": 0, "message": "success", "data": null}));
}
