//! Who may do what: every comment endpoint as anonymous, the author, another user and an
//! administrator.

use serde_json::json;

use super::cases::{article, posted};
use crate::{articles::cases::assert_ok, support::Api};

pub async fn the_authorisation_matrix_holds_for_every_endpoint(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let (_, author) = api.user("author").await;
    let (_, other) = api.user("other").await;
    let roles = [
        ("anonymous", None),
        ("author", Some(author.as_str())),
        ("other", Some(other.as_str())),
        ("admin", Some(admin.as_str())),
    ];
    let approved = posted(&api, &author, &id, None, "approved").await;
    let rejected = posted(&api, &author, &id, None, "rejected").await;
    let reject = format!("/api/v1/admin/comments/{rejected}/reject");
    assert_ok(&api.call("POST", &reject, Some(&admin), Some(json!({"reason": "x"}))).await);
    let c = |id: &str, tail: &str| format!("/api/v1/comments/{id}{tail}");
    let edit = Some(json!({"content": "edited"}));
    let report = Some(json!({"reason": "OTHER"}));
    // (method, path, body, [anonymous, author, other, admin])
    let matrix = [
        (
            "GET",
            format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}"),
            None,
            [200, 200, 200, 200],
        ),
        ("GET", c(&approved, ""), None, [200, 200, 200, 200]),
        ("GET", c(&rejected, ""), None, [404, 200, 404, 200]),
        ("PUT", c(&approved, ""), edit.clone(), [401, 200, 403, 403]),
        ("PUT", c(&rejected, ""), edit.clone(), [401, 200, 404, 403]),
        ("POST", c(&approved, "/like"), None, [401, 200, 200, 200]),
        ("GET", c(&approved, "/liked"), None, [401, 200, 200, 200]),
        ("DELETE", c(&approved, "/like"), None, [401, 200, 200, 200]),
        ("POST", c(&rejected, "/like"), None, [401, 200, 404, 200]),
        // One's own comment is not reported (400).
        ("POST", c(&approved, "/report"), report.clone(), [401, 400, 200, 200]),
        ("POST", c(&rejected, "/report"), report.clone(), [401, 400, 404, 200]),
        ("POST", format!("/api/v1/articles/{id}/like"), None, [401, 200, 200, 200]),
        ("GET", format!("/api/v1/articles/{id}/liked"), None, [401, 200, 200, 200]),
        ("GET", "/api/v1/admin/comments".to_string(), None, [401, 403, 403, 200]),
        ("POST", format!("/api/v1/admin/comments/{approved}/approve"), None, [401, 403, 403, 200]),
        ("GET", "/api/v1/admin/comments/reports".to_string(), None, [401, 403, 403, 200]),
    ];
    for (method, path, body, expected) in matrix {
        for ((role, token), status) in roles.iter().zip(expected) {
            let reply = api.call(method, &path, *token, body.clone()).await;
            assert_eq!(reply.status, status, "{role} {method} {path}: {:?}", reply.body);
        }
    }
    // Deleting: anonymous 401; another user 403 (404 for what they cannot see); then the
    // author or an administrator, on APPROVED and REJECTED comments alike.
    // (A second author: the first one's rate window is full.)
    let (_, writer) = api.user("writer").await;
    for (deleter, token) in [("author", &writer), ("admin", &admin)] {
        for status in ["APPROVED", "REJECTED"] {
            let comment = posted(&api, &writer, &id, None, "to delete").await;
            let hidden = status == "REJECTED";
            if hidden {
                let reject = format!("/api/v1/admin/comments/{comment}/reject");
                assert_ok(
                    &api.call("POST", &reject, Some(&admin), Some(json!({"reason": "x"}))).await,
                );
            }
            let path = c(&comment, "");
            assert_eq!(api.call("DELETE", &path, None, None).await.status, 401);
            let by_other = api.call("DELETE", &path, Some(&other), None).await.status;
            assert_eq!(by_other, if hidden { 404 } else { 403 }, "{status}");
            let reply = api.call("DELETE", &path, Some(token), None).await;
            assert_eq!(reply.status, 200, "{deleter} deletes {status}: {:?}", reply.body);
        }
    }
}
