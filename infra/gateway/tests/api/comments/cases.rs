//! The comment endpoints' contract, written once against [`Api`].

use blog_api::ports::table::{AttributeValue, Key};
use serde_json::{json, Value};

use crate::{
    articles::cases::{assert_error, assert_ok, published},
    support::{Api, Reply},
};

/// A published article of the administrator `admin`.
pub async fn article(api: &Api, admin: &str) -> String {
    published(api, admin, json!({"title": "Commented", "content": "Body"})).await
}

/// Posts a comment (a reply when `parent` is given) on `article`.
pub async fn post(
    api: &Api,
    token: &str,
    article: &str,
    parent: Option<&str>,
    text: &str,
) -> Reply {
    let mut body = json!({"content": text, "targetType": "ARTICLE", "targetId": article});
    if let Some(parent) = parent {
        body["parentId"] = json!(parent);
    }
    api.call("POST", "/api/v1/comments", Some(token), Some(body)).await
}

/// Posts a comment and returns its id.
pub async fn posted(
    api: &Api,
    token: &str,
    article: &str,
    parent: Option<&str>,
    text: &str,
) -> String {
    let reply = post(api, token, article, parent, text).await;
    assert_ok(&reply)["id"].as_str().expect("id as a string").to_string()
}

/// The tree of `article` as `token` sees it.
pub async fn tree(api: &Api, token: Option<&str>, article: &str) -> Value {
    let path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={article}");
    assert_ok(&api.call("GET", &path, token, None).await).clone()
}

/// A counter of the article's head, as stored.
pub async fn head_counter(api: &Api, article: &str, counter: &str) -> i64 {
    let head = api.table.get(&Key::new(format!("ARTICLE#{article}"), "A#HEAD")).await.unwrap();
    let value = head.expect("head").get(counter).cloned();
    match value {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        _ => 0,
    }
}

pub async fn the_tree_of_an_article_without_comments_is_empty_and_other_targets_are_refused(
    api: Api,
) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let reply = api
        .call("GET", &format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}"), None, None)
        .await;
    assert_eq!(assert_ok(&reply), &json!([]));
    assert!(reply.body["timestamp"].as_str().is_some_and(|t| t.len() == 19), "{:?}", reply.body);
    let draft =
        crate::articles::cases::create(&api, &admin, json!({"title": "D", "content": "x"})).await;
    for target in [draft.as_str(), "424242"] {
        let path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={target}");
        assert_error(&api.call("GET", &path, None, None).await, 404, "ARTICLE_NOT_FOUND");
    }
    for query in [
        "targetType=PAGE&targetId=1",
        "targetType=ARTICLE",
        "targetId=1",
        "targetType=ARTICLE&targetId=abc",
    ] {
        let reply = api.call("GET", &format!("/api/v1/comments/tree?{query}"), None, None).await;
        assert_error(&reply, 400, "PARAM_ERROR");
    }
    // A stale token does not turn the comments into an error: it reads as anonymous.
    let path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    assert_ok(&api.call("GET", &path, Some("not.a.token"), None).await);
}

pub async fn comments_and_replies_form_the_tree_with_every_field_of_the_object(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (alice_id, alice) = api.user("alice").await;
    let (bob_id, bob) = api.user("bob").await;
    let reply = post(&api, &alice, &id, None, "Hello **there**").await;
    let root = assert_ok(&reply).clone();
    let root_id = root["id"].as_str().unwrap().to_string();
    assert!(root_id.parse::<u64>().is_ok());
    assert_eq!(root["targetType"], json!("ARTICLE"));
    assert_eq!(root["targetId"], json!(id));
    assert_eq!(root["parentId"], Value::Null);
    assert_eq!(root["rootId"], json!(root_id));
    assert_eq!(root["depth"], json!(0));
    assert_eq!(root["content"], json!("Hello **there**"));
    assert_eq!(root["contentHtml"], json!("<p>Hello <strong>there</strong></p>\n"));
    assert_eq!(root["userId"], json!(alice_id.to_string()));
    assert_eq!(root["userName"], json!("alice"), "the nickname defaults to the user name");
    assert_eq!(root["userAvatar"], json!(""));
    assert_eq!(root["replyToUserId"], Value::Null);
    assert_eq!(root["replyToUserName"], Value::Null);
    assert_eq!(root["status"], json!("APPROVED"));
    assert_eq!((root["likeCount"].clone(), root["replyCount"].clone()), (json!(0), json!(0)));
    assert_eq!(root["isEdited"], json!(false));
    let created = root["createTime"].as_str().unwrap();
    assert!(created.len() == 19 && created.as_bytes()[10] == b'T', "{created}");
    assert_eq!(root["updateTime"], root["createTime"]);

    let answer = {
        let body = json!({"content": "Hi", "targetType": "ARTICLE", "targetId": id.parse::<u64>().unwrap(), "parentId": root_id});
        assert_ok(&api.call("POST", "/api/v1/comments/reply", Some(&bob), Some(body)).await).clone()
    };
    assert_eq!(answer["parentId"], json!(root_id));
    assert_eq!(answer["rootId"], json!(root_id));
    assert_eq!(answer["depth"], json!(1));
    assert_eq!(answer["replyToUserId"], json!(alice_id.to_string()));
    assert_eq!(answer["replyToUserName"], json!("alice"));
    assert_eq!(answer["userId"], json!(bob_id.to_string()));
    let second = posted(&api, &bob, &id, None, "Second root").await;
    let nested = posted(&api, &alice, &id, Some(answer["id"].as_str().unwrap()), "Deeper").await;

    let forest = tree(&api, None, &id).await;
    let roots: Vec<&str> =
        forest.as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(roots, [root_id.as_str(), second.as_str()], "roots oldest first");
    assert_eq!(forest[0]["replyCount"], json!(1));
    assert_eq!(forest[0]["children"][0]["id"], answer["id"]);
    assert_eq!(forest[0]["children"][0]["children"][0]["id"], json!(nested));
    assert_eq!(forest[0]["children"][0]["children"][0]["children"], json!([]));
    assert_eq!(forest[1]["children"], json!([]));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 4);

    let one = api.call("GET", &format!("/api/v1/comments/{nested}"), None, None).await;
    assert_eq!(assert_ok(&one)["depth"], json!(2));
    assert!(assert_ok(&one).get("children").is_none());
    let edited = api
        .call(
            "PUT",
            &format!("/api/v1/comments/{nested}"),
            Some(&alice),
            Some(json!({"content": "_Edited_"})),
        )
        .await;
    let edited = assert_ok(&edited);
    assert_eq!(edited["isEdited"], json!(true));
    assert_eq!(edited["contentHtml"], json!("<p><em>Edited</em></p>\n"));
    assert_eq!(edited["status"], json!("APPROVED"));
    // On a deleted article, the comment is the administrators' only.
    let delete = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("DELETE", &delete, Some(&admin), None).await);
    let path = format!("/api/v1/comments/{nested}");
    assert_error(&api.call("GET", &path, Some(&alice), None).await, 404, "COMMENT_NOT_FOUND");
    assert_ok(&api.call("GET", &path, Some(&admin), None).await);
    let reply = api.call("GET", "/api/v1/comments/424242", None, None).await;
    assert_error(&reply, 404, "COMMENT_NOT_FOUND");
    assert_error(&api.call("GET", "/api/v1/comments/x1", None, None).await, 400, "PARAM_ERROR");
}

pub async fn bodies_are_checked_field_by_field(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let other = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let root = posted(&api, &alice, &id, None, "root").await;
    let cases = [
        (json!({"targetType": "ARTICLE", "targetId": id}), "content"),
        (json!({"content": "", "targetType": "ARTICLE", "targetId": id}), "content"),
        (json!({"content": "   ", "targetType": "ARTICLE", "targetId": id}), "content"),
        (json!({"content": "x".repeat(2001), "targetType": "ARTICLE", "targetId": id}), "content"),
        (json!({"content": "x", "targetType": "PAGE", "targetId": id}), "targetType"),
        (json!({"content": "x", "targetId": id}), "targetType"),
        (json!({"content": "x", "targetType": "ARTICLE"}), "targetId"),
        (json!({"content": "x", "targetType": "ARTICLE", "targetId": "0"}), "targetId"),
        (
            json!({"content": "x", "targetType": "ARTICLE", "targetId": id, "parentId": "no"}),
            "parentId",
        ),
        (json!({"content": 5, "targetType": "ARTICLE", "targetId": id}), "content"),
    ];
    for (body, field) in cases {
        let reply = api.call("POST", "/api/v1/comments", Some(&alice), Some(body.clone())).await;
        assert_error(&reply, 400, "PARAM_ERROR");
        assert!(
            reply.body["message"].as_str().unwrap().contains(field),
            "{body}: {:?}",
            reply.body
        );
    }
    assert_ok(&post(&api, &alice, &id, None, &"x".repeat(2000)).await);
    let no_parent = json!({"content": "x", "targetType": "ARTICLE", "targetId": id});
    let reply = api.call("POST", "/api/v1/comments/reply", Some(&alice), Some(no_parent)).await;
    assert_error(&reply, 400, "PARAM_ERROR");
    assert!(reply.body["message"].as_str().unwrap().contains("parentId"));
    // The parent must be on the same article.
    assert_error(&post(&api, &alice, &other, Some(&root), "x").await, 404, "COMMENT_NOT_FOUND");
    assert_error(&post(&api, &alice, "424242", None, "x").await, 404, "ARTICLE_NOT_FOUND");
    let path = format!("/api/v1/comments/{root}");
    let reply = api.call("PUT", &path, Some(&alice), Some(json!({"content": ""}))).await;
    assert_error(&reply, 400, "PARAM_ERROR");
    let malformed = api
        .raw(
            "POST",
            "/api/v1/comments",
            &[("authorization", &format!("Bearer {alice}"))],
            Some("{".into()),
        )
        .await;
    assert_error(&malformed, 400, "PARAM_ERROR");
}

pub async fn who_may_read_edit_and_delete(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let comment = posted(&api, &alice, &id, None, "mine").await;
    let path = format!("/api/v1/comments/{comment}");
    let edit = json!({"content": "changed"});
    // Anonymous: reads, writes nothing.
    assert_ok(&api.call("GET", &path, None, None).await);
    let body = json!({"content": "x", "targetType": "ARTICLE", "targetId": id});
    let reply = api.call("POST", "/api/v1/comments", None, Some(body)).await;
    assert_error(&reply, 401, "UNAUTHORIZED");
    assert_error(&api.call("PUT", &path, None, Some(edit.clone())).await, 401, "UNAUTHORIZED");
    assert_error(&api.call("DELETE", &path, None, None).await, 401, "UNAUTHORIZED");
    assert_error(
        &api.call("DELETE", &path, Some("tampered.token.x"), None).await,
        401,
        "UNAUTHORIZED",
    );
    // Another user and an administrator may not edit it.
    for other in [&bob, &admin] {
        let reply = api.call("PUT", &path, Some(other), Some(edit.clone())).await;
        assert_error(&reply, 403, "COMMENT_FORBIDDEN");
    }
    assert_error(&api.call("DELETE", &path, Some(&bob), None).await, 403, "COMMENT_FORBIDDEN");
    // Its author edits and deletes it; an administrator deletes anyone's.
    assert_ok(&api.call("PUT", &path, Some(&alice), Some(edit)).await);
    assert_ok(&api.call("DELETE", &path, Some(&alice), None).await);
    assert_error(&api.call("GET", &path, None, None).await, 404, "COMMENT_NOT_FOUND");
    assert_error(&api.call("DELETE", &path, Some(&alice), None).await, 404, "COMMENT_NOT_FOUND");
    let bobs = posted(&api, &bob, &id, None, "bob's").await;
    let path = format!("/api/v1/comments/{bobs}");
    assert_ok(&api.call("DELETE", &path, Some(&admin), None).await);
    assert_eq!(tree(&api, None, &id).await, json!([]));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 0);
}

pub async fn a_deleted_comment_with_replies_stays_as_a_placeholder(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, alice) = api.user("alice").await;
    let (_, bob) = api.user("bob").await;
    let root = posted(&api, &alice, &id, None, "root").await;
    let answer = posted(&api, &bob, &id, Some(&root), "answer").await;
    assert_ok(&api.call("DELETE", &format!("/api/v1/comments/{root}"), Some(&alice), None).await);
    let forest = tree(&api, None, &id).await;
    let placeholder = &forest[0];
    assert_eq!(placeholder["id"], json!(root));
    assert_eq!(placeholder["status"], json!("DELETED"));
    assert_eq!(
        (placeholder["content"].clone(), placeholder["contentHtml"].clone()),
        (json!(""), json!(""))
    );
    // `userName` is a string, as clients such as the original frontend read it.
    assert_eq!(
        (placeholder["userId"].clone(), placeholder["userName"].clone()),
        (Value::Null, json!(""))
    );
    assert_eq!(placeholder["userAvatar"], Value::Null);
    assert_eq!(placeholder["children"][0]["id"], json!(answer));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 1);
    // Its last reply gone, the placeholder leaves the tree too.
    assert_ok(&api.call("DELETE", &format!("/api/v1/comments/{answer}"), Some(&bob), None).await);
    assert_eq!(tree(&api, None, &id).await, json!([]));
    assert_eq!(head_counter(&api, &id, "commentCount").await, 0);
    // A deleted comment takes no reply.
    assert_error(&post(&api, &bob, &id, Some(&root), "late").await, 404, "COMMENT_NOT_FOUND");
}
