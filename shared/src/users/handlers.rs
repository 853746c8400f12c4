//! Handlers of /api/v1/users.

use axum::extract::State;
use serde::Deserialize;

use crate::{
    auth::principal::{AdminOnly, Authenticated},
    context::AppContext,
    http::{
        account::{AccountError, AccountOk},
        extract::{JsonBody, PathId},
    },
};

use super::{
    model::{parse_avatar, parse_nickname, parse_roles, Email, StoredUser, UserView, ROLE_ADMIN},
    repo::{self, StoreError},
};

type Body<T> = JsonBody<T, AccountError>;
type Id = PathId<AccountError>;

async fn load(ctx: &AppContext, id: u64) -> Result<StoredUser, AccountError> {
    repo::find_by_id(ctx.table.as_ref(), id)
        .await?
        .ok_or_else(|| AccountError::NotFound("user does not exist".into()))
}

/// Profile fields anyone may change on their own account.
#[derive(Deserialize)]
pub struct ProfileChanges {
    nickname: Option<String>,
    email: Option<String>,
    avatar: Option<String>,
}

impl ProfileChanges {
    fn apply(&self, user: &mut StoredUser) -> Result<(), AccountError> {
        if let Some(nickname) = &self.nickname {
            user.nickname = parse_nickname(nickname).map_err(AccountError::BadRequest)?;
        }
        if let Some(email) = &self.email {
            user.email = Email::parse(email).map_err(AccountError::BadRequest)?.as_str().into();
        }
        if let Some(avatar) = &self.avatar {
            user.avatar = parse_avatar(avatar).map_err(AccountError::BadRequest)?;
        }
        Ok(())
    }
}

async fn save(
    ctx: &AppContext,
    before: &StoredUser,
    mut after: StoredUser,
) -> Result<UserView, AccountError> {
    after.update_time = crate::time::now_string();
    match repo::replace(ctx.table.as_ref(), before, &after).await {
        Ok(()) => {
            ctx.principals.invalidate(after.id);
            Ok(after.view())
        }
        Err(StoreError::EmailTaken) => {
            Err(AccountError::BadRequest("email is already registered".into()))
        }
        Err(StoreError::Concurrent) => {
            Err(AccountError::Conflict("account was changed concurrently, please retry".into()))
        }
        Err(other) => Err(AccountError::Internal(other.into())),
    }
}

/// GET /me.
pub async fn me(
    State(ctx): State<AppContext>,
    Authenticated(principal, ..): Authenticated<AccountError>,
) -> Result<AccountOk<UserView>, AccountError> {
    Ok(AccountOk(load(&ctx, principal.id).await?.view()))
}

/// Body of PUT /me: `username` and `status` are accepted only unchanged.
#[derive(Deserialize)]
pub struct UpdateMe {
    #[serde(flatten)]
    profile: ProfileChanges,
    username: Option<String>,
    status: Option<i64>,
}

/// PUT /me.
pub async fn update_me(
    State(ctx): State<AppContext>,
    Authenticated(principal, ..): Authenticated<AccountError>,
    JsonBody(request, ..): Body<UpdateMe>,
) -> Result<AccountOk<UserView>, AccountError> {
    let before = load(&ctx, principal.id).await?;
    if request.username.as_ref().is_some_and(|u| *u != before.username) {
        return Err(AccountError::BadRequest("username cannot be changed".into()));
    }
    if request.status.is_some_and(|s| s != before.status) {
        return Err(AccountError::BadRequest(
            "status cannot be changed on your own profile".into(),
        ));
    }
    let mut after = before.clone();
    request.profile.apply(&mut after)?;
    Ok(AccountOk(save(&ctx, &before, after).await?))
}

/// GET /{id} (admin).
pub async fn get_user(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<AccountError>,
    PathId(id, ..): Id,
) -> Result<AccountOk<UserView>, AccountError> {
    Ok(AccountOk(load(&ctx, id).await?.view()))
}

/// Body of PUT /{id} (admin).
#[derive(Deserialize)]
pub struct AdminUpdate {
    #[serde(flatten)]
    profile: ProfileChanges,
    status: Option<i64>,
    roles: Option<Vec<String>>,
}

/// PUT /{id} (admin): profile, status (0 disables, 1 re-enables) and roles.
pub async fn update_user(
    State(ctx): State<AppContext>,
    AdminOnly(admin, ..): AdminOnly<AccountError>,
    PathId(id, ..): Id,
    JsonBody(request, ..): Body<AdminUpdate>,
) -> Result<AccountOk<UserView>, AccountError> {
    let before = load(&ctx, id).await?;
    let mut after = before.clone();
    request.profile.apply(&mut after)?;
    if let Some(status) = request.status {
        if status != 0 && status != 1 {
            return Err(AccountError::BadRequest(
                "status must be 0 (disabled) or 1 (active)".into(),
            ));
        }
        if status == 0 && id == admin.id {
            return Err(AccountError::BadRequest("you cannot disable your own account".into()));
        }
        after.status = status;
    }
    if let Some(roles) = &request.roles {
        after.roles = parse_roles(roles).map_err(AccountError::BadRequest)?;
        if id == admin.id && !after.roles.iter().any(|r| r == ROLE_ADMIN) {
            return Err(AccountError::BadRequest(
                "you cannot remove your own administrator role".into(),
            ));
        }
    }
    let view = save(&ctx, &before, after).await?;
    tracing::info!(
        admin_id = admin.id,
        user_id = id,
        status = view.status,
        "account updated by administrator"
    );
    Ok(AccountOk(view))
}

/// DELETE /{id} (admin): idempotent; frees the user name and e-mail.
pub async fn delete_user(
    State(ctx): State<AppContext>,
    AdminOnly(admin, ..): AdminOnly<AccountError>,
    PathId(id, ..): Id,
) -> Result<AccountOk<()>, AccountError> {
    if id == admin.id {
        return Err(AccountError::BadRequest("you cannot delete your own account".into()));
    }
    if let Some(user) = repo::find_by_id(ctx.table.as_ref(), id).await? {
        match repo::delete(ctx.table.as_ref(), &user).await {
            Ok(()) | Err(StoreError::Concurrent) => {}
            Err(other) => return Err(AccountError::Internal(other.into())),
        }
        tracing::info!(admin_id = admin.id, user_id = id, "account deleted");
    }
    ctx.principals.invalidate(id);
    Ok(AccountOk(()))
}
