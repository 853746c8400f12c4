//! Shared AWS configuration for every SDK client the adapters build.

use std::{
    borrow::Cow,
    collections::HashMap,
    ffi::OsString,
    sync::{Arc, OnceLock},
};

use aws_credential_types::{
    provider::{self, error::CredentialsError, ProvideCredentials, SharedCredentialsProvider},
    Credentials,
};
pub use aws_smithy_http_client::HttpClientError;
use aws_smithy_http_client::{
    tls::{self, rustls_provider::CryptoMode, TlsContext},
    Builder,
};
use aws_smithy_runtime_api::{
    client::{
        behavior_version::BehaviorVersion,
        connector_metadata::ConnectorMetadata,
        http::{HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector},
        runtime_components::RuntimeComponents,
    },
    shared::IntoShared,
};
use aws_types::{
    region::Region,
    service_config::{LoadServiceConfig, ServiceConfigKey},
};
use tokio::sync::OnceCell;

pub use aws_types::SdkConfig;

use crate::config::TrustStore;

/// Amazon Trust Services' root certificates (Amazon Root CA 1-4 and Starfield Services Root
/// G2, fingerprints in the file's header): every AWS service endpoint chains to one of them.
pub const AMAZON_TRUST_ROOTS: &[u8] = include_bytes!("aws-trust-roots.pem");

/// The AWS configuration of this process, loaded once (at cold start) and shared by every
/// client; `trust` chooses the roots their HTTPS client trusts.
///
/// Inside Lambda the region and the execution role's credentials are always in the
/// environment, so only the environment is read ([`from_environment`]): the default chain
/// (profile files, SSO, web identity with its STS client, the container and instance metadata
/// endpoints) would only cost cold-start time and binary size there, and the function builds
/// leave it out. Elsewhere, with the `aws-chain` feature (the local gateway), the default
/// chain of `aws-config` applies, profiles and SSO included.
pub async fn sdk_config(trust: TrustStore) -> Result<SdkConfig, HttpClientError> {
    static CONFIG: OnceCell<SdkConfig> = OnceCell::const_new();
    CONFIG.get_or_try_init(|| load(trust)).await.cloned()
}

async fn load(trust: TrustStore) -> Result<SdkConfig, HttpClientError> {
    let client = https_client(trust)?;
    #[cfg(feature = "aws-chain")]
    if !in_lambda() {
        let mut loader = aws_config::defaults(BehaviorVersion::latest());
        if let Some(client) = client {
            loader = loader.http_client(client);
        }
        return Ok(loader.load().await);
    }
    let utf8 = |(k, v): (OsString, OsString)| Some((k.into_string().ok()?, v.into_string().ok()?));
    let config = from_environment(std::env::vars_os().filter_map(utf8));
    Ok(match client {
        Some(client) => config.into_builder().http_client(client).build(),
        None => config,
    })
}

/// The HTTPS client the SDK clients share under `trust`, or `None` for the SDK's default.
///
/// [`TrustStore::Aws`]: the SDK's hyper client on rustls and aws-lc (as its default) trusting
/// only [`AMAZON_TRUST_ROOTS`]. One client serves every SDK client of the process, so its TLS
/// configuration is built once. Unlike the default client it reads no `HTTPS_PROXY`: a
/// proxy is what `TrustStore::System` is for.
pub fn https_client(trust: TrustStore) -> Result<Option<SharedHttpClient>, HttpClientError> {
    let TrustStore::Aws = trust else {
        return Ok(None);
    };
    let roots = tls::TrustStore::empty().with_pem_certificate(AMAZON_TRUST_ROOTS);
    let context = TlsContext::builder().with_trust_store(roots).build()?;
    let client = Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::AwsLc))
        .tls_context(context)
        .build_https();
    Ok(Some(ConnectorOnFirstUse(client).into_shared()))
}

/// An HTTP client whose connectors are built only when a request needs one.
///
/// The SDK's hyper client builds a whole connector (a TLS configuration, its roots parsed)
/// and drops it whenever an SDK client is built (`validate_base_client_config`), so that the
/// system's roots are read then rather than at the first request. With the roots compiled in
/// there is nothing to read early: that build only repeated, for every SDK client at every
/// cold start, the one the first request makes (and keeps) anyway. The hyper client has no
/// other validation to keep.
#[derive(Debug)]
struct ConnectorOnFirstUse(SharedHttpClient);

impl HttpClient for ConnectorOnFirstUse {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.http_connector(settings, components)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.0.connector_metadata()
    }
}

/// An SDK client built when it is first used. Building one forces its service's endpoint
/// rules (the partitions JSON parsed, one regex compiled per partition), so a function builds
/// the clients of services only some of its routes reach (S3, SQS) on the first request that
/// needs one, not at every cold start. Cheap to clone: clones share the client.
pub struct LazyClient<C> {
    inner: Arc<Lazy<C>>,
}

struct Lazy<C> {
    client: OnceLock<C>,
    build: Box<dyn Fn() -> C + Send + Sync>,
}

impl<C> LazyClient<C> {
    /// A client that `build` makes on first use.
    pub fn new(build: impl Fn() -> C + Send + Sync + 'static) -> Self {
        Self { inner: Arc::new(Lazy { client: OnceLock::new(), build: Box::new(build) }) }
    }

    /// A client that is already built.
    pub fn built(client: C) -> Self
    where
        C: Clone + Send + Sync + 'static,
    {
        let lazy = Self::new({
            let client = client.clone();
            move || client.clone()
        });
        let _ = lazy.inner.client.set(client);
        lazy
    }

    /// The client, built now if this is its first use.
    pub fn get(&self) -> &C {
        self.inner.client.get_or_init(|| (self.inner.build)())
    }

    /// Whether the client has been built.
    pub fn is_built(&self) -> bool {
        self.inner.client.get().is_some()
    }
}

impl<C> Clone for LazyClient<C> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<C> std::fmt::Debug for LazyClient<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyClient").field("built", &self.is_built()).finish()
    }
}

/// A configuration in `region` with static example credentials, for the adapters' unit tests.
#[cfg(test)]
pub(crate) fn example_config(region: &str) -> SdkConfig {
    from_environment([
        ("AWS_REGION".to_string(), region.to_string()),
        ("AWS_ACCESS_KEY_ID".to_string(), "AKIDEXAMPLE".to_string()),
        ("AWS_SECRET_ACCESS_KEY".to_string(), "secret".to_string()),
    ])
}

/// Whether this process is a Lambda function: only there is the Runtime API's address set.
#[cfg(feature = "aws-chain")]
fn in_lambda() -> bool {
    std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some()
}

/// The configuration Lambda (and `sam local invoke`) hands a function in its environment
/// (`vars`, name and value): the region (`AWS_REGION`, else `AWS_DEFAULT_REGION`), the
/// credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), and endpoint
/// overrides (`AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`). Blank values count as
/// unset. Retries and timeouts keep the SDK's defaults.
pub fn from_environment(vars: impl IntoIterator<Item = (String, String)>) -> SdkConfig {
    let mut vars: HashMap<String, String> =
        vars.into_iter().filter(|(_, value)| !value.trim().is_empty()).collect();
    let mut take = |name: &str| vars.remove(name);
    let region = take("AWS_REGION").or_else(|| take("AWS_DEFAULT_REGION"));
    let credentials = match (take("AWS_ACCESS_KEY_ID"), take("AWS_SECRET_ACCESS_KEY")) {
        (Some(key), Some(secret)) => {
            Ok(Credentials::new(key, secret, take("AWS_SESSION_TOKEN"), None, "Environment"))
        }
        _ => Err("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set"),
    };
    let global = take("AWS_ENDPOINT_URL");
    vars.retain(|name, _| name.starts_with(ENDPOINT_PREFIX));
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region.map(Region::new))
        .credentials_provider(SharedCredentialsProvider::new(EnvironmentCredentials(credentials)))
        .service_config(Endpoints { global, services: vars })
        .build()
}

/// What names a service-specific endpoint: `AWS_ENDPOINT_URL_` and the service id in capitals,
/// spaces as underscores (`AWS_ENDPOINT_URL_SECRETS_MANAGER`).
const ENDPOINT_PREFIX: &str = "AWS_ENDPOINT_URL_";

/// Endpoint overrides from the environment, the service-specific one first.
#[derive(Debug)]
struct Endpoints {
    global: Option<String>,
    /// `AWS_ENDPOINT_URL_<SERVICE>` variables by name.
    services: HashMap<String, String>,
}

impl LoadServiceConfig for Endpoints {
    fn load_config(&self, key: ServiceConfigKey<'_>) -> Option<String> {
        if key.env() != "AWS_ENDPOINT_URL" {
            return None;
        }
        let service = key.service_id().to_uppercase().replace(' ', "_");
        self.services.get(&format!("{ENDPOINT_PREFIX}{service}")).or(self.global.as_ref()).cloned()
    }
}

/// The credentials read from the environment, or why there are none (reported on first use,
/// as the SDK's own environment provider does).
#[derive(Debug)]
struct EnvironmentCredentials(Result<Credentials, &'static str>);

impl ProvideCredentials for EnvironmentCredentials {
    fn provide_credentials<'a>(&'a self) -> provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        provider::future::ProvideCredentials::ready(
            self.0.clone().map_err(|why| CredentialsError::not_loaded(Cow::Borrowed(why))),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn config(vars: &[(&str, &str)]) -> SdkConfig {
        from_environment(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    fn endpoint(config: &SdkConfig, service_id: &str) -> Option<String> {
        let key = ServiceConfigKey::builder()
            .service_id(service_id)
            .env("AWS_ENDPOINT_URL")
            .profile("endpoint_url")
            .build()
            .unwrap();
        config.service_config().unwrap().load_config(key)
    }

    #[tokio::test]
    async fn the_lambda_environment_gives_region_and_session_credentials() {
        let config = config(&[
            ("AWS_REGION", "eu-west-1"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_SESSION_TOKEN", "token"),
        ]);
        assert_eq!(config.region().map(|r| r.as_ref()), Some("eu-west-1"));
        let provider = config.credentials_provider().unwrap();
        let credentials = provider.provide_credentials().await.unwrap();
        assert_eq!(credentials.access_key_id(), "AKIDEXAMPLE");
        assert_eq!(credentials.secret_access_key(), "secret");
        assert_eq!(credentials.session_token(), Some("token"));
        assert_eq!(config.behavior_version(), Some(BehaviorVersion::latest()));
    }

    #[tokio::test]
    async fn missing_credentials_fail_on_use_with_the_variables_named() {
        let config = config(&[("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "A")]);
        assert_eq!(config.region().map(|r| r.as_ref()), Some("us-east-1"));
        let provider = config.credentials_provider().unwrap();
        let error = provider.provide_credentials().await.unwrap_err();
        assert!(format!("{error:?}").contains("AWS_SECRET_ACCESS_KEY"), "{error:?}");
    }

    #[test]
    fn a_service_endpoint_overrides_the_global_one_for_that_service_only() {
        let config = config(&[
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
            ("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:2"),
            ("AWS_ENDPOINT_URL_DYNAMODB", " "),
        ]);
        assert_eq!(endpoint(&config, "Secrets Manager").as_deref(), Some("http://127.0.0.1:2"));
        assert_eq!(endpoint(&config, "DynamoDB").as_deref(), Some("http://127.0.0.1:1"));
        assert_eq!(endpoint(&config, "SQS").as_deref(), Some("http://127.0.0.1:1"));
    }

    #[test]
    fn only_the_aws_trust_store_replaces_the_sdk_default_client() {
        assert!(https_client(TrustStore::System).unwrap().is_none());
        assert!(https_client(TrustStore::Aws).unwrap().is_some());
    }

    /// An HTTP client that counts the SDK's eager validations; no request is ever made.
    #[derive(Debug, Default)]
    struct Counting(Arc<AtomicUsize>);

    impl HttpClient for Counting {
        fn http_connector(
            &self,
            _: &HttpConnectorSettings,
            _: &RuntimeComponents,
        ) -> SharedHttpConnector {
            unreachable!("no request is made")
        }

        fn validate_base_client_config(
            &self,
            _: &aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder,
            _: &aws_smithy_types::config_bag::ConfigBag,
        ) -> Result<(), aws_smithy_runtime_api::box_error::BoxError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    #[cfg(feature = "dynamodb")]
    #[test]
    fn building_an_sdk_client_builds_no_connector_until_a_request_needs_one() {
        let build = |client: SharedHttpClient| {
            let config = example_config("eu-west-1").into_builder().http_client(client).build();
            aws_sdk_dynamodb::Client::new(&config)
        };
        let eager = Counting::default();
        let validations = Arc::clone(&eager.0);
        build(eager.into_shared());
        assert_eq!(validations.load(Ordering::SeqCst), 1, "the SDK validates at construction");

        let wrapped = Counting::default();
        let validations = Arc::clone(&wrapped.0);
        build(ConnectorOnFirstUse(wrapped.into_shared()).into_shared());
        assert_eq!(validations.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_lazy_client_is_built_once_on_first_use_and_shared_by_its_clones() {
        let builds = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&builds);
        let lazy = LazyClient::new(move || counter.fetch_add(1, Ordering::SeqCst) + 1);
        let clone = lazy.clone();
        assert!(!clone.is_built());
        assert_eq!(builds.load(Ordering::SeqCst), 0);
        assert_eq!((*lazy.get(), *clone.get()), (1, 1));
        assert!(clone.is_built());
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        assert!(LazyClient::built(7).is_built());
    }

    #[test]
    fn without_overrides_the_sdk_resolves_the_regional_endpoints() {
        let config = config(&[("AWS_REGION", "eu-west-1")]);
        assert_eq!(endpoint(&config, "DynamoDB"), None);
        assert_eq!(config.endpoint_url(), None);
    }
}
