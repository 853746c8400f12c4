//! Handlers of /api/v1/users.

use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;

use blog_core::{
    codes::Coded,
    context::AppContext,
    http::{
        docs::Null,
        extract::{JsonBody, PathId},
        Failure,
    },
};

use super::{
    envelope::{AccountEnvelope, AccountError, AccountErrorEnvelope, AccountOk},
    model::{
        parse_avatar, parse_roles, roles_or_null_schema, AccountStatus, Email, Nickname,
        StoredUser, UserView, ROLE_ADMIN,
    },
    principal::{AdminOnly, Authenticated, Principal},
    renames::AuthorRenamedEvent,
    repo::{self, StoreError},
    Profiles,
};

type Body<T> = JsonBody<T, AccountError>;
type Id = PathId<AccountError>;

use crate::envelope::AccountErrors;
use blog_core::http::responses::kinds::*;

async fn load(ctx: &AppContext, id: u64) -> Result<StoredUser, AccountError> {
    repo::find_by_id(ctx.table.as_ref(), id)
        .await?
        .ok_or_else(|| Failure::NotFound("user does not exist".into()).into())
}

/// The caller's account: as the token check read it in this request, or read now.
async fn caller_account(
    ctx: &AppContext,
    principal: Principal,
) -> Result<StoredUser, AccountError> {
    match principal.account {
        Some(account) => Ok(*account),
        None => load(ctx, principal.id).await,
    }
}

/// Profile fields anyone may change on their own account; absent or `null` keeps the value.
/// (Each body declares them itself: a flattened struct would hide which field a type error is
/// in.)
struct ProfileChanges<'a> {
    nickname: Option<&'a str>,
    email: Option<&'a str>,
    avatar: Option<&'a str>,
}

impl ProfileChanges<'_> {
    fn apply(&self, user: &mut StoredUser) -> Result<(), AccountError> {
        if let Some(nickname) = self.nickname {
            // Empty clears the nickname: the user name shows.
            let nickname = Nickname::parse(nickname).map_err(Failure::Invalid)?;
            user.nickname = nickname.map(Nickname::into_string).unwrap_or_default();
        }
        if let Some(email) = self.email {
            user.email = Email::parse(email).map_err(Failure::Invalid)?.as_str().into();
        }
        if let Some(avatar) = self.avatar {
            user.avatar = parse_avatar(avatar).map_err(Failure::Invalid)?;
        }
        Ok(())
    }
}

/// Stores a changed account; a change of the author card (name or avatar) emits
/// AuthorRenamedEvent through the outbox, in the same transaction.
async fn save(
    ctx: &Profiles,
    before: &StoredUser,
    mut after: StoredUser,
) -> Result<UserView, AccountError> {
    after.update_time = blog_core::time::now_string();
    let event = AuthorRenamedEvent::of(before, &after);
    let extra = match &event {
        Some(event) => vec![event.outbox_write().map_err(|e| Failure::Internal(e.into()))?],
        None => Vec::new(),
    };
    match repo::replace(ctx.table.as_ref(), before, &after, extra).await {
        Ok(()) => {
            ctx.principals.invalidate(after.id);
            if let Some(event) = event {
                event.deliver(ctx).await;
            }
            Ok(after.view())
        }
        Err(StoreError::EmailTaken) => {
            Err(Failure::Invalid("email is already registered".into()).into())
        }
        Err(StoreError::Concurrent) => {
            Err(Failure::Conflict("account was changed concurrently, please retry".into()).into())
        }
        Err(other) => Err(Failure::Internal(other.into()).into()),
    }
}

/// The caller's own account.
#[utoipa::path(
    get,
    path = "/me",
    operation_id = "getMe",
    tag = "users",
    security(("bearerAuth" = [])),
    responses(
        (status = 200, description = "The caller's account", body = AccountEnvelope<UserView>),
        (status = 404, description = "The account was deleted meanwhile",
            body = AccountErrorEnvelope),
        AccountErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn me(
    State(ctx): State<AppContext>,
    Authenticated(principal, ..): Authenticated<AccountError>,
) -> Result<AccountOk<UserView>, AccountError> {
    Ok(AccountOk::ok(caller_account(&ctx, principal).await?.view()))
}

/// Body of PUT /me: `username` and `status` are accepted only unchanged.
#[derive(Deserialize, ToSchema)]
#[schema(examples(json!({"nickname": "Alice", "avatar": "https://example.com/alice.png"})))]
pub struct UpdateMe {
    /// At most 30 characters once control and bidirectional-control characters are removed,
    /// and not only invisible ones; empty clears it (the user name shows).
    #[schema(max_length = 30)]
    nickname: Option<String>,
    /// An e-mail address no other account holds.
    #[schema(format = Email, max_length = 254)]
    email: Option<String>,
    /// Empty, or an http(s) URL of at most 500 characters.
    #[schema(max_length = 500, pattern = "^(https?://\\S*)?$")]
    avatar: Option<String>,
    /// The current user name (clients echo the profile); another value is refused.
    username: Option<String>,
    /// The current status; another value is refused.
    status: Option<i64>,
}

/// Changes the caller's nickname, e-mail or avatar.
#[utoipa::path(
    put,
    path = "/me",
    operation_id = "updateMe",
    tag = "users",
    security(("bearerAuth" = [])),
    request_body = UpdateMe,
    responses(
        (status = 200, description = "The updated account", body = AccountEnvelope<UserView>),
        (status = 400, description = "A field breaks its rule, the e-mail is taken, or \
            `username`/`status` differ from the current ones", body = AccountErrorEnvelope),
        (status = 404, description = "The account was deleted meanwhile",
            body = AccountErrorEnvelope),
        (status = 409, description = "Changed concurrently, retry", body = AccountErrorEnvelope),
        AccountErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn update_me(
    State(ctx): State<Profiles>,
    Authenticated(principal, ..): Authenticated<AccountError>,
    JsonBody(request, ..): Body<UpdateMe>,
) -> Result<AccountOk<UserView>, AccountError> {
    let before = caller_account(&ctx, principal).await?;
    if request.username.as_ref().is_some_and(|u| *u != before.username) {
        return Err(Failure::Invalid("username cannot be changed".into()).into());
    }
    if request.status.is_some_and(|s| s != before.status.code()) {
        return Err(Failure::Invalid("status cannot be changed on your own profile".into()).into());
    }
    let mut after = before.clone();
    ProfileChanges {
        nickname: request.nickname.as_deref(),
        email: request.email.as_deref(),
        avatar: request.avatar.as_deref(),
    }
    .apply(&mut after)?;
    Ok(AccountOk::ok(save(&ctx, &before, after).await?))
}

/// An account (administrators).
#[utoipa::path(
    get,
    path = "/{id}",
    operation_id = "getUser",
    tag = "users",
    security(("bearerAuth" = [])),
    params(blog_core::http::docs::IdParam),
    responses(
        (status = 200, description = "The account", body = AccountEnvelope<UserView>),
        AccountErrors<(Invalid, Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn get_user(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<AccountError>,
    PathId(id, ..): Id,
) -> Result<AccountOk<UserView>, AccountError> {
    Ok(AccountOk::ok(load(&ctx, id).await?.view()))
}

/// Body of PUT /{id} (admin).
#[derive(Deserialize, ToSchema)]
#[schema(examples(json!({"status": 1, "roles": ["ROLE_USER"]})))]
pub struct AdminUpdate {
    /// At most 30 characters once control and bidirectional-control characters are removed,
    /// and not only invisible ones; empty clears it (the user name shows).
    #[schema(max_length = 30)]
    nickname: Option<String>,
    /// An e-mail address no other account holds.
    #[schema(format = Email, max_length = 254)]
    email: Option<String>,
    /// Empty, or an http(s) URL of at most 500 characters.
    #[schema(max_length = 500, pattern = "^(https?://\\S*)?$")]
    avatar: Option<String>,
    /// 0 disables the account, 1 re-enables it.
    #[schema(minimum = 0, maximum = 1)]
    status: Option<i64>,
    /// New roles; `ROLE_USER` is always kept.
    #[schema(schema_with = roles_or_null_schema)]
    roles: Option<Vec<String>>,
}

/// Changes an account's profile, status (0 disables, 1 re-enables) or roles (administrators).
#[utoipa::path(
    put,
    path = "/{id}",
    operation_id = "updateUser",
    tag = "users",
    security(("bearerAuth" = [])),
    params(blog_core::http::docs::IdParam),
    request_body = AdminUpdate,
    responses(
        (status = 200, description = "The updated account", body = AccountEnvelope<UserView>),
        (status = 400, description = "A bad id, a field that breaks its rule, a taken e-mail, \
            or disabling or demoting yourself", body = AccountErrorEnvelope),
        (status = 409, description = "Changed concurrently, retry", body = AccountErrorEnvelope),
        AccountErrors<(Unauthorized, Forbidden, NotFound, Internal)>,
    )
)]
pub async fn update_user(
    State(ctx): State<Profiles>,
    AdminOnly(admin, ..): AdminOnly<AccountError>,
    PathId(id, ..): Id,
    JsonBody(request, ..): Body<AdminUpdate>,
) -> Result<AccountOk<UserView>, AccountError> {
    let before = load(&ctx, id).await?;
    let mut after = before.clone();
    ProfileChanges {
        nickname: request.nickname.as_deref(),
        email: request.email.as_deref(),
        avatar: request.avatar.as_deref(),
    }
    .apply(&mut after)?;
    if let Some(code) = request.status {
        let status = AccountStatus::from_code(code)
            .ok_or_else(|| Failure::Invalid("status must be 0 (disabled) or 1 (active)".into()))?;
        if status == AccountStatus::Disabled && id == admin.id {
            return Err(Failure::Invalid("you cannot disable your own account".into()).into());
        }
        after.status = status;
    }
    if let Some(roles) = &request.roles {
        after.roles = parse_roles(roles).map_err(Failure::Invalid)?;
        if id == admin.id && !after.roles.iter().any(|r| r == ROLE_ADMIN) {
            return Err(
                Failure::Invalid("you cannot remove your own administrator role".into()).into()
            );
        }
    }
    let view = save(&ctx, &before, after).await?;
    tracing::info!(
        admin_id = admin.id,
        user_id = id,
        status = view.status,
        "account updated by administrator"
    );
    Ok(AccountOk::ok(view))
}

/// Deletes an account (administrators); idempotent, frees the user name and e-mail.
#[utoipa::path(
    delete,
    path = "/{id}",
    operation_id = "deleteUser",
    tag = "users",
    security(("bearerAuth" = [])),
    params(blog_core::http::docs::IdParam),
    responses(
        (status = 200, description = "Deleted, or there was no such user",
            body = AccountEnvelope<Null>),
        (status = 400, description = "A bad id, or your own account", body = AccountErrorEnvelope),
        AccountErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn delete_user(
    State(ctx): State<AppContext>,
    AdminOnly(admin, ..): AdminOnly<AccountError>,
    PathId(id, ..): Id,
) -> Result<AccountOk<()>, AccountError> {
    if id == admin.id {
        return Err(Failure::Invalid("you cannot delete your own account".into()).into());
    }
    if let Some(user) = repo::find_by_id(ctx.table.as_ref(), id).await? {
        match repo::delete(ctx.table.as_ref(), &user).await {
            Ok(()) | Err(StoreError::Concurrent) => {}
            Err(other) => return Err(Failure::Internal(other.into()).into()),
        }
        tracing::info!(admin_id = admin.id, user_id = id, "account deleted");
    }
    ctx.principals.invalidate(id);
    Ok(AccountOk::ok(()))
}
