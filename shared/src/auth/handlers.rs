//! Handlers of /api/v1/auth.

use axum::extract::State;
use serde::{Deserialize, Serialize};

use crate::{
    context::AppContext,
    http::{
        account::{AccountError, AccountOk},
        extract::JsonBody,
    },
    users::{
        model::{
            parse_nickname, Email, Password, StoredUser, UserView, Username, ROLE_USER,
            STATUS_ACTIVE,
        },
        repo::{self, StoreError},
    },
};

use super::{password, principal::Authenticated, throttle};

type Body<T> = JsonBody<T, AccountError>;

const BAD_CREDENTIALS: &str = "wrong username or password";

/// Registration request.
#[derive(Deserialize)]
pub struct RegisterRequest {
    username: String,
    password: String,
    email: String,
    #[serde(default)]
    nickname: Option<String>,
}

/// POST /register: creates an account with `ROLE_USER`, status 1.
pub async fn register(
    State(ctx): State<AppContext>,
    JsonBody(request, ..): Body<RegisterRequest>,
) -> Result<AccountOk<UserView>, AccountError> {
    let username = Username::parse(&request.username).map_err(AccountError::BadRequest)?;
    let password = Password::parse(&request.password).map_err(AccountError::BadRequest)?;
    let email = Email::parse(&request.email).map_err(AccountError::BadRequest)?;
    let nickname = match request.nickname.as_deref() {
        None | Some("") => username.as_str().to_string(),
        Some(raw) => parse_nickname(raw).map_err(AccountError::BadRequest)?,
    };
    let user =
        new_account(&ctx, username, password, email, nickname, vec![ROLE_USER.into()]).await?;
    tracing::info!(user_id = user.id, username = %user.username, "account registered");
    Ok(AccountOk(user.view()))
}

/// Stores a new active account (registration and administrator bootstrap).
pub(crate) async fn new_account(
    ctx: &AppContext,
    username: Username,
    password: Password,
    email: Email,
    nickname: String,
    roles: Vec<String>,
) -> Result<StoredUser, AccountError> {
    let table = ctx.table.as_ref();
    let password_hash = password::hash(password.expose().to_string()).await?;
    let now = crate::time::now_string();
    let user = StoredUser {
        id: repo::new_id(table).await?,
        username: username.as_str().to_string(),
        email: email.as_str().to_string(),
        nickname,
        avatar: String::new(),
        status: STATUS_ACTIVE,
        roles,
        password_hash,
        create_time: now.clone(),
        update_time: now,
    };
    match repo::create(table, &user).await {
        Ok(()) => Ok(user),
        Err(StoreError::UsernameTaken) => {
            Err(AccountError::BadRequest("username is already taken".into()))
        }
        Err(StoreError::EmailTaken) => {
            Err(AccountError::BadRequest("email is already registered".into()))
        }
        Err(other) => Err(AccountError::Internal(other.into())),
    }
}

/// Login request: `username` is a user name or an e-mail.
#[derive(Deserialize)]
pub struct LoginRequest {
    username: String,
    password: String,
}

/// Login answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginResponse {
    token: String,
    token_type: &'static str,
    expires_in: u64,
    user: LoginUser,
}

#[derive(Serialize)]
struct LoginUser {
    id: u64,
    username: String,
    roles: Vec<String>,
}

/// POST /login: verifies the credentials and issues a token.
pub async fn login(
    State(ctx): State<AppContext>,
    JsonBody(request, ..): Body<LoginRequest>,
) -> Result<AccountOk<LoginResponse>, AccountError> {
    let table = ctx.table.as_ref();
    let login = request.username.trim();
    if login.is_empty() || request.password.is_empty() {
        return Err(AccountError::BadRequest("username and password are required".into()));
    }
    let user = if login.len() <= 254 { repo::find_by_login(table, login).await? } else { None };
    let throttle_key = user.as_ref().map_or(login, |u| u.username.as_str()).to_string();
    if let Some(retry_after_secs) = throttle::locked_for(table, &ctx.config, &throttle_key).await? {
        return Err(AccountError::TooManyRequests { retry_after_secs });
    }
    let hash = user.as_ref().map(|u| u.password_hash.clone());
    if !password::verify(request.password, hash).await? {
        throttle::record_failure(table, &ctx.config, &throttle_key).await?;
        tracing::info!(login = %throttle_key, "failed login");
        return Err(AccountError::Unauthorized(BAD_CREDENTIALS.into()));
    }
    let user = user.ok_or_else(|| AccountError::Unauthorized(BAD_CREDENTIALS.into()))?;
    if !user.is_active() {
        return Err(AccountError::Unauthorized("account is disabled".into()));
    }
    throttle::reset(table, &throttle_key).await?;
    let token = ctx.tokens.issue(user.id, &user.username, &user.roles)?;
    tracing::info!(user_id = user.id, "signed in");
    Ok(AccountOk(LoginResponse {
        token,
        token_type: "Bearer",
        expires_in: ctx.tokens.ttl_seconds(),
        user: LoginUser { id: user.id, username: user.username, roles: user.roles },
    }))
}

/// POST /logout: records the sign-out; the client discards its token.
pub async fn logout(Authenticated(principal, ..): Authenticated<AccountError>) -> AccountOk<()> {
    tracing::info!(user_id = principal.id, token_id = %principal.token_id, "signed out");
    AccountOk(())
}
