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
        schema::{Array, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type},
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
        tag::TagBuilder,
        ComponentsBuilder, InfoBuilder, Object, OpenApi, OpenApiBuilder, Paths, RefOr,
    },
    OpenApi as _, PartialSchema, ToSchema,
};

use crate::{
    articles, auth, files,
    http::extract::MAX_ID,
    ops,
    taxonomy::{categories, tags},
    users,
};

/// Where the description is served.
pub const DOCS_PATH: &str = "/v3/api-docs";

/// Name of the bearer-token security scheme that protected operations require.
pub const BEARER: &str = "bearerAuth";

/// Name of the optional actuator token's security scheme.
pub const ACTUATOR_TOKEN: &str = "actuatorToken";

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

/// Description of a 401 answer.
pub const UNAUTHORIZED: &str =
    "Token missing, malformed, tampered or expired, or the account is disabled or deleted";
/// Description of a 403 answer.
pub const FORBIDDEN: &str = "Signed in without `ROLE_ADMIN`";
/// Description of a 400 answer to a bad path id.
pub const BAD_ID: &str = "The id is not a positive integer of at most 2^53-1";
/// Description of a 500 answer.
pub const INTERNAL: &str = "Internal error (the details go to the log)";

/// The `{id}` path parameter.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IdParam {
    /// A positive integer id, at most 9007199254740991.
    #[param(minimum = 1, maximum = 9007199254740991_u64)]
    pub id: u64,
}

/// `data` of an answer without payload, and of every error: JSON `null`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Null;

impl PartialSchema for Null {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(Type::Null).into()
    }
}

impl ToSchema for Null {}

/// The create form of a body whose update form leaves every field optional: `schema` (an
/// object) with `fields` required and no longer nullable, and its own `description`.
pub(crate) fn with_required(
    mut schema: RefOr<Schema>,
    fields: &[&str],
    description: &str,
) -> RefOr<Schema> {
    if let RefOr::T(Schema::Object(object)) = &mut schema {
        object.description = Some(description.to_string());
        for field in fields {
            if let Some(RefOr::T(Schema::Object(property))) = object.properties.get_mut(*field) {
                if let SchemaType::Array(types) = &property.schema_type {
                    let types: Vec<Type> =
                        types.iter().filter(|t| **t != Type::Null).cloned().collect();
                    property.schema_type = match types.as_slice() {
                        [only] => SchemaType::Type(only.clone()),
                        _ => SchemaType::Array(types),
                    };
                }
            }
            object.required.push((*field).to_string());
        }
    }
    schema
}

/// An integer that can only be one of `values`, described by `about`.
pub(crate) fn integer_enum(about: &str, values: impl IntoIterator<Item = i64>) -> Object {
    let mut values: Vec<i64> = values.into_iter().collect();
    values.sort_unstable();
    values.dedup();
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .description(Some(about))
        .enum_values(Some(values))
        .build()
}

/// A string that can only be one of `values`, described by `about`.
pub(crate) fn string_enum<S: Into<String>>(
    about: &str,
    values: impl IntoIterator<Item = S>,
) -> Object {
    let values: Vec<String> = values.into_iter().map(Into::into).collect();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(about))
        .enum_values(Some(values))
        .build()
}

const TIME_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$";

/// A time as the API writes it: UTC, `YYYY-MM-DDTHH:MM:SS` (no zone, no fraction).
pub(crate) fn api_time() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("UTC time `YYYY-MM-DDTHH:MM:SS`"))
        .pattern(Some(TIME_PATTERN))
        .examples(["2026-01-02T03:04:05"])
        .build()
}

/// [`api_time`] or `null`.
pub(crate) fn api_time_or_null() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some("UTC time `YYYY-MM-DDTHH:MM:SS`, or `null`"))
        .pattern(Some(TIME_PATTERN))
        .examples(["2026-01-02T03:04:05"])
        .build()
}

/// An id written as a string of decimal digits (64-bit ids are strings in some answers).
pub(crate) fn id_string() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("An id in decimal digits"))
        .pattern(Some("^[1-9][0-9]*$"))
        .examples(["42"])
        .build()
}

/// [`id_string`] or `""` when there is none.
pub(crate) fn id_string_or_empty() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("An id in decimal digits, or empty for none"))
        .pattern(Some("^([1-9][0-9]*)?$"))
        .examples(["42", ""])
        .build()
}

/// [`id_string`] or `null`.
pub(crate) fn id_string_or_null() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some("An id in decimal digits, or `null` for none"))
        .pattern(Some("^[1-9][0-9]*$"))
        .examples(["42"])
        .build()
}

fn id_integer() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Int64,
        )))
        .minimum(Some(1))
        .maximum(Some(MAX_ID as f64))
        .build()
}

fn id_digits() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^0*[1-9][0-9]{0,15}$"))
        .description(Some("the id in decimal digits (at most 9007199254740991)"))
        .build()
}

/// An id in a request body: a JSON integer or a string of digits, positive and at most 2^53-1.
pub(crate) fn id_input() -> Schema {
    OneOfBuilder::new()
        .description(Some("An id: a JSON integer or a string of digits"))
        .item(id_integer())
        .item(id_digits())
        .into()
}

/// [`id_input`] or `null`.
pub(crate) fn id_input_or_null() -> Schema {
    OneOfBuilder::new()
        .description(Some("An id (a JSON integer or a string of digits), or `null` for none"))
        .item(id_integer())
        .item(id_digits())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

/// A list of ids in a request body, each as [`id_input`].
pub(crate) fn id_inputs_or_null() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .description(Some("Ids, each a JSON integer or a string of digits, or `null` for none"))
        .items(RefOr::T(id_input()))
        .build()
}
