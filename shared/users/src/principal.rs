//! Who is calling: bearer-token verification plus a check that the account still exists and
//! is enabled (cached per process for at most the configured TTL), as axum extractors that
//! answer in the envelope family `E` of the endpoint.

use std::marker::PhantomData;

use axum::{
    extract::{FromRef, FromRequestParts},
    http::{header, request::Parts},
};

use blog_core::{
    access::Snapshot,
    context::AppContext,
    http::ApiError,
    ports::table::{Table, TableError},
};

use super::{
    model::{StoredUser, ROLE_ADMIN},
    repo,
};

/// The authenticated caller.
#[derive(Clone, Debug)]
pub struct Principal {
    /// Account id.
    pub id: u64,
    /// User name.
    pub username: String,
    /// Current roles of the account.
    pub roles: Vec<String>,
    /// Id of the token used.
    pub token_id: String,
    /// The account as this request read it, when its status was not cached: handlers that
    /// need the caller's account take it instead of reading it again.
    pub account: Option<Box<StoredUser>>,
}

impl Principal {
    /// Whether the caller holds `ROLE_ADMIN`.
    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == ROLE_ADMIN)
    }
}

/// How an account shows as the author of something: its name (nickname, else user name) and
/// avatar URL (empty when none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthorCard {
    /// Nickname, else user name.
    pub name: String,
    /// Avatar URL; empty when none.
    pub avatar: String,
}

impl AuthorCard {
    fn of(account: &StoredUser) -> Self {
        Self { name: account.display_name().to_string(), avatar: account.avatar.clone() }
    }
}

/// The author card of an account (one GetItem); `None` when the account is gone.
pub async fn author_card(
    table: &dyn Table,
    user_id: u64,
) -> Result<Option<AuthorCard>, TableError> {
    Ok(repo::find_by_id(table, user_id).await?.as_ref().map(AuthorCard::of))
}

impl Principal {
    /// The caller's author card: from the account the token check read in this request, else
    /// read now (one GetItem).
    pub async fn author_card(&self, table: &dyn Table) -> Result<Option<AuthorCard>, TableError> {
        match &self.account {
            Some(account) => Ok(Some(AuthorCard::of(account))),
            None => author_card(table, self.id).await,
        }
    }
}

/// Verifies the request's bearer token and the account behind it.
pub async fn authenticate<E: ApiError>(ctx: &AppContext, parts: &Parts) -> Result<Principal, E> {
    let header = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .ok_or_else(|| E::unauthorized("missing bearer token"))?;
    let token = header
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .ok_or_else(|| E::unauthorized("authorization header must be `Bearer <token>`"))?;
    let claims =
        ctx.tokens.verify(token).ok_or_else(|| E::unauthorized("invalid or expired token"))?;
    let id: u64 = claims.sub.parse().map_err(|_| E::unauthorized("invalid or expired token"))?;
    let (snapshot, account) = match ctx.principals.get(id) {
        Some(snapshot) => (snapshot, None),
        None => {
            let user = repo::find_by_id(ctx.table.as_ref(), id)
                .await
                .map_err(|e| E::internal(e.into()))?;
            let snapshot = user.as_ref().map(|u| Snapshot {
                active: u.is_active(),
                username: u.username.clone(),
                roles: u.roles.clone(),
            });
            ctx.principals.put(id, snapshot.clone());
            (snapshot, user.map(Box::new))
        }
    };
    match snapshot {
        Some(s) if s.active => Ok(Principal {
            id,
            username: s.username,
            roles: s.roles,
            token_id: claims.jti,
            account,
        }),
        _ => Err(E::unauthorized("account is disabled or deleted")),
    }
}

/// Any signed-in caller.
pub struct Authenticated<E>(pub Principal, pub PhantomData<E>);

impl<S, E> FromRequestParts<S> for Authenticated<E>
where
    S: Send + Sync,
    AppContext: FromRef<S>,
    E: ApiError,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, E> {
        let ctx = &AppContext::from_ref(state);
        authenticate(ctx, parts).await.map(|p| Self(p, PhantomData))
    }
}

/// A signed-in administrator (`ROLE_ADMIN`); others get 403.
pub struct AdminOnly<E>(pub Principal, pub PhantomData<E>);

impl<S, E> FromRequestParts<S> for AdminOnly<E>
where
    S: Send + Sync,
    AppContext: FromRef<S>,
    E: ApiError,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, E> {
        let ctx = &AppContext::from_ref(state);
        let principal = authenticate::<E>(ctx, parts).await?;
        if principal.is_admin() {
            Ok(Self(principal, PhantomData))
        } else {
            Err(E::forbidden("administrator role required"))
        }
    }
}
