//! Signing in and out: user name or e-mail, one answer for every bad credential, the failure
//! window and what a login costs.

use std::net::IpAddr;

use serde_json::json;

use crate::{
    accounts::cases::assert_error,
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
    let trips = api.exact(counts.round_trips);
    let seen = (counts.reads(), counts.put, counts.update, counts.delete, trips);
    // The account (name marker, then account), the attempt reserved on the address's and the
    // name's counters together, then both windows ended together (the attempt was their only
    // count).
    assert_eq!(seen, (2, 2, 0, 2, api.exact(4)), "{counts:?}");
    for _ in 0..4 {
        assert_eq!(failed_login(&api, "heidi").await.status, 401);
    }
    api.login("heidi", PASSWORD).await;
    for _ in 0..4 {
        assert_eq!(failed_login(&api, "heidi").await.status, 401);
    }
    api.login("heidi", PASSWORD).await;
}

/// Statuses of `count` simultaneous logins as `username` with `password`.
async fn burst(api: &Api, username: &str, password: &str, count: usize) -> Vec<u16> {
    let body = json!({"username": username, "password": password});
    let logins =
        (0..count).map(|_| api.call("POST", "/api/v1/auth/login", None, Some(body.clone())));
    futures::future::join_all(logins).await.into_iter().map(|reply| reply.status).collect()
}

pub async fn forty_simultaneous_wrong_passwords_check_five_and_refuse_the_rest(api: Api) {
    api.user("hank").await;
    let statuses = burst(&api, "hank", "Wrong1234", 40).await;
    let checked = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!((checked, refused), (5, 35), "{statuses:?}");
    let locked = api.call(
        "POST",
        "/api/v1/auth/login",
        None,
        Some(json!({
            "username": "hank", "password": PASSWORD,
        })),
    );
    assert_error(&locked.await, 429, "retry");
}

pub async fn the_right_password_in_a_burst_of_wrong_ones_is_checked_only_within_the_limit(
    api: Api,
) {
    api.user("hilda").await;
    let body = |password: &str| json!({"username": "hilda", "password": password});
    let wrong =
        (0..30).map(|_| api.call("POST", "/api/v1/auth/login", None, Some(body("Wrong1234"))));
    let right = api.call("POST", "/api/v1/auth/login", None, Some(body(PASSWORD)));
    let (wrong, right) = futures::join!(futures::future::join_all(wrong), right);
    let checked = wrong.iter().filter(|reply| reply.status == 401).count();
    assert!(wrong.iter().all(|reply| [401, 429].contains(&reply.status)));
    match right.status {
        // Refused: five wrong passwords were checked and nothing else.
        429 => assert_eq!(checked, 5),
        // Checked among the first five; its success ended the window, so at most four wrong
        // passwords were checked before it and five after.
        200 => assert!(checked <= 9, "{checked}"),
        other => panic!("the right password answered {other}: {:?}", right.body),
    }
}

pub async fn failures_from_one_address_do_not_lock_out_another(api: Api) {
    api.user("ida").await;
    let guesser: IpAddr = [127, 0, 0, 2].into();
    for _ in 0..5 {
        assert_error(&api.login_from(guesser, "ida", "Wrong1234").await, 401, "wrong");
    }
    assert_error(&api.login_from(guesser, "ida", PASSWORD).await, 429, "retry");
    let owner = api.login_from([127, 0, 0, 3].into(), "ida", PASSWORD).await;
    assert_eq!(owner.status, 200, "{:?}", owner.body);
}

pub async fn failures_from_many_addresses_reach_the_ceiling_of_the_name(mut api: Api) {
    api.set_parameter("LoginMaxFailuresPerName", "8").await;
    api.user("jack").await;
    for last in 2..=9u8 {
        let reply = api.login_from([127, 0, 0, last].into(), "jack", "Wrong1234").await;
        assert_error(&reply, 401, "wrong");
    }
    let locked = api.login_from([127, 0, 0, 10].into(), "jack@example.com", PASSWORD).await;
    assert_error(&locked, 429, "retry");
    let retry_after: u64 = locked.headers["retry-after"].parse().unwrap();
    assert!((1..=900).contains(&retry_after), "{retry_after}");
}

pub async fn an_over_long_login_is_refused_without_touching_the_store(api: Api) {
    api.user("kate").await;
    for length in [255, 3_000, 1_500_000] {
        let login = "k".repeat(length);
        let body = json!({"username": login, "password": PASSWORD});
        let request = api.call("POST", "/api/v1/auth/login", None, Some(body));
        let (reply, counts) = api.calls_of(request).await;
        assert_error(&reply, 401, "wrong");
        assert_eq!(counts.total(), 0, "{length} characters: {counts:?}");
    }
}

pub async fn a_disabled_account_with_its_password_answers_as_a_wrong_password(api: Api) {
    let (id, _) = api.user("leo").await;
    let admin = api.admin_token().await;
    let path = format!("/api/v1/users/{id}");
    api.call("PUT", &path, Some(&admin), Some(json!({"status": 0}))).await;
    let disabled = api.call(
        "POST",
        "/api/v1/auth/login",
        None,
        Some(json!({
            "username": "leo", "password": PASSWORD,
        })),
    );
    let disabled = disabled.await;
    let wrong = failed_login(&api, "leo").await;
    assert_error(&disabled, 401, "wrong");
    assert_eq!(disabled.body, wrong.body);
}

pub async fn logout_needs_a_token_and_answers_null(api: Api) {
    let (_, token) = api.user("ivan").await;
    assert_error(&api.call("POST", "/api/v1/auth/logout", None, None).await, 401, "token");
    let reply = api.call("POST", "/api/v1/auth/logout", Some(&token), None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, json!({"code": 0, "message": "success", "data": null}));
}
