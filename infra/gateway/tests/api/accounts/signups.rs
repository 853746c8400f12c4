//! Registrations limited per client address, and what a nickname may hold.

use std::net::IpAddr;

use futures::future::join_all;
use serde_json::json;

use super::cases::assert_error;
use crate::support::{Api, PASSWORD};

pub async fn registrations_from_one_address_stop_at_the_limit_and_another_address_registers(
    mut api: Api,
) {
    // The template's parameter, which feeds BLOG_REGISTRATION_LIMIT.
    api.set_parameter("RegistrationLimit", "3").await;
    let script: IpAddr = [127, 0, 0, 2].into();
    assert_eq!(api.register_from(script, "first").await.status, 200);
    // A registration refused for a taken name or bad input uses none of the allowance.
    assert_error(&api.register_from(script, "FIRST").await, 400, "username");
    assert_error(&api.register_from(script, "x").await, 400, "username");
    for name in ["second", "third"] {
        let reply = api.register_from(script, name).await;
        assert_eq!(reply.status, 200, "{name}: {:?}", reply.body);
    }
    let refused = api.register_from(script, "fourth").await;
    assert_error(&refused, 429, "registrations");
    let retry_after: u64 = refused.headers["retry-after"].parse().expect("Retry-After");
    assert!((3500..=3600).contains(&retry_after), "{retry_after}");
    // Nothing was created for it.
    let login = json!({"username": "fourth", "password": PASSWORD});
    let reply = api.call("POST", "/api/v1/auth/login", None, Some(login)).await;
    assert_eq!(reply.status, 401, "{:?}", reply.body);
    // Another address is counted apart.
    let person = api.register_from([127, 0, 0, 3].into(), "fourth").await;
    assert_eq!(person.status, 200, "{:?}", person.body);
}

pub async fn simultaneous_registrations_from_one_address_create_at_most_the_limit(mut api: Api) {
    api.set_parameter("RegistrationLimit", "3").await;
    let script: IpAddr = [127, 0, 0, 4].into();
    let names: Vec<String> = (0..12).map(|n| format!("burst_{n}")).collect();
    let replies = join_all(names.iter().map(|name| api.register_from(script, name))).await;
    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 3, "{statuses:?}");
    assert!(statuses.iter().all(|s| *s == 200 || *s == 429), "{statuses:?}");
    let mut created = 0;
    for name in &names {
        let login = json!({"username": name, "password": PASSWORD});
        created += usize::from(
            api.call("POST", "/api/v1/auth/login", None, Some(login)).await.status == 200,
        );
    }
    assert_eq!(created, 3, "accounts that exist");
}

pub async fn nicknames_lose_control_and_bidi_characters_and_an_invisible_one_is_refused(api: Api) {
    let body = |name: &str, nickname: &str| {
        json!({"username": name, "password": PASSWORD, "email": format!("{name}@example.com"),
            "nickname": nickname})
    };
    let register = |name: &str, nickname: &str| {
        api.call("POST", "/api/v1/auth/register", None, Some(body(name, nickname)))
    };
    // "Eve" followed by an override that would show the rest reversed, a bell and a newline.
    let reply = register("eve", " Eve\u{202E}lanigiro\u{202C}\u{0007}\n").await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["data"]["nickname"], json!("Evelanigiro"));
    for invisible in ["\u{200B}\u{200D}", " \u{3164} ", "\u{0301}", "\u{202E}\u{2066}"] {
        assert_error(&register("ghost", invisible).await, 400, "nickname");
    }
    let token = api.login("eve", PASSWORD).await;
    let update = |nickname: &str| {
        api.call("PUT", "/api/v1/users/me", Some(&token), Some(json!({"nickname": nickname})))
    };
    assert_error(&update("\u{FEFF}\u{2060}").await, 400, "nickname");
    let renamed = update("\u{2067}Mallory\u{2069}").await;
    assert_eq!(renamed.status, 200, "{:?}", renamed.body);
    assert_eq!(renamed.body["data"]["nickname"], json!("Mallory"));
    let me = api.call("GET", "/api/v1/users/me", Some(&token), None).await;
    assert_eq!(me.body["data"]["nickname"], json!("Mallory"), "stored cleaned");
}
