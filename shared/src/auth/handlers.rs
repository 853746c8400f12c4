//! Handlers of /api/v1/auth.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    context::AppContext,
    http::{
        docs::{Null, INTERNAL, UNAUTHORIZED},
        extract::{ClientAddress, JsonBody},
        Failure,
    },
    users::{
        envelope::{AccountEnvelope, AccountError, AccountErrorEnvelope, AccountOk},
        model::{
            parse_nickname, AccountStatus, Email, Password, StoredUser, UserView, Username,
            ROLE_USER,
        },
        principal::Authenticated,
        repo::{self, StoreError},
    },
};

use super::{password, throttle};

type Body<T> = JsonBody<T, AccountError>;

const BAD_CREDENTIALS: &str = "wrong username or password";

/// Registration request.
#[derive(Deserialize, ToSchema)]
#[schema(examples(json!({
    "username": "alice_01", "password": "Passw0rd1", "email": "alice@example.com",
    "nickname": "Alice"
})))]
pub struct RegisterRequest {
    /// 3-20 letters, digits or underscores; unique case-insensitively.
    #[schema(pattern = "^[A-Za-z0-9_]{3,20}$", min_length = 3, max_length = 20)]
    username: String,
    /// 8-20 characters with an upper-case letter, a lower-case letter and a digit (ASCII).
    #[schema(
        min_length = 8,
        max_length = 20,
        format = Password,
        pattern = r"^(?=[\s\S]*[A-Z])(?=[\s\S]*[a-z])(?=[\s\S]*[0-9])"
    )]
    password: String,
    /// An e-mail address, unique case-insensitively.
    #[schema(format = Email, max_length = 254)]
    email: String,
    /// At most 30 characters; absent, `null` or empty means the user name.
    #[serde(default)]
    #[schema(max_length = 30)]
    nickname: Option<String>,
}

/// Registers an account: roles `ROLE_USER`, status 1.
#[utoipa::path(
    post,
    path = "/register",
    operation_id = "register",
    tag = "auth",
    request_body = RegisterRequest,
    responses(
        (status = 200, description = "The new account: roles `ROLE_USER`, status 1",
            body = AccountEnvelope<UserView>),
        (status = 400, description = "A field breaks its rule (the message names it), the user \
            name is taken or the e-mail is registered", body = AccountErrorEnvelope),
        (status = 500, description = INTERNAL, body = AccountErrorEnvelope),
    )
)]
pub async fn register(
    State(ctx): State<AppContext>,
    JsonBody(request, ..): Body<RegisterRequest>,
) -> Result<AccountOk<UserView>, AccountError> {
    let username = Username::parse(&request.username).map_err(Failure::Invalid)?;
    let password = Password::parse(&request.password).map_err(Failure::Invalid)?;
    let email = Email::parse(&request.email).map_err(Failure::Invalid)?;
    let nickname = match request.nickname.as_deref() {
        None | Some("") => username.as_str().to_string(),
        Some(raw) => parse_nickname(raw).map_err(Failure::Invalid)?,
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
        status: AccountStatus::Active,
        roles,
        password_hash,
        create_time: now.clone(),
        update_time: now,
    };
    match repo::create(table, &user).await {
        Ok(()) => Ok(user),
        Err(StoreError::UsernameTaken) => {
            Err(Failure::Invalid("username is already taken".into()).into())
        }
        Err(StoreError::EmailTaken) => {
            Err(Failure::Invalid("email is already registered".into()).into())
        }
        Err(other) => Err(Failure::Internal(other.into()).into()),
    }
}

/// Login request: `username` is a user name or an e-mail.
#[derive(Deserialize, ToSchema)]
#[schema(examples(json!({"username": "alice_01", "password": "Passw0rd1"})))]
pub struct LoginRequest {
    /// User name or e-mail (not blank).
    #[schema(min_length = 1, pattern = "\\S")]
    username: String,
    /// Password (not empty).
    #[schema(min_length = 1, format = Password)]
    password: String,
}

/// Login answer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginResponse {
    /// The JWT to send as `Authorization: Bearer <token>`.
    token: String,
    /// Always `Bearer`.
    #[schema(schema_with = bearer)]
    token_type: &'static str,
    /// Validity of the token in seconds.
    expires_in: u64,
    /// The signed-in account.
    user: LoginUser,
}

fn bearer() -> utoipa::openapi::Object {
    crate::http::docs::string_enum("Always `Bearer`", ["Bearer"])
}

/// The account in a login answer.
#[derive(Serialize, ToSchema)]
struct LoginUser {
    /// Account id.
    id: u64,
    /// User name.
    username: String,
    /// Current roles.
    #[schema(schema_with = crate::users::model::roles_schema)]
    roles: Vec<String>,
}

/// Signs in with a user name or e-mail and a password, and issues a token.
#[utoipa::path(
    post,
    path = "/login",
    operation_id = "login",
    tag = "auth",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = AccountEnvelope<LoginResponse>),
        (status = 400, description = "The body is not a JSON object with both fields",
            body = AccountErrorEnvelope),
        (status = 401, description = "Wrong user name or password, or a disabled account",
            body = AccountErrorEnvelope),
        (status = 429, description = "Too many failed logins for this user name",
            body = AccountErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until the lock ends"))),
        (status = 500, description = INTERNAL, body = AccountErrorEnvelope),
    )
)]
pub async fn login(
    State(ctx): State<AppContext>,
    ClientAddress(address): ClientAddress,
    JsonBody(request, ..): Body<LoginRequest>,
) -> Result<AccountOk<LoginResponse>, AccountError> {
    let table = ctx.table.as_ref();
    let login = request.username.trim();
    if login.is_empty() || request.password.is_empty() {
        return Err(Failure::Invalid("username and password are required".into()).into());
    }
    if login.chars().count() > throttle::MAX_LOGIN_CHARS {
        return Err(Failure::Unauthorized(BAD_CREDENTIALS.into()).into());
    }
    let user = repo::find_by_login(table, login).await?;
    // One counter per account, whether it signs in with its name or its e-mail.
    let name = user.as_ref().map_or(login, |u| u.username.as_str()).to_string();
    let attempt = match throttle::reserve(table, &ctx.config, &name, &address).await? {
        throttle::Reservation::Granted(attempt) => attempt,
        throttle::Reservation::Locked { retry_after_secs } => {
            return Err(AccountError::TooManyRequests { retry_after_secs });
        }
    };
    let hash = user.as_ref().map(|u| u.password_hash.clone());
    let verified = password::verify(request.password, hash).await?;
    // A disabled account answers as a wrong password does: nothing tells the two apart.
    let Some(user) = user.filter(|u| verified && u.is_active()) else {
        let login = throttle::digest(&name);
        tracing::info!(login, address, verified, "failed login");
        return Err(Failure::Unauthorized(BAD_CREDENTIALS.into()).into());
    };
    throttle::succeeded(table, &attempt).await?;
    let token = ctx.tokens.issue(user.id, &user.username, &user.roles)?;
    tracing::info!(user_id = user.id, "signed in");
    Ok(AccountOk(LoginResponse {
        token,
        token_type: "Bearer",
        expires_in: ctx.tokens.ttl_seconds(),
        user: LoginUser { id: user.id, username: user.username, roles: user.roles },
    }))
}

/// Records the sign-out; the client discards its token (it stays valid until it expires).
#[utoipa::path(
    post,
    path = "/logout",
    operation_id = "logout",
    tag = "auth",
    security(("bearerAuth" = [])),
    responses(
        (status = 200, description = "Sign-out recorded", body = AccountEnvelope<Null>),
        (status = 401, description = UNAUTHORIZED, body = AccountErrorEnvelope),
        (status = 500, description = INTERNAL, body = AccountErrorEnvelope),
    )
)]
pub async fn logout(Authenticated(principal, ..): Authenticated<AccountError>) -> AccountOk<()> {
    tracing::info!(user_id = principal.id, token_id = %principal.token_id, "signed out");
    AccountOk(())
}
