//! Handlers of /api/v1/auth.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::Null,
        extract::{ClientAddress, JsonBody},
        Failure,
    },
};
use blog_users::envelope::AccountErrors;
use blog_users::{
    envelope::{AccountEnvelope, AccountError, AccountErrorEnvelope, AccountFault, AccountOk},
    model::{AccountStatus, Email, Nickname, Password, StoredUser, UserView, Username, ROLE_USER},
    principal::Authenticated,
    repo::{self, StoreError},
};

use super::{
    password,
    signups::{self, Allowance, Slot},
    throttle,
};

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
    /// At most 30 characters once control and bidirectional-control characters are removed,
    /// and not only invisible ones; absent, `null` or empty means the user name.
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
        (status = 429, description = "This client address registered its limit of accounts \
            this hour (`BLOG_REGISTRATION_LIMIT`)", body = AccountErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until the hour ends"))),
        AccountErrors<Internal>,
    )
)]
pub async fn register(
    State(ctx): State<AppContext>,
    ClientAddress(address): ClientAddress,
    JsonBody(request, ..): Body<RegisterRequest>,
) -> Result<AccountOk<UserView>, AccountError> {
    let username = Username::parse(&request.username).map_err(Failure::Invalid)?;
    let password = Password::parse(&request.password).map_err(Failure::Invalid)?;
    let email = Email::parse(&request.email).map_err(Failure::Invalid)?;
    let nickname = match request.nickname.as_deref() {
        None => None,
        Some(raw) => Nickname::parse(raw).map_err(Failure::Invalid)?,
    }
    .unwrap_or_else(|| Nickname::of_username(&username));
    // Checked before the password is hashed: an address at its limit costs one read.
    let limit = ctx.config.registration_limit;
    let slot = match signups::allowance(ctx.table.as_ref(), limit, &address).await? {
        Allowance::Room(slot) => slot,
        Allowance::Full { retry_after_secs } => {
            tracing::info!(address, "registration refused: the address is at its limit");
            return Err(AccountFault::TooManyRegistrations { retry_after_secs }.into());
        }
    };
    let counted = Counted { address: &address, limit, slot };
    let account = NewAccount { username, password, email, nickname, roles: vec![ROLE_USER.into()] };
    let user = new_account(&ctx, account, Some(counted)).await?;
    tracing::info!(user_id = user.id, username = %user.username, "account registered");
    Ok(AccountOk::ok(user.view()))
}

/// An account to create.
pub(crate) struct NewAccount {
    /// Its user name.
    pub username: Username,
    /// Its password as typed (hashed when stored).
    pub password: Password,
    /// Its e-mail.
    pub email: Email,
    /// Its nickname.
    pub nickname: Nickname,
    /// Its roles.
    pub roles: Vec<String>,
}

/// A registration's count on its client address's counter.
pub(crate) struct Counted<'a> {
    address: &'a str,
    limit: u32,
    slot: Slot,
}

/// Stores a new active account (registration, counted on its address, and the administrator's
/// bootstrap, not counted): the account, its markers and the count in one transaction.
pub(crate) async fn new_account(
    ctx: &AppContext,
    account: NewAccount,
    mut counted: Option<Counted<'_>>,
) -> Result<StoredUser, AccountError> {
    let table = ctx.table.as_ref();
    let password_hash = password::hash(account.password.expose().to_string()).await?;
    let now = blog_core::time::now_string();
    let user = StoredUser {
        id: repo::new_id(table).await?,
        username: account.username.as_str().to_string(),
        email: account.email.as_str().to_string(),
        nickname: account.nickname.into_string(),
        avatar: String::new(),
        status: AccountStatus::Active,
        roles: account.roles,
        password_hash,
        create_time: now.clone(),
        update_time: now,
    };
    // The count is refused only when the counter changed since it was read: another
    // registration from the address committed first (at most `limit` of them before the
    // counter is full), or the window ended (then the next try opens one).
    let attempts = counted.as_ref().map_or(1, |c| c.limit as usize + 2);
    for _ in 0..attempts {
        let count = counted.as_ref().map(|c| c.slot.write());
        match repo::create(table, &user, count).await {
            Ok(()) => return Ok(user),
            Err(StoreError::UsernameTaken) => {
                return Err(Failure::Invalid("username is already taken".into()).into())
            }
            Err(StoreError::EmailTaken) => {
                return Err(Failure::Invalid("email is already registered".into()).into())
            }
            Err(StoreError::ExtraRefused) => {}
            Err(other) => return Err(Failure::Internal(other.into()).into()),
        }
        // The address's counter changed since it was read: read it again.
        let Some(c) = counted.as_mut() else { break };
        match signups::allowance(table, c.limit, c.address).await? {
            Allowance::Room(slot) => c.slot = slot,
            Allowance::Full { retry_after_secs } => {
                return Err(AccountFault::TooManyRegistrations { retry_after_secs }.into())
            }
        }
    }
    Err(Failure::Internal(anyhow::anyhow!("the registration counter kept changing")).into())
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
    blog_core::http::docs::string_enum("Always `Bearer`", ["Bearer"])
}

/// The account in a login answer.
#[derive(Serialize, ToSchema)]
struct LoginUser {
    /// Account id.
    id: u64,
    /// User name.
    username: String,
    /// Current roles.
    #[schema(schema_with = blog_users::model::roles_schema)]
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
        AccountErrors<Internal>,
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
            return Err(AccountFault::TooManyRequests { retry_after_secs }.into());
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
    Ok(AccountOk::ok(LoginResponse {
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
        AccountErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn logout(Authenticated(principal, ..): Authenticated<AccountError>) -> AccountOk<()> {
    tracing::info!(user_id = principal.id, token_id = %principal.token_id, "signed out");
    AccountOk::ok(())
}
