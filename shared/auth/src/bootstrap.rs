//! The administrator created from configuration (at start-up or by the `create-admin`
//! subcommand) when no account with that user name exists.

use blog_core::context::AppContext;
use blog_users::{
    model::{Email, Nickname, Password, Username, ROLE_ADMIN, ROLE_USER},
    repo,
};

/// What the bootstrap did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A new administrator with this id.
    Created(u64),
    /// An account with the user name exists already; nothing changed.
    AlreadyExists,
}

/// The administrator's user name from configuration, checked.
pub fn admin_username(username: &str) -> anyhow::Result<Username> {
    Username::parse(username).map_err(|e| anyhow::anyhow!("admin {e}"))
}

/// Whether an account with the user name `username` exists.
pub async fn account_exists(ctx: &AppContext, username: &Username) -> anyhow::Result<bool> {
    Ok(repo::find_by_login(ctx.table.as_ref(), username.as_str()).await?.is_some())
}

/// Creates the administrator unless an account with `username` exists.
pub async fn ensure_admin(
    ctx: &AppContext,
    username: &str,
    password: &str,
    email: &str,
) -> anyhow::Result<Outcome> {
    let username = admin_username(username)?;
    let password = Password::parse(password).map_err(|e| anyhow::anyhow!("admin {e}"))?;
    let email = Email::parse(email).map_err(|e| anyhow::anyhow!("admin {e}"))?;
    if account_exists(ctx, &username).await? {
        return Ok(Outcome::AlreadyExists);
    }
    let account = super::handlers::NewAccount {
        nickname: Nickname::of_username(&username),
        username: username.clone(),
        password,
        email,
        roles: vec![ROLE_USER.to_string(), ROLE_ADMIN.to_string()],
    };
    // The administrator is no registration: not counted on any address.
    match super::handlers::new_account(ctx, account, None).await {
        Ok(user) => {
            tracing::info!(user_id = user.id, username = %user.username, "administrator created");
            Ok(Outcome::Created(user.id))
        }
        Err(_) if account_exists(ctx, &username).await? => Ok(Outcome::AlreadyExists),
        Err(error) => Err(anyhow::anyhow!("administrator could not be created: {error}")),
    }
}
