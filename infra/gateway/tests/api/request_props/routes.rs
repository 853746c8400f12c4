//! The routes under test, grouped by what of the request they read, with their envelope family
//! and caller.

use Caller::*;
use Family::*;

/// The four envelope families of the API.
#[derive(Clone, Copy, Debug)]
pub enum Family {
    Account,
    Articles,
    Taxonomy,
    Files,
}

/// Whose token a request carries.
#[derive(Clone, Copy, Debug)]
pub enum Caller {
    Anonymous,
    User,
    Admin,
}

/// One route under test; `{id}` in `path` is replaced by a fixture id of the route's area.
#[derive(Debug)]
pub struct Endpoint {
    /// HTTP method.
    pub method: &'static str,
    /// Path template.
    pub path: &'static str,
    /// Envelope family of the answers.
    pub family: Family,
    /// Token sent along.
    pub caller: Caller,
    /// Body field names or query parameter names the route reads.
    pub names: &'static [&'static str],
}

const fn endpoint(
    method: &'static str,
    path: &'static str,
    family: Family,
    caller: Caller,
    names: &'static [&'static str],
) -> Endpoint {
    Endpoint { method, path, family, caller, names }
}

const ARTICLE_FIELDS: &[&str] = &[
    "title",
    "content",
    "summary",
    "coverImage",
    "categoryId",
    "tagIds",
    "isTop",
    "isFeatured",
    "isCommentDisabled",
    "version",
];
const TAXONOMY_FIELDS: &[&str] =
    &["name", "slug", "description", "parentId", "sortOrder", "color", "icon"];
const ACCOUNT_FIELDS: &[&str] =
    &["username", "password", "email", "nickname", "avatar", "status", "roles"];
const FILE_FIELDS: &[&str] = &["fileName", "fileSize", "fileType", "md5"];

/// Routes that read a JSON body.
pub const BODY_ROUTES: &[Endpoint] = &[
    endpoint("POST", "/api/v1/auth/register", Account, Anonymous, ACCOUNT_FIELDS),
    endpoint("POST", "/api/v1/auth/login", Account, Anonymous, ACCOUNT_FIELDS),
    endpoint("PUT", "/api/v1/users/me", Account, User, ACCOUNT_FIELDS),
    endpoint("PUT", "/api/v1/users/{id}", Account, Admin, ACCOUNT_FIELDS),
    endpoint("POST", "/api/v1/admin/categories", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("PUT", "/api/v1/admin/categories/{id}", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("POST", "/api/v1/admin/tags", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("PUT", "/api/v1/admin/tags/{id}", Taxonomy, Admin, TAXONOMY_FIELDS),
    endpoint("POST", "/api/v1/admin/articles", Articles, Admin, ARTICLE_FIELDS),
    endpoint("PUT", "/api/v1/admin/articles/{id}", Articles, Admin, ARTICLE_FIELDS),
    endpoint("PUT", "/api/v1/admin/articles/{id}/schedule", Articles, Admin, &["publishAt"]),
    endpoint("POST", "/api/v1/files/presigned", Files, User, FILE_FIELDS),
];

const LIST_PARAMS: &[&str] = &["page", "current", "size", "categoryId", "tagId", "keyword"];

/// Routes that read query parameters.
pub const QUERY_ROUTES: &[Endpoint] = &[
    endpoint("GET", "/api/v1/articles", Articles, Anonymous, LIST_PARAMS),
    // The fixture's category and tag have the slug `fuzzed`; the parameter the path names
    // (refused there) is fuzzed too.
    endpoint("GET", "/api/v1/tags/slug/fuzzed/articles", Articles, Anonymous, LIST_PARAMS),
    endpoint("GET", "/api/v1/categories/slug/fuzzed/articles", Articles, Anonymous, LIST_PARAMS),
    endpoint("GET", "/api/v1/admin/articles", Articles, Admin, &["status", "page", "size"]),
    endpoint("GET", "/api/v1/admin/articles/{id}/revisions", Articles, Admin, &["page", "size"]),
    endpoint("GET", "/api/v1/articles/{id}/related", Articles, Anonymous, &["limit"]),
    endpoint("GET", "/api/v1/tags", Taxonomy, Anonymous, &["orderBy", "limit"]),
    endpoint("GET", "/api/v1/tags/hot", Taxonomy, Anonymous, &["limit"]),
    endpoint("GET", "/api/v1/categories/tree", Taxonomy, Anonymous, &["depth"]),
    endpoint("GET", "/api/v1/files/{id}/access-url", Files, User, &["expireMinutes"]),
    endpoint("GET", "/api/v1/users/me", Account, User, &["id"]),
];

/// Routes with one path segment (`{id}` is the fuzzed segment here).
pub const PATH_ROUTES: &[Endpoint] = &[
    endpoint("GET", "/api/v1/articles/{id}", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/articles/{id}/related", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/admin/articles/{id}", Articles, Admin, &[]),
    endpoint("PUT", "/api/v1/admin/articles/{id}/archive", Articles, Admin, &[]),
    endpoint("DELETE", "/api/v1/admin/articles/{id}/schedule", Articles, Admin, &[]),
    endpoint("GET", "/api/v1/admin/articles/{id}/revisions/1", Articles, Admin, &[]),
    endpoint("GET", "/api/v1/feeds/tags/{id}/rss.xml", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/sitemaps/{id}", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/categories/slug/{id}", Taxonomy, Anonymous, &[]),
    endpoint("GET", "/api/v1/tags/slug/{id}", Taxonomy, Anonymous, &[]),
    endpoint("GET", "/api/v1/tags/slug/{id}/articles", Articles, Anonymous, &[]),
    endpoint("GET", "/api/v1/categories/slug/{id}/articles", Articles, Anonymous, &[]),
    endpoint("DELETE", "/api/v1/admin/tags/{id}", Taxonomy, Admin, &[]),
    endpoint("GET", "/api/v1/users/{id}", Account, Admin, &[]),
    endpoint("GET", "/api/v1/files/{id}", Files, User, &[]),
    endpoint("PATCH", "/api/v1/files/{id}/confirm", Files, User, &[]),
];
