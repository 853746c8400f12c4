//! The error answers of the OpenAPI description, declared once per family and kind: the
//! component `#/components/responses/{family}{kind}` (e.g. `TaxonomyUnauthorized`) with the
//! kind's common description, the family's error body and the headers it sends. An operation
//! lists the ones it answers as a set of [`kinds`], `Errors<Family, (Unauthorized, Internal)>`, beside the
//! answers whose description says something of its own.

use std::{collections::BTreeMap, marker::PhantomData};

use utoipa::{
    openapi::{
        header::HeaderBuilder, schema::Type, ContentBuilder, ObjectBuilder, Ref, RefOr, Response,
        ResponseBuilder, Schema,
    },
    IntoResponses, PartialSchema, ToSchema,
};

use super::{docs, envelope::Family, error::Kind};

/// A kind of error, named in an operation's set of shared error answers.
pub trait Listed {
    /// The kind.
    const KIND: Kind;
}

/// A set of kinds of error: one [`Listed`] kind, or a tuple of them.
pub trait Kinds {
    /// Its kinds, in the order given.
    fn kinds() -> Vec<Kind>;
}

macro_rules! listed {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        pub enum $name {}
        impl Listed for $name {
            const KIND: Kind = Kind::$name;
        }
        impl Kinds for $name {
            fn kinds() -> Vec<Kind> {
                vec![Kind::$name]
            }
        }
    )*};
}

/// The kinds an operation's set names: `Errors<Family, (Unauthorized, Internal)>`.
pub mod kinds {
    use super::{Kind, Kinds, Listed};

    listed! {
        /// 400: a parameter or body field breaks its rule.
        Invalid,
        /// 401: not signed in.
        Unauthorized,
        /// 403: signed in without the role.
        Forbidden,
        /// 404: no such resource.
        NotFound,
        /// 409: the state does not allow the change.
        Conflict,
        /// 429: refused until a window passes.
        TooManyRequests,
        /// 500: something failed inside.
        Internal,
    }
}

macro_rules! tuples {
    ($(($($kind:ident),+))*) => {$(
        impl<$($kind: Listed),+> Kinds for ($($kind,)+) {
            fn kinds() -> Vec<Kind> {
                vec![$($kind::KIND),+]
            }
        }
    )*};
}

tuples! { (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) }

/// The shared error answers `K` of the family `F`, as references to their components.
pub struct Errors<F, K>(PhantomData<(F, K)>);

impl<F: Family, K: Kinds> IntoResponses for Errors<F, K> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let refer = |kind: Kind| Ref::from_response_name(name::<F>(kind)).into();
        K::kinds()
            .into_iter()
            .map(|kind| (kind.status().as_str().to_string(), refer(kind)))
            .collect()
    }
}

/// The component name of the family `F`'s answer of `kind`.
fn name<F: Family>(kind: Kind) -> String {
    format!("{}{kind:?}", F::NAME)
}

/// The description every area gives an error of `kind` (401: the family's own).
fn description<F: Family>(kind: Kind) -> &'static str {
    match kind {
        Kind::Invalid => "A parameter or body field breaks its rule (the message names it)",
        Kind::Unauthorized => F::UNAUTHORIZED,
        Kind::Forbidden => docs::FORBIDDEN,
        Kind::NotFound => "No such resource (the message names what is missing)",
        Kind::Conflict => "The state does not allow the change (the message says why)",
        Kind::TooManyRequests => "Refused until the window passes (`Retry-After` gives seconds)",
        Kind::Internal => docs::INTERNAL,
    }
}

/// Items of the description's components, by name.
pub type Named<T> = Vec<(String, T)>;

/// Every shared error answer of the family `F` by component name, and the schemas of its error
/// body: what the description's components hold for the references of [`Errors`].
pub fn components<F: Family>() -> (Named<Response>, Named<RefOr<Schema>>) {
    let body = F::ErrorBody::name().to_string();
    let response = |kind: Kind| {
        let content = ContentBuilder::new().schema(Some(Ref::from_schema_name(&body))).build();
        let mut response = ResponseBuilder::new()
            .description(description::<F>(kind))
            .content("application/json", content);
        let integer = || ObjectBuilder::new().schema_type(Type::Integer).build();
        let string = || ObjectBuilder::new().schema_type(Type::String).build();
        if kind == Kind::TooManyRequests {
            let seconds =
                HeaderBuilder::new().schema(integer()).description(Some("Seconds to wait"));
            response = response.header("Retry-After", seconds.build());
        }
        if let (Kind::Unauthorized, Some(challenge)) = (kind, F::CHALLENGE) {
            let header = HeaderBuilder::new().schema(string()).description(Some(challenge));
            response = response.header("WWW-Authenticate", header.build());
        }
        (name::<F>(kind), response.build())
    };
    let all = [Kind::TooManyRequests].into_iter().chain(Kind::FAILURES).map(response).collect();
    let mut schemas = vec![(body, F::ErrorBody::schema())];
    F::ErrorBody::schemas(&mut schemas);
    (all, schemas)
}
