//! The OpenAPI 3.1 description of the whole API, merged from every area's endpoints (their
//! `#[utoipa::path]` annotations and the request and response types). docs/openapi.json is its
//! committed copy, which `ops::DOCS` serves at `/v3/api-docs`.

use utoipa::openapi::{
    security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
    tag::TagBuilder,
    ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths,
};

pub use crate::http::docs::{
    IdParam, Null, ACTUATOR_TOKEN, BAD_ID, BEARER, FORBIDDEN, INTERNAL, UNAUTHORIZED,
};

/// Where the description is served.
pub use crate::ops::DOCS_PATH;

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
    let areas: Vec<&str> = crate::api::areas().map(|area| area.name).collect();
    let description = format!(
        "Accounts and profiles, articles with categories and tags, comments with their likes \
         and reports, RSS and Atom feeds and the sitemap, file uploads, and the actuator. Its \
         areas, one tag each: {}. Every answer is JSON in the envelope of its area (the feeds \
         and the sitemap: XML); ids are at most 2^53-1; times are UTC `YYYY-MM-DDTHH:MM:SS`. \
         Every answer to a request with `Authorization`, and every answer under /api/v1/auth, \
         says `Cache-Control: no-store`.",
        areas.join(", ")
    );
    let base = OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Blog API")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(description)),
        )
        .paths(Paths::new())
        .components(Some(
            ComponentsBuilder::new()
                .security_scheme(BEARER, bearer)
                .security_scheme(ACTUATOR_TOKEN, actuator_token)
                .build(),
        ))
        .tags(Some(
            crate::api::areas()
                .map(|area| TagBuilder::new().name(area.name).description(Some(area.summary)))
                .map(|tag| tag.build())
                .collect::<Vec<_>>(),
        ))
        .build();
    let document = crate::api::areas().fold(base, |document, area| document.merge_from(area.api()));
    with_error_answers(document)
}

/// `document` with the shared error answers its operations refer to (`http::responses`), and
/// the schemas of their bodies.
fn with_error_answers(mut document: OpenApi) -> OpenApi {
    use crate::http::responses::components;
    let families = [
        components::<crate::users::envelope::AccountFault>(),
        components::<crate::taxonomy::envelope::TaxonomyFault>(),
        components::<crate::articles::envelope::ArticleFault>(),
        components::<crate::comments::envelope::CommentFault>(),
        components::<crate::files::envelope::FileFault>(),
        components::<crate::ops::envelope::OpsFault>(),
    ];
    let paths = serde_json::to_string(&document.paths).unwrap_or_default();
    let components = document.components.get_or_insert_with(Default::default);
    for (responses, schemas) in families {
        let mut used = false;
        for (name, response) in responses {
            if paths.contains(&format!("\"#/components/responses/{name}\"")) {
                components.responses.insert(name, response.into());
                used = true;
            }
        }
        if used {
            for (name, schema) in schemas {
                components.schemas.entry(name).or_insert(schema);
            }
        }
    }
    document
}
