//! The cases, written once against [`Api`].

use futures::future::join_all;
use serde_json::{json, Value};

use crate::support::{Api, ADMIN, PASSWORD};

pub fn assert_error(reply: &crate::support::Reply, status: u16, needle: &str) {
    assert_eq!(reply.status, status, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(status), "{:?}", reply.body);
    assert_eq!(reply.body["data"], Value::Null);
    let message = reply.body["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "message {message:?} should mention {needle:?}");
}

pub async fn registration_returns_the_new_account_with_role_user(api: Api) {
    let body = json!({"username": "alice", "password": PASSWORD, "email": "alice@example.com", "nickname": "Alice"});
    let reply = api.call("POST", "/api/v1/auth/register", None, Some(body)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["code"], json!(0));
    assert_eq!(reply.body["message"], json!("success"));
    let user = &reply.body["data"];
    assert!(user["id"].as_u64().unwrap() >= 1);
    assert_eq!(user["username"], json!("alice"));
    assert_eq!(user["email"], json!("alice@example.com"));
    assert_eq!(user["nickname"], json!("Alice"));
    assert_eq!(user["roles"], json!(["ROLE_USER"]));
    assert_eq!(user["status"], json!(1));
    assert!(user.get("password").is_none() && user.get("passwordHash").is_none());

    let defaulted = api.register("bob_2").await;
    assert_eq!(
        defaulted.body["data"]["nickname"],
        json!("bob_2"),
        "nickname defaults to the user name"
    );
}

pub async fn registration_names_the_field_that_breaks_a_rule(api: Api) {
    let base = json!({"username": "carol", "password": PASSWORD, "email": "carol@example.com"});
    let cases = [
        ("username", json!("ab")),
        ("username", json!("bad-name")),
        ("username", json!("x".repeat(21))),
        ("password", json!("short1A")),
        ("password", json!("alllowercase1")),
        ("password", json!("NoDigitsHere")),
        ("email", json!("not-an-email")),
        ("nickname", json!("n".repeat(31))),
        ("username", json!(42)),
    ];
    for (field, value) in cases {
        let mut body = base.clone();
        body[field] = value.clone();
        let reply = api.call("POST", "/api/v1/auth/register", None, Some(body)).await;
        assert_error(&reply, 400, field);
    }
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("email");
    assert_error(
        &api.call("POST", "/api/v1/auth/register", None, Some(missing)).await,
        400,
        "email",
    );
    let malformed = api
        .raw(
            "POST",
            "/api/v1/auth/register",
            &[("content-type", "application/json")],
            Some("{\"username\":".into()),
        )
        .await;
    assert_error(&malformed, 400, "JSON");
    let empty = api.raw("POST", "/api/v1/auth/register", &[], None).await;
    assert_error(&empty, 400, "body");
    let mut extra = base.clone();
    extra["favouriteColour"] = json!("blue");
    assert_eq!(
        api.call("POST", "/api/v1/auth/register", None, Some(extra)).await.status,
        200,
        "unknown fields are ignored"
    );
}

pub async fn user_names_and_emails_are_unique_case_insensitively(api: Api) {
    assert_eq!(api.register("dave").await.status, 200);
    let same_name = json!({"username": "DAVE", "password": PASSWORD, "email": "other@example.com"});
    assert_error(
        &api.call("POST", "/api/v1/auth/register", None, Some(same_name)).await,
        400,
        "username",
    );
    let same_email =
        json!({"username": "dave2", "password": PASSWORD, "email": "Dave@Example.com"});
    assert_error(
        &api.call("POST", "/api/v1/auth/register", None, Some(same_email)).await,
        400,
        "email",
    );
}

pub async fn me_shows_the_profile_without_the_password(api: Api) {
    let (id, token) = api.user("judy").await;
    let reply = api.call("GET", "/api/v1/users/me", Some(&token), None).await;
    assert_eq!(reply.status, 200);
    let me = &reply.body["data"];
    assert_eq!(me["id"], json!(id));
    assert_eq!(me["username"], json!("judy"));
    assert_eq!(me["status"], json!(1));
    assert_eq!(me["roles"], json!(["ROLE_USER"]));
    assert_eq!(me["avatar"], json!(""));
    let created = me["createTime"].as_str().unwrap();
    assert_eq!(created.len(), 19, "YYYY-MM-DDTHH:MM:SS: {created}");
    assert_eq!(&created[10..11], "T");
    let text = reply.body.to_string();
    assert!(!text.contains("argon2") && !text.to_lowercase().contains("password"));
}

pub async fn the_profile_costs_one_read_whether_the_token_check_read_the_account_or_not(api: Api) {
    let (id, token) = api.user("oscar").await;
    api.forget_principal(id);
    let me = || api.call("GET", "/api/v1/users/me", Some(&token), None);
    let (reply, counts) = api.calls_of(me()).await;
    assert_eq!(reply.body["data"]["id"], json!(id));
    assert_eq!((counts.get, counts.total()), (1, 1), "account status not cached: {counts:?}");
    let (reply, counts) = api.calls_of(me()).await;
    assert_eq!(reply.body["data"]["username"], json!("oscar"));
    assert_eq!((counts.get, counts.total()), (1, 1), "account status cached: {counts:?}");
}

pub async fn a_user_edits_their_profile_but_not_their_name_or_status(api: Api) {
    let (_, token) = api.user("ken").await;
    let change = json!({"nickname": "Kenny", "avatar": "https://example.com/k.png", "username": "ken", "status": 1});
    let reply = api.call("PUT", "/api/v1/users/me", Some(&token), Some(change)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["data"]["nickname"], json!("Kenny"));
    assert_eq!(reply.body["data"]["avatar"], json!("https://example.com/k.png"));
    let me = api.call("GET", "/api/v1/users/me", Some(&token), None).await;
    assert_eq!(me.body["data"]["nickname"], json!("Kenny"));

    let rename = api
        .call("PUT", "/api/v1/users/me", Some(&token), Some(json!({"username": "kenneth"})))
        .await;
    assert_error(&rename, 400, "username");
    let status =
        api.call("PUT", "/api/v1/users/me", Some(&token), Some(json!({"status": 0}))).await;
    assert_error(&status, 400, "status");
    let avatar = api
        .call(
            "PUT",
            "/api/v1/users/me",
            Some(&token),
            Some(json!({"avatar": "javascript:alert(1)"})),
        )
        .await;
    assert_error(&avatar, 400, "avatar");
    let nickname = api
        .call("PUT", "/api/v1/users/me", Some(&token), Some(json!({"nickname": "n".repeat(31)})))
        .await;
    assert_error(&nickname, 400, "nickname");
}

pub async fn an_email_change_keeps_uniqueness(api: Api) {
    let (_, token) = api.user("leo").await;
    api.user("mia").await;
    let taken = api
        .call("PUT", "/api/v1/users/me", Some(&token), Some(json!({"email": "MIA@example.com"})))
        .await;
    assert_error(&taken, 400, "email");
    let moved = api
        .call(
            "PUT",
            "/api/v1/users/me",
            Some(&token),
            Some(json!({"email": "leo.new@example.com"})),
        )
        .await;
    assert_eq!(moved.status, 200, "{:?}", moved.body);
    assert_eq!(moved.body["data"]["email"], json!("leo.new@example.com"));
    api.login("leo.new@example.com", PASSWORD).await;
    let old_free = json!({"username": "leo2", "password": PASSWORD, "email": "leo@example.com"});
    assert_eq!(api.call("POST", "/api/v1/auth/register", None, Some(old_free)).await.status, 200);
    let new_taken =
        json!({"username": "leo3", "password": PASSWORD, "email": "leo.new@example.com"});
    assert_error(
        &api.call("POST", "/api/v1/auth/register", None, Some(new_taken)).await,
        400,
        "email",
    );
}

pub async fn only_administrators_manage_other_accounts(api: Api) {
    let (id, token) = api.user("nina").await;
    let (other, _) = api.user("oscar").await;
    let path = format!("/api/v1/users/{other}");
    assert_error(&api.call("GET", &path, Some(&token), None).await, 403, "administrator");
    assert_error(
        &api.call("PUT", &path, Some(&token), Some(json!({"status": 0}))).await,
        403,
        "administrator",
    );
    assert_error(&api.call("DELETE", &path, Some(&token), None).await, 403, "administrator");
    assert_error(&api.call("GET", &path, None, None).await, 401, "token");

    let admin = api.admin_token().await;
    let read = api.call("GET", &format!("/api/v1/users/{id}"), Some(&admin), None).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body["data"]["username"], json!("nina"));
    let update = json!({"nickname": "N", "roles": ["ROLE_USER", "ROLE_ADMIN"]});
    let updated = api.call("PUT", &format!("/api/v1/users/{id}"), Some(&admin), Some(update)).await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    assert_eq!(updated.body["data"]["roles"], json!(["ROLE_USER", "ROLE_ADMIN"]));
    let promoted = api.call("GET", &path, Some(&token), None).await;
    assert_eq!(promoted.status, 200, "a promoted user acts as administrator");

    let bad_roles =
        api.call("PUT", &path, Some(&admin), Some(json!({"roles": ["ROLE_ROOT"]}))).await;
    assert_error(&bad_roles, 400, "roles");
    let bad_status = api.call("PUT", &path, Some(&admin), Some(json!({"status": 7}))).await;
    assert_error(&bad_status, 400, "status");
    assert_error(&api.call("GET", "/api/v1/users/999999", Some(&admin), None).await, 404, "user");
    let missing =
        api.call("PUT", "/api/v1/users/999999", Some(&admin), Some(json!({"status": 1}))).await;
    assert_error(&missing, 404, "user");
}

pub async fn a_disabled_account_is_refused_and_can_be_re_enabled(api: Api) {
    let (id, token) = api.user("pat").await;
    let admin = api.admin_token().await;
    let path = format!("/api/v1/users/{id}");
    let disabled = api.call("PUT", &path, Some(&admin), Some(json!({"status": 0}))).await;
    assert_eq!(disabled.body["data"]["status"], json!(0), "{:?}", disabled.body);
    assert_error(&api.call("GET", "/api/v1/users/me", Some(&token), None).await, 401, "disabled");
    let login = api
        .call(
            "POST",
            "/api/v1/auth/login",
            None,
            Some(json!({"username": "pat", "password": PASSWORD})),
        )
        .await;
    assert_error(&login, 401, "wrong");
    api.call("PUT", &path, Some(&admin), Some(json!({"status": 1}))).await;
    assert_eq!(api.call("GET", "/api/v1/users/me", Some(&token), None).await.status, 200);
    api.login("pat", PASSWORD).await;
}

pub async fn a_deleted_account_frees_its_name_and_email(api: Api) {
    let (id, token) = api.user("quinn").await;
    let admin = api.admin_token().await;
    let path = format!("/api/v1/users/{id}");
    let deleted = api.call("DELETE", &path, Some(&admin), None).await;
    assert_eq!(deleted.body, json!({"code": 0, "message": "success", "data": null}));
    assert_error(&api.call("GET", "/api/v1/users/me", Some(&token), None).await, 401, "deleted");
    assert_error(&api.call("GET", &path, Some(&admin), None).await, 404, "user");
    let again = api.call("DELETE", &path, Some(&admin), None).await;
    assert_eq!(again.status, 200, "deleting twice is harmless");
    assert_eq!(api.call("DELETE", "/api/v1/users/424242", Some(&admin), None).await.status, 200);
    let reborn = api.register("quinn").await;
    assert_eq!(reborn.status, 200, "{:?}", reborn.body);
    assert_ne!(reborn.body["data"]["id"], json!(id));
}

pub async fn an_administrator_cannot_disable_or_delete_themselves(api: Api) {
    let admin = api.admin_token().await;
    let me = api.call("GET", "/api/v1/users/me", Some(&admin), None).await;
    assert_eq!(me.body["data"]["roles"], json!(["ROLE_USER", "ROLE_ADMIN"]));
    assert_eq!(me.body["data"]["username"], json!(ADMIN.0));
    let path = format!("/api/v1/users/{}", me.body["data"]["id"]);
    assert_error(
        &api.call("PUT", &path, Some(&admin), Some(json!({"status": 0}))).await,
        400,
        "own",
    );
    assert_error(
        &api.call("PUT", &path, Some(&admin), Some(json!({"roles": ["ROLE_USER"]}))).await,
        400,
        "own",
    );
    assert_error(&api.call("DELETE", &path, Some(&admin), None).await, 400, "own");
}

pub async fn bad_tokens_get_401_in_the_account_envelope(api: Api) {
    let (_, token) = api.user("rita").await;
    let mut tampered = token.clone();
    tampered.pop();
    tampered.push(if token.ends_with('A') { 'B' } else { 'A' });
    let payload = token.split('.').nth(1).unwrap();
    let alg_none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{payload}.");
    for bad in [tampered.as_str(), alg_none.as_str(), "not-a-jwt", ""] {
        let reply = api.call("GET", "/api/v1/users/me", Some(bad), None).await;
        assert_error(&reply, 401, "");
    }
    let basic = api.raw("GET", "/api/v1/users/me", &[("authorization", "Basic YTpi")], None).await;
    assert_error(&basic, 401, "Bearer");
}

pub async fn path_ids_that_are_not_positive_integers_are_parameter_errors(api: Api) {
    let admin = api.admin_token().await;
    for id in ["abc", "0", "-3", "1.5", "9007199254740992"] {
        let reply = api.call("GET", &format!("/api/v1/users/{id}"), Some(&admin), None).await;
        assert_error(&reply, 400, "id");
    }
}

pub async fn twenty_simultaneous_registrations_of_one_user_name_give_one_account(api: Api) {
    let attempts = (0..20).map(|i| {
        let body = json!({"username": "race", "password": PASSWORD, "email": format!("race{i}@example.com")});
        api.call("POST", "/api/v1/auth/register", None, Some(body))
    });
    let replies = join_all(attempts).await;
    let winners = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        winners,
        1,
        "{:?}",
        replies.iter().map(|r| (&r.status, &r.body["message"])).collect::<Vec<_>>()
    );
    assert!(replies.iter().all(|r| r.status == 200 || r.status == 400));
}

pub async fn twenty_simultaneous_registrations_of_one_email_give_one_account(api: Api) {
    let attempts = (0..20).map(|i| {
        let body = json!({"username": format!("racer{i}"), "password": PASSWORD, "email": "same@example.com"});
        api.call("POST", "/api/v1/auth/register", None, Some(body))
    });
    let replies = join_all(attempts).await;
    let winners = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        winners,
        1,
        "{:?}",
        replies.iter().map(|r| (&r.status, &r.body["message"])).collect::<Vec<_>>()
    );
    assert!(replies.iter().all(|r| r.status == 200 || r.status == 400));
}

pub async fn preflight_requests_answer_204_for_any_origin(api: Api) {
    let headers = [
        ("origin", "https://somewhere.example"),
        ("access-control-request-method", "PUT"),
        ("access-control-request-headers", "authorization,content-type"),
    ];
    let reply = api.raw("OPTIONS", "/api/v1/users/me", &headers, None).await;
    assert_eq!(reply.status, 204);
    assert_eq!(reply.headers["access-control-allow-origin"], "*");
    assert!(reply.headers["access-control-allow-methods"].contains("PUT"));
    let simple =
        api.raw("POST", "/api/v1/auth/login", &[("origin", "https://x.example")], None).await;
    assert_eq!(simple.headers["access-control-allow-origin"], "*");
    let exposed = simple.headers["access-control-expose-headers"].to_ascii_lowercase();
    assert!(exposed.contains("retry-after"), "a browser may read Retry-After: {exposed}");
}

pub async fn unknown_paths_answer_404_in_json(api: Api) {
    let reply = api.call("GET", "/api/v1/nothing-here", None, None).await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["code"], json!(404));
}
