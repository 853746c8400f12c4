//! Typed configuration, read once from the environment (every variable is in
//! docs/configuration.md).

use std::{env, net::SocketAddr, path::PathBuf, time::Duration};

use anyhow::{bail, Context};

mod secret;
mod site;

pub use secret::{SecretSource, Sensitive};
pub use site::{Site, SITEMAP_MAX_URLS};

/// Which adapter set backs the ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// SQLite file under the data dir (local gateway default).
    Embedded,
    /// DynamoDB (Lambda, or the gateway against DynamoDB Local / LocalStack).
    DynamoDb,
}

/// Which embedder the worker uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedderKind {
    /// Local hashed n-gram embedder (no network, no model download).
    Local,
    /// Amazon Bedrock, Titan Text Embeddings V2.
    Bedrock,
}

/// Which root certificates the AWS SDK clients trust (`BLOG_AWS_TRUST_STORE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrustStore {
    /// The SDK's default HTTPS client, on the system's CA bundle.
    #[default]
    System,
    /// Only Amazon Trust Services' roots, which every AWS service endpoint chains to.
    Aws,
}

/// Where the actuator's metrics come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricsStore {
    /// This process's own figures (the local gateway: one process serves everything).
    Process,
    /// Totals every instance adds to the table (Lambda: many short-lived instances).
    Table,
}

/// The administrator created at start-up when no account with that user name exists.
#[derive(Clone, Debug)]
pub struct AdminBootstrap {
    /// User name of the administrator.
    pub username: String,
    /// Password of the administrator: given, or a Secrets Manager secret.
    pub password: SecretSource,
    /// E-mail of the administrator.
    pub email: String,
}

/// Service configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Adapter set: `BLOG_STORE`, by default DynamoDB inside Lambda and embedded elsewhere.
    pub store: StoreKind,
    /// Directory of the embedded adapters' files.
    pub data_dir: PathBuf,
    /// DynamoDB table name.
    pub table_name: String,
    /// DynamoDB endpoint override (emulators); AWS_ENDPOINT_URL is honoured by the SDK itself.
    pub dynamodb_endpoint: Option<String>,
    /// Create the DynamoDB table at start when missing (emulators only).
    pub create_table: bool,
    /// Address the local gateway listens on.
    pub listen: SocketAddr,
    /// JWT signing secret source.
    pub jwt_secret: SecretSource,
    /// Token validity.
    pub token_ttl: Duration,
    /// Failed logins per user name and client address before further attempts are refused.
    pub login_max_failures: u32,
    /// Failed logins per user name from every address before further attempts are refused.
    pub login_max_failures_per_name: u32,
    /// Window of the login throttle.
    pub login_window: Duration,
    /// Accounts one client address may register per hour (`BLOG_REGISTRATION_LIMIT`, at least
    /// 1; the template's `RegistrationLimit`).
    pub registration_limit: u32,
    /// How long a token's user status may be cached.
    pub principal_cache_ttl: Duration,
    /// Keep the public reads' answers while the table is unchanged (only where the table can
    /// tell: the embedded one).
    pub answer_cache: bool,
    /// Freshness of an anonymous answer of a cached public read (`Cache-Control: public,
    /// max-age`, `BLOG_PUBLIC_CACHE_SECONDS`; the template's `PublicCacheMaxAge`).
    pub public_cache_max_age: Duration,
    /// How often a process that searches checks the stored search index for a newer one
    /// (`BLOG_SEARCH_REFRESH_SECONDS`, 1-60, default 2): a change is searched within this
    /// time of the worker storing it.
    pub search_refresh: Duration,
    /// New comments wait for an administrator's approval (`BLOG_COMMENTS_MODERATION`).
    pub comments_moderation: bool,
    /// The period of the scheduled publications' sweep: each run publishes the drafts due
    /// within it, waiting for each one's time (`BLOG_SCHEDULE_PERIOD_SECONDS`, 1-600).
    pub schedule_period: Duration,
    /// Administrator to create at start-up (all of `BLOG_ADMIN_*` set).
    pub admin: Option<AdminBootstrap>,
    /// SQS queue of the events (Lambda, or the gateway on AWS adapters).
    pub events_queue_url: Option<String>,
    /// SQS endpoint override (emulators).
    pub sqs_endpoint: Option<String>,
    /// Embedder of the worker: `local` (hashed n-grams, no network) or `bedrock`.
    pub embedder: EmbedderKind,
    /// Bedrock model id.
    pub bedrock_model_id: String,
    /// Embedding dimensions (Bedrock: 256, 512 or 1024).
    pub embedding_dimensions: usize,
    /// Bedrock endpoint override (stubs).
    pub bedrock_endpoint: Option<String>,
    /// Secrets Manager endpoint override (emulators).
    pub secretsmanager_endpoint: Option<String>,
    /// Root certificates the AWS SDK clients trust.
    pub aws_trust_store: TrustStore,
    /// Where the worker POSTs a notification of each published article.
    pub webhook_url: Option<String>,
    /// Key of the notification's HMAC-SHA256 signature header (`BLOG_WEBHOOK_SECRET`, or the
    /// Secrets Manager secret `BLOG_WEBHOOK_SECRET_ARN`).
    pub webhook_secret: Option<SecretSource>,
    /// S3 bucket of uploaded files (Lambda, or the gateway on AWS adapters).
    pub bucket_name: Option<String>,
    /// S3 endpoint override (emulators); also switches to path-style addressing.
    pub s3_endpoint: Option<String>,
    /// Base URL of the public files (`BLOG_PUBLIC_FILES_URL`; the template's public files
    /// distribution): a public object's URL is this, `/` and its key.
    pub public_files_url: Option<String>,
    /// Validity of a pre-signed upload URL.
    pub upload_url_ttl: Duration,
    /// Base URL of the API as its clients reach it, without a trailing `/`
    /// (`BLOG_PUBLIC_BASE_URL`; the template's `ApiBaseUrl`, else `SiteUrl`): the feeds' self
    /// links and the sitemap index's locations start with it, never with a request's `Host`,
    /// and so do the local blob store's URLs.
    pub public_base_url: String,
    /// Running inside AWS Lambda (`AWS_LAMBDA_RUNTIME_API` set): work after a response must
    /// finish before the handler returns, as the environment is frozen afterwards.
    pub in_lambda: bool,
    /// Lambda initialises this environment before any request is waiting
    /// (`AWS_LAMBDA_INITIALIZATION_TYPE` is `provisioned-concurrency` or `snap-start`), so work
    /// done at initialisation delays no caller.
    pub initialized_ahead: bool,
    /// Log filter: `target=level` and bare `level` directives, comma-separated.
    pub log: String,
    /// Emit JSON log lines.
    pub log_json: bool,
    /// How often each process re-reads logger levels set through the actuator.
    pub log_levels_refresh: Duration,
    /// The function (area) this process serves, a tag of its exported metrics.
    pub function: String,
    /// Where the actuator's metrics come from.
    pub metrics_store: MetricsStore,
    /// How often a process adds its figures to the table (table store).
    pub metrics_export_interval: Duration,
    /// Bearer token required under /actuator except the probes (`BLOG_ACTUATOR_TOKEN`, or the
    /// Secrets Manager secret `BLOG_ACTUATOR_TOKEN_ARN`); `None`, the actuator is anonymous,
    /// which only a process serving on a loopback address may be.
    pub actuator_token: Option<SecretSource>,
    /// The public site the feeds and the sitemap point to (`BLOG_SITE_*`, `BLOG_*_URL`).
    pub site: Site,
}

impl Config {
    /// Reads the configuration from the process environment.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|name| env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (tests pass a map). An empty value counts as
    /// unset, as the template's empty parameters deliver them.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let lookup = |name: &str| lookup(name).filter(|value| !value.is_empty());
        // Inside Lambda the table is DynamoDB: an embedded one would live and die with one
        // instance, each instance keeping its own (and the function builds carry none).
        let in_lambda = lookup("AWS_LAMBDA_RUNTIME_API").is_some();
        let store = match lookup("BLOG_STORE").as_deref() {
            None if in_lambda => StoreKind::DynamoDb,
            Some("embedded") if in_lambda => bail!(
                "BLOG_STORE=embedded, but a Lambda function keeps its data in DynamoDB (an \
                 embedded table would be one instance's own and die with it): unset BLOG_STORE \
                 or set it to dynamodb"
            ),
            None | Some("embedded") => StoreKind::Embedded,
            Some("dynamodb") => StoreKind::DynamoDb,
            Some(other) => bail!("BLOG_STORE must be `embedded` or `dynamodb`, not `{other}`"),
        };
        let host = lookup("BLOG_HOST").unwrap_or_else(|| "127.0.0.1".into());
        let port: u16 = parse(&lookup, "BLOG_PORT", 3000)?;
        let listen: SocketAddr = format!("{host}:{port}").parse().with_context(|| {
            format!("BLOG_HOST/BLOG_PORT do not form an address: {host}:{port}")
        })?;
        let jwt_secret = match (lookup("BLOG_JWT_SECRET"), lookup("BLOG_JWT_SECRET_ARN")) {
            (Some(secret), _) if secret.len() < 32 => {
                bail!("BLOG_JWT_SECRET must be at least 32 characters")
            }
            (secret, arn) => {
                SecretSource::from_pair(secret, arn).unwrap_or(SecretSource::Generated)
            }
        };
        let admin_password = SecretSource::from_pair(
            lookup("BLOG_ADMIN_PASSWORD"),
            lookup("BLOG_ADMIN_PASSWORD_ARN"),
        );
        // A user name asks for an administrator: without a password or an e-mail the process
        // refuses to start rather than silently create none. Without a user name, a password
        // alone (the template always passes its secret) asks for nothing.
        let admin =
            match (lookup("BLOG_ADMIN_USERNAME"), admin_password, lookup("BLOG_ADMIN_EMAIL")) {
                (Some(username), Some(password), Some(email)) => {
                    Some(AdminBootstrap { username, password, email })
                }
                (Some(_), None, _) => bail!(
                    "BLOG_ADMIN_USERNAME is set but neither BLOG_ADMIN_PASSWORD nor \
                     BLOG_ADMIN_PASSWORD_ARN: set one, or unset BLOG_ADMIN_USERNAME"
                ),
                (Some(_), _, None) => bail!(
                    "BLOG_ADMIN_USERNAME is set but BLOG_ADMIN_EMAIL is not (AdminEmail in the \
                     template): set it, or unset BLOG_ADMIN_USERNAME"
                ),
                (None, _, _) => None,
            };
        let metrics_store = match lookup("BLOG_METRICS_STORE").as_deref() {
            None if in_lambda => MetricsStore::Table,
            None | Some("process") => MetricsStore::Process,
            Some("table") => MetricsStore::Table,
            Some(other) => bail!("BLOG_METRICS_STORE must be `process` or `table`, not `{other}`"),
        };
        let actuator_token = lookup("BLOG_ACTUATOR_TOKEN");
        if actuator_token.as_ref().is_some_and(|token| token.len() < 16) {
            bail!("BLOG_ACTUATOR_TOKEN must be at least 16 characters");
        }
        let actuator_token =
            SecretSource::from_pair(actuator_token, lookup("BLOG_ACTUATOR_TOKEN_ARN"));
        if actuator_token.is_none() && !in_lambda && !listen.ip().is_loopback() {
            bail!(
                "BLOG_HOST={} serves the actuator beyond this machine: set BLOG_ACTUATOR_TOKEN \
                 (16 or more characters) or serve on a loopback address",
                listen.ip()
            );
        }
        let webhook_url = lookup("BLOG_WEBHOOK_URL");
        let webhook_secret = SecretSource::from_pair(
            lookup("BLOG_WEBHOOK_SECRET"),
            lookup("BLOG_WEBHOOK_SECRET_ARN"),
        );
        if let Some(url) = &webhook_url {
            check_webhook_url(url)?;
            if webhook_secret.is_none() {
                bail!("BLOG_WEBHOOK_URL needs BLOG_WEBHOOK_SECRET or BLOG_WEBHOOK_SECRET_ARN");
            }
        }
        Ok(Self {
            store,
            data_dir: lookup("BLOG_DATA_DIR").unwrap_or_else(|| ".data".into()).into(),
            table_name: lookup("BLOG_TABLE_NAME").unwrap_or_else(|| "blog".into()),
            dynamodb_endpoint: lookup("BLOG_DYNAMODB_ENDPOINT"),
            create_table: parse(&lookup, "BLOG_DYNAMODB_CREATE_TABLE", false)?,
            listen,
            jwt_secret,
            token_ttl: Duration::from_secs(parse(&lookup, "BLOG_JWT_TTL_SECONDS", 7200)?),
            login_max_failures: parse(&lookup, "BLOG_LOGIN_MAX_FAILURES", 5)?,
            login_max_failures_per_name: parse(&lookup, "BLOG_LOGIN_MAX_FAILURES_PER_NAME", 50)?,
            login_window: Duration::from_secs(parse(&lookup, "BLOG_LOGIN_WINDOW_SECONDS", 900)?),
            registration_limit: registration_limit(&lookup)?,
            principal_cache_ttl: Duration::from_secs(parse(
                &lookup,
                "BLOG_PRINCIPAL_CACHE_SECONDS",
                60,
            )?),
            admin,
            answer_cache: parse(&lookup, "BLOG_ANSWER_CACHE", true)?,
            public_cache_max_age: Duration::from_secs(
                parse::<u32>(&lookup, "BLOG_PUBLIC_CACHE_SECONDS", 60)?.into(),
            ),
            search_refresh: search_refresh(&lookup)?,
            comments_moderation: parse(&lookup, "BLOG_COMMENTS_MODERATION", false)?,
            schedule_period: schedule_period(&lookup)?,
            events_queue_url: lookup("BLOG_EVENTS_QUEUE_URL"),
            sqs_endpoint: lookup("BLOG_SQS_ENDPOINT"),
            embedder: match lookup("BLOG_EMBEDDER").as_deref() {
                None | Some("local") => EmbedderKind::Local,
                Some("bedrock") => EmbedderKind::Bedrock,
                Some(other) => bail!("BLOG_EMBEDDER must be `local` or `bedrock`, not `{other}`"),
            },
            bedrock_model_id: lookup("BLOG_BEDROCK_MODEL_ID")
                .unwrap_or_else(|| "amazon.titan-embed-text-v2:0".into()),
            embedding_dimensions: parse(&lookup, "BLOG_EMBEDDING_DIMENSIONS", 512)?,
            bedrock_endpoint: lookup("BLOG_BEDROCK_ENDPOINT"),
            secretsmanager_endpoint: lookup("BLOG_SECRETSMANAGER_ENDPOINT"),
            aws_trust_store: match lookup("BLOG_AWS_TRUST_STORE").as_deref() {
                None | Some("system") => TrustStore::System,
                Some("aws") => TrustStore::Aws,
                Some(other) => {
                    bail!("BLOG_AWS_TRUST_STORE must be `aws` or `system`, not `{other}`")
                }
            },
            webhook_url,
            webhook_secret,
            bucket_name: lookup("BLOG_BUCKET_NAME"),
            s3_endpoint: lookup("BLOG_S3_ENDPOINT"),
            public_files_url: match lookup("BLOG_PUBLIC_FILES_URL") {
                Some(raw) => Some(site::base_url("BLOG_PUBLIC_FILES_URL", &raw)?),
                None => None,
            },
            upload_url_ttl: upload_url_ttl(&lookup)?,
            public_base_url: match lookup("BLOG_PUBLIC_BASE_URL") {
                Some(raw) => site::base_url("BLOG_PUBLIC_BASE_URL", &raw)?,
                None => format!("http://127.0.0.1:{port}"),
            },
            in_lambda,
            initialized_ahead: lookup("AWS_LAMBDA_INITIALIZATION_TYPE")
                .is_some_and(|kind| kind != "on-demand"),
            log: lookup("BLOG_LOG").unwrap_or_else(|| "info".into()),
            log_json: parse(&lookup, "BLOG_LOG_JSON", false)?,
            log_levels_refresh: Duration::from_secs(parse(
                &lookup,
                "BLOG_LOG_LEVELS_REFRESH_SECONDS",
                30,
            )?),
            function: lookup("BLOG_FUNCTION").unwrap_or_else(|| "gateway".into()),
            metrics_store,
            metrics_export_interval: Duration::from_secs(parse(
                &lookup,
                "BLOG_METRICS_EXPORT_SECONDS",
                60,
            )?),
            actuator_token,
            site: Site::from_lookup(lookup)?,
        })
    }
}

/// A webhook URL: `https`, or `http` to this machine only (the signed body and its signature
/// never cross a network in clear).
fn check_webhook_url(url: &str) -> anyhow::Result<()> {
    let uri: axum::http::Uri =
        url.parse().map_err(|_| anyhow::anyhow!("BLOG_WEBHOOK_URL is not a URL: `{url}`"))?;
    let host = uri.host().unwrap_or_default();
    let loopback = host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match uri.scheme_str() {
        Some("https") if !host.is_empty() => Ok(()),
        Some("http") if loopback => Ok(()),
        _ => bail!(
            "BLOG_WEBHOOK_URL must be an https URL (http only to a loopback address): `{url}`"
        ),
    }
}

/// `BLOG_SCHEDULE_PERIOD_SECONDS`: 60 by default (the sweep's schedule in the template), at
/// most 600 (a run waits up to its period for what falls due, within its function's timeout).
fn schedule_period(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
    let seconds: u64 = parse(lookup, "BLOG_SCHEDULE_PERIOD_SECONDS", 60)?;
    if !(1..=600).contains(&seconds) {
        bail!("BLOG_SCHEDULE_PERIOD_SECONDS must be between 1 and 600, not {seconds}");
    }
    Ok(Duration::from_secs(seconds))
}

fn search_refresh(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
    let seconds: u64 = parse(lookup, "BLOG_SEARCH_REFRESH_SECONDS", 2)?;
    if !(1..=60).contains(&seconds) {
        bail!("BLOG_SEARCH_REFRESH_SECONDS must be between 1 and 60, not {seconds}");
    }
    Ok(Duration::from_secs(seconds))
}

/// Accounts a person registers from one address in an hour: one, maybe a few for a family or
/// an office behind one address; a script making hundreds of throwaway accounts meets it.
pub const REGISTRATION_LIMIT: u32 = 10;

/// `BLOG_REGISTRATION_LIMIT`: [`REGISTRATION_LIMIT`] by default, at least 1.
fn registration_limit(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<u32> {
    let limit: u32 = parse(lookup, "BLOG_REGISTRATION_LIMIT", REGISTRATION_LIMIT)?;
    if limit == 0 {
        bail!("BLOG_REGISTRATION_LIMIT must be at least 1, not 0");
    }
    Ok(limit)
}

/// `BLOG_UPLOAD_URL_MINUTES`: 15 by default, at most 7 days (S3's limit for pre-signed URLs).
fn upload_url_ttl(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
    let minutes: u64 = parse(lookup, "BLOG_UPLOAD_URL_MINUTES", 15)?;
    if !(1..=7 * 24 * 60).contains(&minutes) {
        bail!("BLOG_UPLOAD_URL_MINUTES must be between 1 and 10080, not {minutes}");
    }
    Ok(Duration::from_secs(minutes * 60))
}

fn parse<T: std::str::FromStr>(
    lookup: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: T,
) -> anyhow::Result<T> {
    match lookup(name) {
        None => Ok(default),
        Some(raw) => {
            raw.parse().map_err(|_| anyhow::anyhow!("{name} has an invalid value: `{raw}`"))
        }
    }
}

#[cfg(test)]
mod tests;
