//! Composition: builds the adapters named by the configuration and the [`AppContext`] on them.
//! The local gateway and the Lambda functions call this and only wire routers.

use std::{path::Path, sync::Arc};

use anyhow::{bail, Context};

#[cfg(feature = "auth")]
use crate::auth::bootstrap::{ensure_admin, Outcome};
use crate::{
    config::{Config, SecretSource, StoreKind, TrustStore},
    context::AppContext,
    ports::{blobs::Blobs, table::Table},
};

/// Opens the table adapter the configuration names.
pub async fn open_table(config: &Config) -> anyhow::Result<Arc<dyn Table>> {
    match config.store {
        #[cfg(feature = "embedded")]
        StoreKind::Embedded => {
            let path = config.data_dir.join("blog.db");
            crate::private_files::private_database(&path)?;
            let table = crate::ports::table::embedded::SqliteTable::open(&path)
                .with_context(|| format!("opening {}", path.display()))?;
            Ok(Arc::new(table))
        }
        #[cfg(feature = "dynamodb")]
        StoreKind::DynamoDb => {
            let sdk = crate::ports::aws::sdk_config(config.aws_trust_store).await?;
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
        StoreKind::Embedded => bail!(
            "BLOG_STORE=embedded, but this binary was built without the embedded table \
             (the Lambda functions carry DynamoDB only): unset BLOG_STORE or set it to dynamodb"
        ),
        #[allow(unreachable_patterns)]
        StoreKind::DynamoDb => bail!(
            "BLOG_STORE=dynamodb, but this binary was built without the DynamoDB adapter: \
             unset BLOG_STORE or set it to embedded"
        ),
    }
}

/// Resolves a secret: given directly, or read from Secrets Manager (its client trusting
/// `trust`, at `endpoint` when given: `BLOG_SECRETSMANAGER_ENDPOINT`).
pub async fn resolve_secret(
    source: &SecretSource,
    what: &str,
    #[cfg_attr(not(feature = "secrets"), allow(unused_variables))] trust: TrustStore,
    #[cfg_attr(not(feature = "secrets"), allow(unused_variables))] endpoint: Option<&str>,
) -> anyhow::Result<String> {
    match source {
        SecretSource::Value(value) => Ok(value.expose().to_string()),
        #[cfg(feature = "secrets")]
        SecretSource::SecretsManager(arn) => {
            let sdk = crate::ports::aws::sdk_config(trust).await?;
            crate::ports::secrets::secret_string(&sdk, endpoint, arn).await
        }
        #[allow(unreachable_patterns)]
        _ => bail!("{what}: no value configured for this binary"),
    }
}

/// Replaces the Secrets Manager references of the secrets this process uses by their values:
/// the actuator token (`actuator`) and the webhook's signing key (when it notifies a webhook).
/// Read once, at start-up.
pub async fn resolve_config_secrets(config: &mut Config, actuator: bool) -> anyhow::Result<()> {
    let (trust, endpoint) = (config.aws_trust_store, config.secretsmanager_endpoint.clone());
    let wanted = [
        (actuator, &mut config.actuator_token, "BLOG_ACTUATOR_TOKEN"),
        (config.webhook_url.is_some(), &mut config.webhook_secret, "BLOG_WEBHOOK_SECRET"),
    ];
    for (used, source, what) in wanted {
        if let Some(reference @ SecretSource::SecretsManager(_)) = source.as_ref().filter(|_| used)
        {
            let value = resolve_secret(reference, what, trust, endpoint.as_deref())
                .await
                .with_context(|| format!("reading {what}_ARN"))?;
            *source = Some(SecretSource::Value(crate::config::Sensitive::new(value)));
        }
    }
    Ok(())
}

/// The JWT secret: configured, from Secrets Manager, or (local gateway only) generated once
/// and kept in the data dir so tokens survive a restart.
pub async fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    match &config.jwt_secret {
        SecretSource::Generated => generated_secret(&config.data_dir.join("jwt-secret")),
        source => Ok(resolve_secret(
            source,
            "BLOG_JWT_SECRET",
            config.aws_trust_store,
            config.secretsmanager_endpoint.as_deref(),
        )
        .await?
        .into_bytes()),
    }
}

fn generated_secret(path: &Path) -> anyhow::Result<Vec<u8>> {
    crate::private_files::secret_file(path)
}

pub use crate::area::Needs;

/// Builds the local gateway's context: table adapter, JWT keys and every cross-feature effect.
#[cfg(feature = "all-areas")]
pub async fn context(mut config: Config) -> anyhow::Result<AppContext> {
    resolve_config_secrets(&mut config, true).await?;
    let table = open_table(&config).await?;
    let secret = jwt_secret(&config).await?;
    Ok(crate::effects::wire(AppContext::new(table, config, &secret)))
}

/// Builds the context of a Lambda function with only what it needs: a function that serves
/// anonymous reads skips the secret (its key is random, so no token would verify), and only a
/// function that emits events connects to the queue.
pub async fn function_context(mut config: Config, needs: Needs) -> anyhow::Result<AppContext> {
    if needs.actuator && config.actuator_token.is_none() {
        bail!("BLOG_ACTUATOR_TOKEN or BLOG_ACTUATOR_TOKEN_ARN must be set for this function");
    }
    resolve_config_secrets(&mut config, needs.actuator).await?;
    let table = open_table(&config).await?;
    let secret = if needs.tokens {
        if matches!(config.jwt_secret, SecretSource::Generated) {
            bail!("BLOG_JWT_SECRET or BLOG_JWT_SECRET_ARN must be set for this function");
        }
        jwt_secret(&config).await?
    } else {
        // Straight from the OS: seeding a thread-local generator for 32 bytes once costs more.
        use rand::TryRngCore;
        let mut key = vec![0; 32];
        rand::rngs::OsRng.try_fill_bytes(&mut key).context("reading random bytes")?;
        key
    };
    let queue = if needs.events { Some(event_queue(&config).await?) } else { None };
    let embedder = if needs.embedder { Some(embedder(&config).await?) } else { None };
    let blobs = if needs.blobs { Some(cloud_blobs(&config).await?) } else { None };
    let mut ctx = AppContext::new(table, config, &secret);
    if let Some(blobs) = blobs {
        ctx = ctx.with_blobs(blobs);
    }
    if let Some(queue) = queue {
        ctx = ctx.with_events(queue);
    }
    if let Some(embedder) = embedder {
        ctx = ctx.with_embedder(embedder);
    }
    Ok(ctx)
}

/// The embedder the configuration names.
pub async fn embedder(
    config: &Config,
) -> anyhow::Result<Arc<dyn crate::ports::embedder::Embedder>> {
    match config.embedder {
        crate::config::EmbedderKind::Local => Ok(Arc::new(
            crate::ports::embedder::local::LocalEmbedder::new(config.embedding_dimensions),
        )),
        #[cfg(feature = "bedrock")]
        crate::config::EmbedderKind::Bedrock => {
            let sdk = crate::ports::aws::sdk_config(config.aws_trust_store).await?;
            Ok(Arc::new(crate::ports::embedder::bedrock::BedrockEmbedder::from_config(
                &sdk,
                &config.bedrock_model_id,
                config.embedding_dimensions,
                config.bedrock_endpoint.as_deref(),
            )?))
        }
        #[cfg(not(feature = "bedrock"))]
        crate::config::EmbedderKind::Bedrock => {
            bail!(
                "BLOG_EMBEDDER=bedrock, but this binary was built without the Bedrock adapter: \
                 set BLOG_EMBEDDER=local"
            )
        }
    }
}

/// The local gateway's services around a context: the in-process event queue, the embedder,
/// the views kept in memory ([`local_tally`]) and the worker loop that consumes the queue
/// (to be spawned).
#[cfg(feature = "all-areas")]
pub async fn local_worker(
    ctx: AppContext,
) -> anyhow::Result<(AppContext, impl std::future::Future<Output = ()> + Send + 'static)> {
    let (queue, receiver) = crate::ports::events::local::InProcessQueue::new();
    let queue = Arc::new(queue);
    let embedder = embedder(&ctx.config).await?;
    let ctx =
        local_tally(crate::effects::wire(ctx).with_events(queue.clone()).with_embedder(embedder));
    let publishing = crate::area::WithPort::new(
        ctx.clone(),
        queue.clone() as Arc<dyn crate::ports::events::EventQueue>,
    );
    let schedule = crate::articles::run_local_schedule(publishing, ctx.config.schedule_period);
    let worker = crate::worker::run_local(
        crate::area::AreaState::from_context(&ctx)?,
        queue,
        receiver,
        std::time::Duration::from_secs(30),
    );
    Ok((ctx, async move {
        futures::join!(worker, schedule);
    }))
}

/// The S3 bucket the configuration names (`BLOG_BUCKET_NAME`, `BLOG_S3_ENDPOINT`).
/// Every this often the local gateway writes the views it added up.
pub const LOCAL_TALLY_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The context of the local gateway's process: views kept in memory and committed every
/// [`LOCAL_TALLY_EVERY`] (and at shutdown: `ctx.tally.flush()`), not one transaction per
/// view as it is read, which would drop the kept answers at every counted read.
pub fn local_tally(ctx: AppContext) -> AppContext {
    let tally = crate::ports::tally::Buffered::start(ctx.table.clone(), LOCAL_TALLY_EVERY);
    ctx.with_tally(tally)
}

pub async fn cloud_blobs(config: &Config) -> anyhow::Result<Arc<dyn Blobs>> {
    let Some(bucket) = config.bucket_name.clone() else {
        bail!("BLOG_BUCKET_NAME must be set for this function");
    };
    #[cfg(feature = "s3")]
    {
        let sdk = crate::ports::aws::sdk_config(config.aws_trust_store).await?;
        let blobs = crate::ports::blobs::s3::S3Blobs::from_config(
            &sdk,
            bucket,
            config.s3_endpoint.as_deref(),
        )
        .with_public_files_url(config.public_files_url.as_deref());
        Ok(Arc::new(blobs))
    }
    #[cfg(not(feature = "s3"))]
    bail!(
        "BLOG_BUCKET_NAME={bucket}, but this binary was built without the S3 adapter: unset \
         BLOG_BUCKET_NAME"
    )
}

/// Object storage of the local gateway: S3 when it runs on the AWS adapters with a bucket
/// configured, else the embedded store under `<data dir>/blobs`, whose URLs start with
/// `BLOG_PUBLIC_BASE_URL` and are signed with a key generated once into the data dir.
pub async fn gateway_blobs(config: &Config) -> anyhow::Result<Arc<dyn Blobs>> {
    if config.store == StoreKind::DynamoDb && config.bucket_name.is_some() {
        return cloud_blobs(config).await;
    }
    let key = generated_secret(&config.data_dir.join("blob-signing-key"))?;
    let store = crate::ports::blobs::local::LocalBlobs::open(
        config.data_dir.join("blobs"),
        &config.public_base_url,
        &key,
    )?;
    Ok(Arc::new(store))
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
        let sdk = crate::ports::aws::sdk_config(config.aws_trust_store).await?;
        let queue = crate::ports::events::sqs::SqsQueue::from_config(
            &sdk,
            url,
            config.sqs_endpoint.as_deref(),
        );
        Ok(Arc::new(queue))
    }
    #[cfg(not(feature = "sqs"))]
    bail!(
        "BLOG_EVENTS_QUEUE_URL={url}, but this binary was built without the SQS adapter: unset \
         BLOG_EVENTS_QUEUE_URL"
    )
}

/// Creates the configured administrator when no account with that user name exists. The
/// password (possibly a Secrets Manager call) is only fetched when the account must be created:
/// once it exists, a cold start costs one read.
#[cfg(feature = "auth")]
pub async fn bootstrap_admin(ctx: &AppContext) -> anyhow::Result<Option<Outcome>> {
    let Some(admin) = ctx.config.admin.clone() else {
        return Ok(None);
    };
    let username = crate::auth::bootstrap::admin_username(&admin.username)?;
    if crate::auth::bootstrap::account_exists(ctx, &username).await? {
        return Ok(Some(Outcome::AlreadyExists));
    }
    let password = resolve_secret(
        &admin.password,
        "BLOG_ADMIN_PASSWORD",
        ctx.config.aws_trust_store,
        ctx.config.secretsmanager_endpoint.as_deref(),
    )
    .await?;
    ensure_admin(ctx, &admin.username, &password, &admin.email).await.map(Some)
}
