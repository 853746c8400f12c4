//! The OpenAPI 3.1 description of the whole API, generated from the handlers'
//! `#[utoipa::path]` annotations and the request and response types, and the router that serves
//! it at `/v3/api-docs` (local gateway and Lambda alike; Swagger UI is the gateway's own).

use std::sync::LazyLock;

use axum::{
    http::{header, HeaderValue},
    response::IntoResponse,
    routing::get,
    Router,
};
use utoipa::{
    openapi::{
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
        tag::TagBuilder,
        ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths,
    },
    OpenApi as _,
};

use crate::{
    articles, auth, files, ops,
    taxonomy::{categories, tags},
    users,
};

pub use crate::http::docs::{
    IdParam, Null, ACTUATOR_TOKEN, BAD_ID, BEARER, FORBIDDEN, INTERNAL, UNAUTHORIZED,
};

/// Where the description is served.
pub const DOCS_PATH: &str = "/v3/api-docs";

/// Every area's description with the base path its router is mounted under; a new area joins
/// the API description by adding its line.
fn areas() -> Vec<(&'static str, OpenApi)> {
    vec![
        (auth::BASE, auth::AuthApi::openapi()),
        (users::BASE, users::UsersApi::openapi()),
        (categories::BASE, categories::PublicApi::openapi()),
        (categories::ADMIN_BASE, categories::AdminApi::openapi()),
        (tags::BASE, tags::PublicApi::openapi()),
        (tags::ADMIN_BASE, tags::AdminApi::openapi()),
        (articles::BASE, articles::PublicApi::openapi()),
        (articles::ADMIN_BASE, articles::AdminApi::openapi()),
        (files::BASE, files::FilesApi::openapi()),
        (ops::BASE, ops::OpsApi::openapi()),
        ("", DocsApi::openapi()),
    ]
}

/// Groups of operations, one per Lambda function (the order Swagger UI shows them in).
const TAGS: [(&str, &str); 9] = [
    ("auth", "Registration, sign-in and sign-out (envelope: integer `code` 0 on success)"),
    ("users", "Own profile and administration of accounts (same envelope as auth)"),
    ("categories", "Category tree, list and administration (envelope: string `code` \"200\")"),
    ("tags", "Tag lists and administration (same envelope as categories)"),
    ("articles", "Published articles, anonymous (envelope: `code` 200, `errorCode` on errors)"),
    ("admin-articles", "Article lifecycle for administrators (same envelope as articles)"),
    ("files", "Pre-signed uploads and file records (envelope: numeric codes and `timestamp`)"),
    ("ops", "Health, probes, info, metrics and logger levels (Spring Boot Actuator shapes)"),
    ("docs", "This description"),
];

/// The OpenAPI 3.1 document of the whole API.
pub fn document() -> OpenApi {
    let bearer = SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .bearer_format("JWT")
            .description(Some(
                "The `token` of POST /api/v1/auth/login: `Authorization: Bearer <token>`",
            ))
            .build(),
    );
    let actuator_token = SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "`BLOG_ACTUATOR_TOKEN`, when the operator set one: required under /actuator \
                 except the liveness and readiness probes",
            ))
            .build(),
    );
    let base = OpenApiBuilder::new()
        .info(InfoBuilder::new().title("Blog API").version(env!("CARGO_PKG_VERSION")).description(
            Some(
                "Accounts, profiles, articles with categories and tags, and file uploads. \
                     Every answer is JSON in the envelope of its area; ids are at most 2^53-1; \
                     times are UTC `YYYY-MM-DDTHH:MM:SS`.",
            ),
        ))
        .paths(Paths::new())
        .components(Some(
            ComponentsBuilder::new()
                .security_scheme(BEARER, bearer)
                .security_scheme(ACTUATOR_TOKEN, actuator_token)
                .build(),
        ))
        .tags(Some(
            TAGS.map(|(name, about)| TagBuilder::new().name(name).description(Some(about)).build()),
        ))
        .build();
    areas().into_iter().fold(base, |document, (path, area)| document.nest(path, area))
}

static DOCUMENT_JSON: LazyLock<String> =
    LazyLock::new(|| document().to_json().expect("the API description serialises"));

/// Serves [`document`] as JSON at [`DOCS_PATH`].
pub fn docs_router() -> Router {
    crate::http::cors::apply(Router::new().route(DOCS_PATH, get(api_docs)))
}

/// The OpenAPI description of this API.
#[utoipa::path(
    get,
    path = "/v3/api-docs",
    operation_id = "apiDocs",
    tag = "docs",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object))
)]
async fn api_docs() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], DOCUMENT_JSON.as_str())
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(api_docs))]
struct DocsApi;
