//! The routes under test, read from the API description (`blog_api::openapi::document()`, what
//! the handlers declare): every operation answered in the envelope of one of the API's areas
//! (the actuator's, for operators behind their token, has its own suite), grouped by what of
//! the request it reads, with its envelope family and caller. A new endpoint is fuzzed without
//! a line here.

use std::sync::OnceLock;

use serde_json::Value;

use Caller::*;
use Family::*;

/// The envelope families of the API's areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Account,
    Articles,
    Taxonomy,
    Comments,
    Files,
}

impl Family {
    /// The family whose error responses `operation` documents, by the name of the envelope
    /// its responses refer to; `None` for the actuator's and unenveloped operations.
    fn of(operation: &Value) -> Option<Family> {
        let responses = operation["responses"].to_string();
        [
            ("Account", Account),
            ("Taxonomy", Taxonomy),
            ("Article", Articles),
            ("Comment", Comments),
            ("File", Files),
        ]
        .into_iter()
        .find(|(name, _)| {
            responses.contains(&format!("#/components/responses/{name}"))
                || responses.contains(&format!("#/components/schemas/{name}ErrorEnvelope"))
        })
        .map(|(_, family)| family)
    }
}

/// Whose token a request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Anonymous,
    User,
    Admin,
}

/// One route under test.
#[derive(Debug)]
pub struct Endpoint {
    /// HTTP method.
    pub method: String,
    /// Path template as the description writes it.
    pub template: String,
    /// Its first path parameter, if any.
    pub parameter: Option<String>,
    /// Envelope family of the answers.
    pub family: Family,
    /// Token sent along: an administrator's where the operation documents the shared
    /// "without `ROLE_ADMIN`" 403, a user's where it needs a token, none otherwise.
    pub caller: Caller,
    /// The JSON body's field names (empty when it reads no body).
    pub fields: Vec<String>,
    /// Its query parameters' names.
    pub query: Vec<String>,
}

impl Endpoint {
    /// The path with `{id}` for its first path parameter and `1` for any other (a revision).
    pub fn path(&self) -> String {
        let (mut path, mut rest, mut first) = (String::new(), self.template.as_str(), true);
        while let Some(start) = rest.find('{') {
            let end = start + rest[start..].find('}').expect("a closed parameter");
            path.push_str(&rest[..start]);
            path.push_str(if first { "{id}" } else { "1" });
            (rest, first) = (&rest[end + 1..], false);
        }
        path + rest
    }
}

/// The routes, by what of the request they read.
pub struct Routes {
    /// Those that read a JSON body.
    pub body: Vec<Endpoint>,
    /// Every GET (arbitrary query strings reach every one).
    pub query: Vec<Endpoint>,
    /// Those with a path parameter.
    pub path: Vec<Endpoint>,
}

/// The routes of the API description, read once.
pub fn routes() -> &'static Routes {
    static ROUTES: OnceLock<Routes> = OnceLock::new();
    ROUTES.get_or_init(|| {
        let document = serde_json::to_value(blog_api::openapi::document()).expect("JSON");
        let mut routes = Routes { body: vec![], query: vec![], path: vec![] };
        for (template, item) in document["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("a path item") {
                let Some(family) = Family::of(operation) else { continue };
                let endpoint = || endpoint(&document, template, method, operation, family);
                if operation.get("requestBody").is_some() {
                    routes.body.push(endpoint());
                }
                if method == "get" {
                    routes.query.push(endpoint());
                }
                if endpoint().parameter.is_some() {
                    routes.path.push(endpoint());
                }
            }
        }
        assert!(routes.body.iter().all(|route| !route.fields.is_empty()), "bodies without fields");
        routes
    })
}

fn endpoint(
    document: &Value,
    template: &str,
    method: &str,
    operation: &Value,
    family: Family,
) -> Endpoint {
    let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
    let named = |place: &str| -> Vec<String> {
        parameters
            .iter()
            .filter(|p| p["in"] == place)
            .map(|p| p["name"].as_str().expect("a parameter name").to_string())
            .collect()
    };
    let forbidden = operation["responses"]["403"]["$ref"].as_str().is_some();
    let caller = match operation.get("security") {
        Some(_) if forbidden => Admin,
        Some(_) => User,
        None => Anonymous,
    };
    let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    Endpoint {
        method: method.to_uppercase(),
        template: template.to_string(),
        parameter: named("path").into_iter().next(),
        family,
        caller,
        fields: super::fields::properties(document, schema).keys().cloned().collect(),
        query: named("query"),
    }
}
