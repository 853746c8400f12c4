//! Typed configuration, read once from the environment (every variable is in the README's
//! configuration table).

use std::{env, net::SocketAddr, path::PathBuf, time::Duration};

use anyhow::{bail, Context};

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

/// Where the HS256 signing secret comes from.
#[derive(Clone, Debug)]
pub enum SecretSource {
    /// Given directly (`BLOG_JWT_SECRET`).
    Value(String),
    /// An AWS Secrets Manager secret (`BLOG_JWT_SECRET_ARN`), read once per cold start.
    SecretsManager(String),
    /// Neither given: the local gateway keeps a generated secret in its data dir.
    Generated,
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
    /// How long a token's user status may be cached.
    pub principal_cache_ttl: Duration,
    /// Keep the public reads' answers while the table is unchanged (only where the table can
    /// tell: the embedded one).
    pub answer_cache: bool,
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
    /// Key of the notification's HMAC-SHA256 signature header.
    pub webhook_secret: Option<String>,
    /// S3 bucket of uploaded files (Lambda, or the gateway on AWS adapters).
    pub bucket_name: Option<String>,
    /// S3 endpoint override (emulators); also switches to path-style addressing.
    pub s3_endpoint: Option<String>,
    /// Validity of a pre-signed upload URL.
    pub upload_url_ttl: Duration,
    /// Base URL of the local gateway as browsers reach it (the local blob store's URLs).
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
    /// Bearer token required under /actuator except the probes (`None`: anonymous, as the
    /// spec describes).
    pub actuator_token: Option<String>,
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
        // Inside Lambda the table is DynamoDB: the functions are built without the embedded one.
        let in_lambda = lookup("AWS_LAMBDA_RUNTIME_API").is_some();
        let store = match lookup("BLOG_STORE").as_deref() {
            None if in_lambda => StoreKind::DynamoDb,
            None | Some("embedded") => StoreKind::Embedded,
            Some("dynamodb") => StoreKind::DynamoDb,
            Some(other) => bail!("BLOG_STORE must be `embedded` or `dynamodb`, not `{other}`"),
        };
        let host = lookup("BLOG_HOST").unwrap_or_else(|| "127.0.0.1".into());
        let port: u16 = parse(&lookup, "BLOG_PORT", 3000)?;
        let listen = format!("{host}:{port}").parse().with_context(|| {
            format!("BLOG_HOST/BLOG_PORT do not form an address: {host}:{port}")
        })?;
        let jwt_secret = match (lookup("BLOG_JWT_SECRET"), lookup("BLOG_JWT_SECRET_ARN")) {
            (Some(secret), _) if secret.len() < 32 => {
                bail!("BLOG_JWT_SECRET must be at least 32 characters")
            }
            (Some(secret), _) => SecretSource::Value(secret),
            (None, Some(arn)) => SecretSource::SecretsManager(arn),
            (None, None) => SecretSource::Generated,
        };
        let admin_password =
            match (lookup("BLOG_ADMIN_PASSWORD"), lookup("BLOG_ADMIN_PASSWORD_ARN")) {
                (Some(password), _) => Some(SecretSource::Value(password)),
                (None, Some(arn)) => Some(SecretSource::SecretsManager(arn)),
                (None, None) => None,
            };
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
            principal_cache_ttl: Duration::from_secs(parse(
                &lookup,
                "BLOG_PRINCIPAL_CACHE_SECONDS",
                60,
            )?),
            admin,
            answer_cache: parse(&lookup, "BLOG_ANSWER_CACHE", true)?,
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
            webhook_url: lookup("BLOG_WEBHOOK_URL"),
            webhook_secret: lookup("BLOG_WEBHOOK_SECRET"),
            bucket_name: lookup("BLOG_BUCKET_NAME"),
            s3_endpoint: lookup("BLOG_S3_ENDPOINT"),
            upload_url_ttl: upload_url_ttl(&lookup)?,
            public_base_url: lookup("BLOG_PUBLIC_BASE_URL")
                .unwrap_or_else(|| format!("http://127.0.0.1:{port}")),
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
        })
    }
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
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
        let map: HashMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_serve_the_embedded_store_on_port_3000() {
        let config = config(&[]).unwrap();
        assert_eq!(config.store, StoreKind::Embedded);
        assert_eq!(config.listen.to_string(), "127.0.0.1:3000");
        assert_eq!(config.token_ttl, Duration::from_secs(7200));
        assert!(matches!(config.jwt_secret, SecretSource::Generated));
        assert!(config.admin.is_none());
    }

    #[test]
    fn uploads_default_to_15_minute_urls_on_the_gateway_address() {
        let defaults = config(&[("BLOG_PORT", "8080")]).unwrap();
        assert_eq!(defaults.upload_url_ttl, Duration::from_secs(900));
        assert_eq!(defaults.public_base_url, "http://127.0.0.1:8080");
        assert!(!defaults.in_lambda && defaults.bucket_name.is_none());
        let short = config(&[("BLOG_UPLOAD_URL_MINUTES", "5")]).unwrap();
        assert_eq!(short.upload_url_ttl, Duration::from_secs(300));
        assert!(config(&[("BLOG_UPLOAD_URL_MINUTES", "0")]).is_err());
    }

    #[test]
    fn inside_lambda_the_store_is_dynamodb_unless_told_otherwise() {
        let lambda = [("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")];
        assert_eq!(config(&lambda).unwrap().store, StoreKind::DynamoDb);
        let told = config(&[lambda[0], ("BLOG_STORE", "embedded")]).unwrap();
        assert_eq!(told.store, StoreKind::Embedded, "an explicit BLOG_STORE wins");
        assert_eq!(config(&[]).unwrap().store, StoreKind::Embedded, "outside Lambda");
    }

    #[test]
    fn metrics_stay_in_process_locally_and_go_to_the_table_in_lambda() {
        assert_eq!(config(&[]).unwrap().metrics_store, MetricsStore::Process);
        let lambda = config(&[("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")]).unwrap();
        assert_eq!(lambda.metrics_store, MetricsStore::Table);
        assert!(config(&[("BLOG_METRICS_STORE", "cloud")]).is_err());
        assert!(config(&[("BLOG_ACTUATOR_TOKEN", "short")]).is_err());
    }

    #[test]
    fn only_provisioned_and_snap_start_environments_count_as_initialised_ahead() {
        let kind = |value| config(&[("AWS_LAMBDA_INITIALIZATION_TYPE", value)]).unwrap();
        assert!(!config(&[]).unwrap().initialized_ahead);
        assert!(!kind("on-demand").initialized_ahead);
        assert!(kind("provisioned-concurrency").initialized_ahead);
        assert!(kind("snap-start").initialized_ahead);
    }

    #[test]
    fn the_sdk_trusts_the_system_roots_unless_told_aws() {
        assert_eq!(config(&[]).unwrap().aws_trust_store, TrustStore::System);
        let aws = config(&[("BLOG_AWS_TRUST_STORE", "aws")]).unwrap();
        assert_eq!(aws.aws_trust_store, TrustStore::Aws);
        let err = config(&[("BLOG_AWS_TRUST_STORE", "amazon")]).unwrap_err().to_string();
        assert!(err.contains("BLOG_AWS_TRUST_STORE"), "{err}");
    }

    #[test]
    fn endpoint_overrides_are_read_and_empty_ones_are_unset() {
        let endpoints = |config: &Config| {
            [
                config.dynamodb_endpoint.clone(),
                config.s3_endpoint.clone(),
                config.sqs_endpoint.clone(),
                config.secretsmanager_endpoint.clone(),
                config.bedrock_endpoint.clone(),
            ]
        };
        let names = [
            "BLOG_DYNAMODB_ENDPOINT",
            "BLOG_S3_ENDPOINT",
            "BLOG_SQS_ENDPOINT",
            "BLOG_SECRETSMANAGER_ENDPOINT",
            "BLOG_BEDROCK_ENDPOINT",
        ];
        let given: Vec<(&str, &str)> =
            names.iter().map(|n| (*n, "http://localstack:4566")).collect();
        let set = config(&given).unwrap();
        assert_eq!(endpoints(&set), names.map(|_| Some("http://localstack:4566".to_string())));
        let empty: Vec<(&str, &str)> = names.iter().map(|n| (*n, "")).collect();
        assert_eq!(
            endpoints(&config(&empty).unwrap()),
            names.map(|_| None),
            "the template's default"
        );
        assert_eq!(endpoints(&config(&[]).unwrap()), names.map(|_| None));
    }

    #[test]
    fn a_short_jwt_secret_is_refused() {
        assert!(config(&[("BLOG_JWT_SECRET", "short")]).is_err());
    }

    #[test]
    fn an_unparsable_number_names_the_variable() {
        let err = config(&[("BLOG_PORT", "eighty")]).unwrap_err().to_string();
        assert!(err.contains("BLOG_PORT"), "{err}");
    }

    #[test]
    fn an_administrator_without_a_password_or_an_email_refuses_to_start() {
        let error =
            config(&[("BLOG_ADMIN_USERNAME", "root"), ("BLOG_ADMIN_PASSWORD", "Secret123")])
                .unwrap_err()
                .to_string();
        assert!(error.contains("BLOG_ADMIN_EMAIL"), "{error}");
        let error = config(&[("BLOG_ADMIN_USERNAME", "root"), ("BLOG_ADMIN_EMAIL", "r@x.org")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("BLOG_ADMIN_PASSWORD"), "{error}");
        let secret_only = config(&[("BLOG_ADMIN_PASSWORD_ARN", "arn:aws:secretsmanager:x")]);
        assert!(secret_only.unwrap().admin.is_none(), "no user name: no administrator");
    }

    #[test]
    fn the_admin_is_bootstrapped_only_when_all_three_variables_are_set() {
        let full = config(&[
            ("BLOG_ADMIN_USERNAME", "root"),
            ("BLOG_ADMIN_PASSWORD", "Secret123"),
            ("BLOG_ADMIN_EMAIL", "root@example.com"),
        ])
        .unwrap();
        assert_eq!(full.admin.unwrap().username, "root");
    }
}
