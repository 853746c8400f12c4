//! The pieces of the OpenAPI description that every feature shares: the security schemes'
//! names, the descriptions of the common answers, the `{id}` path parameter, `null`, and the
//! schemas of ids and times as the API writes them. The whole document is composed in
//! [`crate::openapi`], above the features; these sit below them.

use utoipa::{
    openapi::{
        schema::{Array, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type},
        Object, RefOr,
    },
    PartialSchema, ToSchema,
};

use crate::ids::MAX_ID;

/// Name of the bearer-token security scheme that protected operations require.
pub const BEARER: &str = "bearerAuth";

/// Name of the optional actuator token's security scheme.
pub const ACTUATOR_TOKEN: &str = "actuatorToken";

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
pub fn with_required(
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
pub fn integer_enum(about: &str, values: impl IntoIterator<Item = i64>) -> Object {
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
pub fn string_enum<S: Into<String>>(about: &str, values: impl IntoIterator<Item = S>) -> Object {
    let values: Vec<String> = values.into_iter().map(Into::into).collect();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(about))
        .enum_values(Some(values))
        .build()
}

const TIME_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$";

/// A time as the API writes it: UTC, `YYYY-MM-DDTHH:MM:SS` (no zone, no fraction).
pub fn api_time() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("UTC time `YYYY-MM-DDTHH:MM:SS`"))
        .pattern(Some(TIME_PATTERN))
        .examples(["2026-01-02T03:04:05"])
        .build()
}

/// [`api_time`] or `null`.
pub fn api_time_or_null() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some("UTC time `YYYY-MM-DDTHH:MM:SS`, or `null`"))
        .pattern(Some(TIME_PATTERN))
        .examples(["2026-01-02T03:04:05"])
        .build()
}

/// An id written as a string of decimal digits (64-bit ids are strings in some answers).
pub fn id_string() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("An id in decimal digits"))
        .pattern(Some("^[1-9][0-9]*$"))
        .examples(["42"])
        .build()
}

/// [`id_string`] or `""` when there is none.
pub fn id_string_or_empty() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("An id in decimal digits, or empty for none"))
        .pattern(Some("^([1-9][0-9]*)?$"))
        .examples(["42", ""])
        .build()
}

/// [`id_string`] or `null`.
pub fn id_string_or_null() -> Object {
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
pub fn id_input() -> Schema {
    OneOfBuilder::new()
        .description(Some("An id: a JSON integer or a string of digits"))
        .item(id_integer())
        .item(id_digits())
        .into()
}

/// [`id_input`] or `null`.
pub fn id_input_or_null() -> Schema {
    OneOfBuilder::new()
        .description(Some("An id (a JSON integer or a string of digits), or `null` for none"))
        .item(id_integer())
        .item(id_digits())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

/// A list of ids in a request body, each as [`id_input`].
pub fn id_inputs_or_null() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .description(Some("Ids, each a JSON integer or a string of digits, or `null` for none"))
        .items(RefOr::T(id_input()))
        .build()
}
