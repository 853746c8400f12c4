//! HTTP caching cases, written once against [`Api`].

use serde_json::{json, Value};

use crate::{
    articles::cases::{assert_ok, published, taxonomy},
    comments::cases::posted,
    support::{Api, Fetched},
};

/// `Cache-Control` of an anonymous public read at the template's default `PublicCacheMaxAge`.
const PUBLIC: &str = "public, max-age=60";
/// `Cache-Control` of the answers read from the search index (`/api/v1/search`, a list's
/// `keyword`), which changes without the table: kept 5 seconds at most.
const SEARCHED: &str = "public, max-age=5";

/// The `Cache-Control` of an anonymous answer of `path`.
fn public_for(path: &str) -> &'static str {
    if path.starts_with("/api/v1/search") || path.contains("keyword=") {
        SEARCHED
    } else {
        PUBLIC
    }
}
/// `Cache-Control` of every answer to a request with a token, and of every auth answer.
const PRIVATE: &str = "no-store";

async fn get(api: &Api, path: &str, headers: &[(&str, &str)]) -> Fetched {
    api.exchange("GET", path, headers).await
}

fn header<'a>(answer: &'a Fetched, name: &str) -> &'a str {
    answer.headers.get(name).map_or("", String::as_str)
}

fn json_of(answer: &Fetched) -> Value {
    serde_json::from_slice(&answer.body).unwrap_or_else(|_| panic!("JSON: {answer:?}"))
}

/// The answer's entity tag: 22 base64url characters between quotes, strong, or weak (`W/`)
/// for the comment tree (whose `timestamp` changes every second: its tag leaves it out).
fn tag_of(answer: &Fetched) -> String {
    let tag = header(answer, "etag");
    let strong = tag.strip_prefix("W/").unwrap_or(tag);
    let inner = strong.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or_default();
    let base64url = inner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    assert!(inner.len() == 22 && base64url, "an entity tag, not {tag:?}: {answer:?}");
    tag.to_string()
}

/// Whether `path` is the comment tree's, whose tag is weak.
fn is_tree(path: &str) -> bool {
    path.starts_with("/api/v1/comments/tree")
}

/// Whether the answer's `Vary` names `Authorization`.
fn varies_by_authorization(answer: &Fetched) -> bool {
    header(answer, "vary").split(',').any(|name| name.trim().eq_ignore_ascii_case("authorization"))
}

/// A 200 public read for anonymous callers: its tag.
fn assert_public(answer: &Fetched, path: &str) -> String {
    assert_eq!(answer.status, 200, "{path}: {answer:?}");
    assert_eq!(header(answer, "cache-control"), public_for(path), "{path}");
    assert!(varies_by_authorization(answer), "{path}: {:?}", answer.headers);
    tag_of(answer)
}

/// A 304 standing for `tag`, `cache_control`.
fn assert_not_modified(answer: &Fetched, tag: &str, cache_control: &str, path: &str) {
    assert_eq!(answer.status, 304, "{path}: {answer:?}");
    assert!(answer.body.is_empty(), "{path}: a 304 has no body");
    assert_eq!(header(answer, "etag"), tag, "{path}");
    assert_eq!(header(answer, "cache-control"), cache_control, "{path}");
    assert!(varies_by_authorization(answer), "{path}");
}

/// A blog: a published article, its category (slug `cached`) and tag (slug `fresh`), an
/// approved comment, and an administrator's token.
struct Blog {
    id: String,
    category: String,
    tag: String,
    admin: String,
}

async fn blog(api: &Api) -> Blog {
    let admin = api.admin_token().await;
    let category = taxonomy(api, &admin, "categories", "Cached").await;
    let tag = taxonomy(api, &admin, "tags", "Fresh").await;
    let body = json!({"title": "Kept fresh", "content": "# Kept\n\nfresh", "categoryId": category,
        "tagIds": [tag]});
    let id = published(api, &admin, body).await;
    let (_, reader) = api.user("reader").await;
    posted(api, &reader, &id, None, "First!").await;
    Blog { id, category, tag, admin }
}

/// Every public read but the detail (whose reads count views, which change it), from the API
/// description (each GET that documents its 304): its path with the blog's article, category
/// (`cached`), tag (`fresh`) and sitemap file (`pages.xml`) in the parameters, the required
/// query parameters set; and a page of two lists.
fn reads(id: &str) -> Vec<String> {
    let document = serde_json::to_value(blog_api::openapi::document()).expect("JSON");
    let mut reads: Vec<String> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(path, item)| {
            item["get"]["responses"].get("304").is_some() && *path != "/api/v1/articles/{id}"
        })
        .map(|(path, item)| {
            let slug = if path.contains("/categories/") { "cached" } else { "fresh" };
            let concrete =
                path.replace("{id}", id).replace("{slug}", slug).replace("{file}", "pages.xml");
            assert!(!concrete.contains('{'), "a parameter of {path} to fill in");
            let required: Vec<String> = item["get"]["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query" && p["required"] == json!(true))
                .map(|p| match p["name"].as_str().expect("a name") {
                    "targetType" => "targetType=ARTICLE".to_string(),
                    "targetId" => format!("targetId={id}"),
                    "q" => "q=fresh".to_string(),
                    other => panic!("a value for the query parameter {other} of {path}"),
                })
                .collect();
            match required.is_empty() {
                true => concrete,
                false => format!("{concrete}?{}", required.join("&")),
            }
        })
        .collect();
    assert!(reads.iter().any(|path| path == "/api/v1/articles"), "no public read in {reads:?}");
    reads.push("/api/v1/articles?page=1&size=5".into());
    reads.push("/api/v1/categories/slug/cached/articles?page=1&size=5".into());
    reads
}

/// Reads the detail, then revalidates it until a 304 (a scheduled sweep between the two reads
/// moves the first one's view to the article, which changes it: then the new tag is tried).
/// Returns the last 200 and the 304.
async fn revalidated_detail(api: &Api, id: &str) -> (Fetched, Fetched) {
    let path = format!("/api/v1/articles/{id}");
    let mut full = get(api, &path, &[]).await;
    for _ in 0..3 {
        let tag = assert_public(&full, &path);
        let again = get(api, &path, &[("if-none-match", &tag)]).await;
        if again.status == 304 {
            return (full, again);
        }
        assert_ne!(json_of(&again), json_of(&full), "a 200 to a matching tag: {again:?}");
        full = again;
    }
    panic!("{path} never revalidated");
}

pub async fn every_public_read_answers_a_stable_strong_tag_and_public_freshness(api: Api) {
    let blog = blog(&api).await;
    for path in reads(&blog.id) {
        let first = get(&api, &path, &[]).await;
        let tag = assert_public(&first, &path);
        assert_eq!(tag.starts_with("W/"), is_tree(&path), "{path}: weak for the tree only");
        let second = get(&api, &path, &[]).await;
        assert_eq!(assert_public(&second, &path), tag, "{path}: the same answer, the same tag");
        match path.contains(".xml") {
            true => assert_eq!(second.body, first.body, "{path}"),
            false => assert_eq!(json_of(&second)["data"], json_of(&first)["data"], "{path}"),
        }
    }
    let (full, _) = revalidated_detail(&api, &blog.id).await;
    assert!(!tag_of(&full).starts_with("W/"));
    assert_eq!(json_of(&full)["data"]["title"], json!("Kept fresh"));
}

pub async fn a_matching_if_none_match_answers_304_without_a_body(api: Api) {
    let blog = blog(&api).await;
    for path in reads(&blog.id) {
        let tag = assert_public(&get(&api, &path, &[]).await, &path);
        // The other form of the tag (weak for strong, strong for weak): the same under the
        // weak comparison.
        let twin = match tag.strip_prefix("W/") {
            Some(strong) => strong.to_string(),
            None => format!("W/{tag}"),
        };
        let list = format!("\"stale\", {tag}");
        for condition in [tag.as_str(), twin.as_str(), list.as_str(), "*"] {
            let answer = get(&api, &path, &[("if-none-match", condition)]).await;
            let cache_control = public_for(&path);
            assert_not_modified(&answer, &tag, cache_control, &format!("{path} ({condition})"));
        }
        for condition in ["\"stale\"", "W/\"stale\", \"older\"", "not a tag"] {
            let answer = get(&api, &path, &[("if-none-match", condition)]).await;
            assert_eq!(tag_of(&answer), tag, "{path} ({condition}): the full answer");
            assert!(!answer.body.is_empty(), "{path} ({condition})");
        }
    }
}

pub async fn the_detail_is_revalidated_and_carries_its_update_time(api: Api) {
    let Blog { id, admin, .. } = blog(&api).await;
    let (full, not_modified) = revalidated_detail(&api, &id).await;
    let detail = json_of(&full);
    let update_time = detail["data"]["updateTime"].as_str().expect("updateTime");
    let modified = blog_api::time::http_date(update_time).expect("an API time");
    assert_eq!(header(&full, "last-modified"), modified);
    assert_eq!(header(&not_modified, "last-modified"), modified, "the 304 repeats it");
    let tag = tag_of(&full);
    assert_not_modified(&not_modified, &tag, PUBLIC, "detail");
    // If-Modified-Since alone is not evaluated: the counters change without an edit.
    let path = format!("/api/v1/articles/{id}");
    let since = [("if-modified-since", "Fri, 01 Jan 2100 00:00:00 GMT")];
    let answer = get(&api, &path, &since).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    // An edit changes the answer, so its tag: the client's copy is replaced.
    let body = json!({"title": "Edited", "content": "x", "version": detail["data"]["version"]});
    let edit = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &edit, Some(&admin), Some(body)).await);
    let answer = get(&api, &path, &[("if-none-match", &tag)]).await;
    assert_ne!(assert_public(&answer, &path), tag);
    assert_eq!(json_of(&answer)["data"]["title"], json!("Edited"));
}

pub async fn writes_change_the_tags_of_what_they_change(api: Api) {
    let Blog { id, category, tag: fresh, admin } = blog(&api).await;
    let tag = |path: &'static str| {
        let api = &api;
        async move { assert_public(&get(api, path, &[]).await, path) }
    };
    let tree = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    let (list, categories, tags) = (
        tag("/api/v1/articles").await,
        tag("/api/v1/categories/tree").await,
        tag("/api/v1/tags").await,
    );
    let comments = assert_public(&get(&api, &tree, &[]).await, &tree);

    let body = json!({"title": "Retitled", "content": "x", "version": 1,
        "categoryId": category, "tagIds": [fresh]});
    let path = format!("/api/v1/admin/articles/{id}");
    assert_ok(&api.call("PUT", &path, Some(&admin), Some(body)).await);
    let answer = get(&api, "/api/v1/articles", &[("if-none-match", &list)]).await;
    assert_ne!(assert_public(&answer, "list"), list, "the list shows the new title");

    let rename = Some(json!({"name": "Renamed"}));
    let path = format!("/api/v1/admin/categories/{category}");
    assert_eq!(api.call("PUT", &path, Some(&admin), rename).await.status, 200);
    assert_ne!(tag("/api/v1/categories/tree").await, categories);
    assert_eq!(tag("/api/v1/tags").await, tags, "the tags did not change: neither did their tag");

    let (_, reader) = api.user("second").await;
    posted(&api, &reader, &id, None, "Second!").await;
    let answer = get(&api, &tree, &[("if-none-match", &comments)]).await;
    assert_ne!(assert_public(&answer, &tree), comments, "the tree shows the new comment");
}

pub async fn a_request_with_a_token_is_answered_for_its_own_cache_only(api: Api) {
    let mut api = api;
    // The template's parameter: a reader's new comment waits, seen by its author only.
    api.set_parameter("CommentsModeration", "true").await;
    let admin = api.admin_token().await;
    let id = published(&api, &admin, json!({"title": "Moderated", "content": "x"})).await;
    let (_, reader) = api.user("waiting").await;
    posted(&api, &reader, &id, None, "Pending").await;
    let path = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    let anonymous = get(&api, &path, &[]).await;
    let public_tag = assert_public(&anonymous, &path);
    assert_eq!(json_of(&anonymous)["data"], json!([]));
    let bearer = format!("Bearer {reader}");
    let own = get(&api, &path, &[("authorization", &bearer)]).await;
    assert_eq!(own.status, 200);
    assert_eq!(header(&own, "cache-control"), PRIVATE, "never stored by a shared cache");
    assert!(varies_by_authorization(&own));
    let own_tag = tag_of(&own);
    assert_ne!(own_tag, public_tag, "the author's tree holds the pending comment");
    assert_eq!(json_of(&own)["data"][0]["content"], json!("Pending"));
    let again = get(&api, &path, &[("authorization", &bearer), ("if-none-match", &own_tag)]).await;
    assert_not_modified(&again, &own_tag, PRIVATE, "the author's tree");
    // The public answer's tag does not match the author's tree.
    let other =
        get(&api, &path, &[("authorization", &bearer), ("if-none-match", &public_tag)]).await;
    assert_eq!(tag_of(&other), own_tag);
    // Reads that are the same for everyone are private too when asked with a token.
    let list = get(&api, "/api/v1/articles", &[("authorization", &bearer)]).await;
    assert_eq!(header(&list, "cache-control"), PRIVATE);
    tag_of(&list);
}

pub async fn head_answers_the_headers_of_get_where_the_api_routes_it(api: Api) {
    let Blog { id, .. } = blog(&api).await;
    for path in ["/api/v1/tags".to_string(), format!("/api/v1/articles/{id}/related")] {
        let tag = assert_public(&get(&api, &path, &[]).await, &path);
        let head = api.exchange("HEAD", &path, &[]).await;
        if api.on_stack().is_some() {
            // API Gateway routes only the template's routes, all GET: a HEAD goes to the
            // $default route, whose function serves no such path.
            assert_eq!(head.status, 404, "{path}: {head:?}");
            continue;
        }
        assert_eq!(head.status, 200, "{path}: {head:?}");
        assert!(head.body.is_empty(), "{path}");
        assert_eq!(tag_of(&head), tag, "{path}: the tag of the body a GET sends");
        assert_eq!(header(&head, "cache-control"), public_for(&path));
        let revalidated = api.exchange("HEAD", &path, &[("if-none-match", &tag)]).await;
        assert_not_modified(&revalidated, &tag, public_for(&path), &path);
    }
}

pub async fn errors_and_other_routes_carry_no_caching_headers(api: Api) {
    let Blog { id, admin, .. } = blog(&api).await;
    let bearer = format!("Bearer {admin}");
    let anonymous = [
        ("/api/v1/articles/9007199254740991".to_string(), 404),
        ("/api/v1/articles?size=0".into(), 400),
        ("/api/v1/categories/slug/none".into(), 404),
        ("/api/v1/tags/slug/none/articles".into(), 404),
        ("/api/v1/tags/slug/fresh/articles?tagId=1".into(), 400),
        ("/api/v1/tags?orderBy=colour".into(), 400),
        ("/api/v1/comments/tree?targetType=ARTICLE&targetId=9007199254740991".into(), 404),
    ];
    for (path, status) in anonymous {
        let answer = get(&api, &path, &[("if-none-match", "*")]).await;
        assert_eq!(answer.status, status, "{path}: {answer:?}");
        for name in ["etag", "cache-control"] {
            assert!(!answer.headers.contains_key(name), "{path}: {name} {:?}", answer.headers);
        }
    }
    // Reads that are not public reads get no tag; with a token, nothing keeps them.
    let signed_in = [
        "/api/v1/admin/articles".to_string(),
        format!("/api/v1/admin/articles/{id}"),
        "/api/v1/users/me".into(),
    ];
    for path in signed_in {
        let answer = get(&api, &path, &[("authorization", &bearer), ("if-none-match", "*")]).await;
        assert_eq!(answer.status, 200, "{path}: {answer:?}");
        assert!(!answer.headers.contains_key("etag"), "{path}: {:?}", answer.headers);
        assert_eq!(header(&answer, "cache-control"), PRIVATE, "{path}");
    }
    // A comment alone is not a cached read (only the tree is).
    let tree = format!("/api/v1/comments/tree?targetType=ARTICLE&targetId={id}");
    let comment = json_of(&get(&api, &tree, &[]).await)["data"][0]["id"].clone();
    let answer = get(&api, &format!("/api/v1/comments/{}", comment.as_str().unwrap()), &[]).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(!answer.headers.contains_key("etag"), "{:?}", answer.headers);
}

pub async fn the_max_age_follows_the_template_parameter(api: Api) {
    let mut api = api;
    api.set_parameter("PublicCacheMaxAge", "5").await;
    for path in ["/api/v1/articles", "/api/v1/categories/tree", "/api/v1/tags/hot"] {
        let answer = get(&api, path, &[]).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(header(&answer, "cache-control"), "public, max-age=5", "{path}");
    }
}

pub async fn browsers_may_send_if_none_match_and_read_the_tag(api: Api) {
    let path = "/api/v1/tags";
    let origin = ("origin", "https://blog.example");
    let preflight = [
        origin,
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "if-none-match"),
    ];
    let answer = api.exchange("OPTIONS", path, &preflight).await;
    assert_eq!(answer.status, 204, "{answer:?}");
    let allowed = header(&answer, "access-control-allow-headers").to_ascii_lowercase();
    assert!(allowed.contains("if-none-match"), "{allowed}");
    let answer = get(&api, path, &[origin]).await;
    let tag = assert_public(&answer, path);
    let exposed = header(&answer, "access-control-expose-headers").to_ascii_lowercase();
    assert!(exposed.contains("etag") && exposed.contains("last-modified"), "{exposed}");
    let answer = get(&api, path, &[origin, ("if-none-match", &tag)]).await;
    assert_not_modified(&answer, &tag, PUBLIC, path);
    assert!(!header(&answer, "access-control-allow-origin").is_empty(), "CORS on the 304 too");
}

/// Asserts that `answer` (to `what`) says `Cache-Control: no-store`.
fn assert_no_store(answer: &Fetched, status: u16, what: &str) {
    assert_eq!(answer.status, status, "{what}: {answer:?}");
    assert_eq!(header(answer, "cache-control"), PRIVATE, "{what}: {:?}", answer.headers);
}

pub async fn every_answer_to_a_token_and_every_auth_answer_says_no_store(api: Api) {
    let Blog { id, admin, .. } = blog(&api).await;
    let post = |path: &'static str, authorization: Option<String>, body: Value| {
        let api = &api;
        async move {
            let mut headers = vec![("content-type", "application/json")];
            if let Some(authorization) = &authorization {
                headers.push(("authorization", authorization.as_str()));
            }
            api.exchange_with("POST", path, &headers, body.to_string().into_bytes()).await
        }
    };
    // The auth area, signed in or not, whatever the outcome.
    let account = json!({"username": "nostore", "password": "Passw0rd1",
        "email": "nostore@example.com"});
    let registered = post("/api/v1/auth/register", None, account.clone()).await;
    assert_no_store(&registered, 200, "register");
    let user = json_of(&registered)["data"]["id"].clone();
    assert_no_store(&post("/api/v1/auth/register", None, account).await, 400, "a taken name");
    let credentials = json!({"username": "nostore", "password": "Passw0rd1"});
    let login = post("/api/v1/auth/login", None, credentials).await;
    assert_no_store(&login, 200, "login (the token)");
    let token = json_of(&login)["data"]["token"].as_str().unwrap().to_string();
    let wrong = json!({"username": "nostore", "password": "Wrong0pass"});
    assert_no_store(&post("/api/v1/auth/login", None, wrong).await, 401, "a failed login");
    let bearer = format!("Bearer {token}");
    let logout = post("/api/v1/auth/logout", Some(bearer.clone()), json!({})).await;
    assert_no_store(&logout, 200, "logout");
    // Every other area, with a token: own profile, administration, public reads, refusals.
    let admin_bearer = format!("Bearer {admin}");
    let reads = [
        ("/api/v1/users/me".to_string(), bearer.as_str(), 200),
        (format!("/api/v1/users/{user}"), admin_bearer.as_str(), 200),
        (format!("/api/v1/users/{user}"), bearer.as_str(), 403),
        ("/api/v1/admin/articles".into(), admin_bearer.as_str(), 200),
        ("/api/v1/articles".into(), bearer.as_str(), 200),
        (format!("/api/v1/articles/{id}"), bearer.as_str(), 200),
        ("/api/v1/tags".into(), "Bearer not-a-token", 200),
        ("/api/v1/users/me".into(), "Bearer not-a-token", 401),
    ];
    for (path, authorization, status) in reads {
        let answer = get(&api, &path, &[("authorization", authorization)]).await;
        assert_no_store(&answer, status, &path);
    }
    // Anonymous public reads keep their public caching.
    for path in ["/api/v1/articles".to_string(), format!("/api/v1/articles/{id}")] {
        assert_public(&get(&api, &path, &[]).await, &path);
    }
}
