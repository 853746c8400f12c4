//! How a cached public read is described in the OpenAPI document: the `If-None-Match` request
//! header, the caching headers of its `200` answer, and its `304` answer.

use utoipa::openapi::{
    header::{Header, HeaderBuilder},
    path::{Operation, ParameterBuilder, ParameterIn},
    Object, OpenApi, RefOr, Required, ResponseBuilder, Type,
};

fn header(description: &str) -> Header {
    HeaderBuilder::new()
        .schema(Object::with_type(Type::String))
        .description(Some(description))
        .build()
}

fn etag() -> Header {
    header(
        "Entity tag of this answer: strong, the first 128 bits of the SHA-256 of its body \
         (base64url, quoted); weak (`W/`) where the body also holds the time of the answer \
         (the comments' `timestamp`), computed from the rest. Send it back in `If-None-Match` \
         to revalidate",
    )
}

fn cache_control() -> Header {
    header(
        "`public, max-age=<BLOG_PUBLIC_CACHE_SECONDS>` without `Authorization`; `no-store` \
         with it (the answer may be the caller's own: no cache keeps it)",
    )
}

fn vary() -> Header {
    header("Names `Authorization`: a request with a token may be answered differently")
}

/// Adds the caching description to every GET operation of `api`.
pub fn document(api: &mut OpenApi) {
    for item in api.paths.paths.values_mut() {
        if let Some(operation) = item.get.as_mut() {
            describe(operation);
        }
    }
}

fn describe(operation: &mut Operation) {
    let if_none_match = ParameterBuilder::new()
        .name("If-None-Match")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "Entity tags of the copies the client holds (a comma-separated list, or `*`); when \
             one matches the current answer's `ETag` (weak comparison), the answer is 304 \
             without a body",
        ))
        .schema(Some(Object::with_type(Type::String)))
        .build();
    operation.parameters.get_or_insert_with(Vec::new).push(if_none_match);
    let responses = &mut operation.responses.responses;
    let mut last_modified = None;
    if let Some(RefOr::T(ok)) = responses.get_mut("200") {
        ok.headers.insert("ETag".into(), etag());
        ok.headers.insert("Cache-Control".into(), cache_control());
        ok.headers.insert("Vary".into(), vary());
        last_modified = ok.headers.get("Last-Modified").cloned();
    }
    let mut not_modified = ResponseBuilder::new()
        .description(
            "Not Modified: `If-None-Match` matched the current `ETag`; no body, the headers of \
             the 200 answer it stands for",
        )
        .header("ETag", etag())
        .header("Cache-Control", cache_control())
        .header("Vary", vary());
    if let Some(last_modified) = last_modified {
        not_modified = not_modified.header("Last-Modified", last_modified);
    }
    responses.insert("304".into(), RefOr::T(not_modified.build()));
}

#[cfg(test)]
mod tests {
    use utoipa::openapi::{path::OperationBuilder, PathItem, Paths, ResponseBuilder};

    use super::*;

    #[test]
    fn a_get_operation_documents_the_condition_the_headers_and_the_304() {
        let ok = ResponseBuilder::new().description("ok").header("Last-Modified", header("when"));
        let get = OperationBuilder::new().response("200", ok.build()).build();
        let put = OperationBuilder::new().response("200", ResponseBuilder::new().build()).build();
        let mut paths = Paths::new();
        paths.add_path_operation("/a", vec![utoipa::openapi::HttpMethod::Get], get);
        paths.add_path_operation("/a", vec![utoipa::openapi::HttpMethod::Put], put);
        let mut api = OpenApi::new(utoipa::openapi::Info::new("t", "1"), paths);
        document(&mut api);
        let item: &PathItem = &api.paths.paths["/a"];
        let get = item.get.as_ref().unwrap();
        let names: Vec<&str> = get.parameters.iter().flatten().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["If-None-Match"]);
        let RefOr::T(ok) = &get.responses.responses["200"] else { panic!("inline") };
        let headers: Vec<&String> = ok.headers.keys().collect();
        assert_eq!(headers, ["Cache-Control", "ETag", "Last-Modified", "Vary"]);
        let RefOr::T(not_modified) = &get.responses.responses["304"] else { panic!("inline") };
        assert!(not_modified.content.is_empty(), "a 304 has no body");
        let headers: Vec<&String> = not_modified.headers.keys().collect();
        assert_eq!(headers, ["Cache-Control", "ETag", "Last-Modified", "Vary"]);
        let put = item.put.as_ref().unwrap();
        assert!(put.parameters.is_none() && !put.responses.responses.contains_key("304"));
    }
}
