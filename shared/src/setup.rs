//! Composition: builds the adapters named by the configuration and the [`AppContext`] on them.
//! The local gateway and the Lambda functions call this and only wire routers.

use std::{path::Path, sync::Arc};

use anyhow::{bail, Context};

use crate::{
    auth::bootstrap::{ensure_admin, Outcome},
    config::{Config, SecretSource, StoreKind},
    context::AppContext,
    ports::table::Table,
};

/// Opens the table adapter the configuration names.
pub async fn open_table(config: &Config) -> anyhow::Result<Arc<dyn Table>> {
    match config.store {
        #[cfg(feature = "embedded")]
        StoreKind::Embedded => {
            let path = config.data_dir.join("blog.db");
            let table = crate::ports::table::embedded::SqliteTable::open(&path)
                .with_context(|| format!("opening {}", path.display()))?;
            Ok(Arc::new(table))
        }
        #[cfg(feature = "dynamodb")]
        StoreKind::DynamoDb => {
            let sdk = crate::ports::aws::sdk_config().await;
            let table = crate::ports::table::dynamodb::DynamoTable::from_config(
                &sdk,
                &config.table_name,
                config.dynamodb_endpoint.as_deref(),
            );
            if config.create_table {
                table.create_table_if_missing().await?;
            }
            Ok(Arc::new(table))
        }
        #[allow(unreachable_patterns)]
        other => bail!("this binary was built without the {other:?} adapter"),
    }
}

/// Resolves a secret: given directly, or read from Secrets Manager.
pub async fn resolve_secret(source: &SecretSource, what: &str) -> anyhow::Result<String> {
    match source {
        SecretSource::Value(value) => Ok(value.clone()),
        #[cfg(feature = "secrets")]
        SecretSource::SecretsManager(arn) => {
            let sdk = crate::ports::aws::sdk_config().await;
            crate::ports::secrets::secret_string(&sdk, arn).await
        }
        #[allow(unreachable_patterns)]
        _ => bail!("{what}: no value configured for this binary"),
    }
}

/// The JWT secret: configured, from Secrets Manager, or (local gateway only) generated once
/// and kept in the data dir so tokens survive a restart.
pub async fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    match &config.jwt_secret {
        SecretSource::Generated => generated_secret(&config.data_dir.join("jwt-secret")),
        source => Ok(resolve_secret(source, "BLOG_JWT_SECRET").await?.into_bytes()),
    }
}

fn generated_secret(path: &Path) -> anyhow::Result<Vec<u8>> {
    if let Ok(existing) = std::fs::read_to_string(path) {
        if existing.trim().len() >= 32 {
            return Ok(existing.trim().as_bytes().to_vec());
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let secret: String = {
        use rand::Rng;
        let bytes: [u8; 32] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    };
    std::fs::write(path, &secret).with_context(|| format!("writing {}", path.display()))?;
    Ok(secret.into_bytes())
}

/// What a process needs beyond the table.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// Verifies or issues tokens (needs the JWT secret).
    pub tokens: bool,
    /// Emits events (needs the event queue).
    pub events: bool,
}

impl Needs {
    /// Anonymous reads only: no secret is fetched at cold start.
    pub const PUBLIC: Needs = Needs { tokens: false, events: false };
    /// Authenticated endpoints.
    pub const TOKENS: Needs = Needs { tokens: true, events: false };
    /// Authenticated endpoints that emit events.
    pub const TOKENS_AND_EVENTS: Needs = Needs { tokens: true, events: true };
}

/// Builds the context: table adapter and JWT keys.
pub async fn context(config: Config) -> anyhow::Result<AppContext> {
    let table = open_table(&config).await?;
    let secret = jwt_secret(&config).await?;
    Ok(AppContext::new(table, config, &secret))
}

/// Builds the context of a Lambda function with only what it needs: a function that serves
/// anonymous reads skips the secret (its key is random, so no token would verify), and only a
/// function that emits events connects to the queue.
pub async fn function_context(config: Config, needs: Needs) -> anyhow::Result<AppContext> {
    let table = open_table(&config).await?;
    let secret = if needs.tokens {
        if matches!(config.jwt_secret, SecretSource::Generated) {
            bail!("BLOG_JWT_SECRET or BLOG_JWT_SECRET_ARN must be set for this function");
        }
        jwt_secret(&config).await?
    } else {
        use rand::Rng;
        rand::rng().random::<[u8; 32]>().to_vec()
    };
    let queue = if needs.events { Some(event_queue(&config).await?) } else { None };
    let ctx = AppContext::new(table, config, &secret);
    Ok(match queue {
        Some(queue) => ctx.with_events(queue),
        None => ctx,
    })
}

/// The SQS event queue the configuration names.
pub async fn event_queue(
    config: &Config,
) -> anyhow::Result<Arc<dyn crate::ports::events::EventQueue>> {
    let Some(url) = config.events_queue_url.clone() else {
        bail!("BLOG_EVENTS_QUEUE_URL must be set for this function");
    };
    #[cfg(feature = "sqs")]
    {
        let sdk = crate::ports::aws::sdk_config().await;
        let queue = crate::ports::events::sqs::SqsQueue::from_config(
            &sdk,
            url,
            config.sqs_endpoint.as_deref(),
        );
        Ok(Arc::new(queue))
    }
    #[cfg(not(feature = "sqs"))]
    bail!("this binary was built without the SQS adapter (queue {url})")
}

/// Creates the configured administrator when no account with that user name exists.
pub async fn bootstrap_admin(ctx: &AppContext) -> anyhow::Result<Option<Outcome>> {
    let Some(admin) = ctx.config.admin.clone() else {
        return Ok(None);
    };
    let password = resolve_secret(&admin.password, "BLOG_ADMIN_PASSWORD").await?;
    ensure_admin(ctx, &admin.username, &password, &admin.email).await.map(Some)
}
