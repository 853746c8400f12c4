//! What handlers share: the ports, the configuration and the auth services. Built once per
//! process (per Lambda cold start) by [`crate::setup`].

use std::sync::Arc;

use crate::{
    access::{PrincipalCache, TokenKeys},
    config::Config,
    http::answers::Answers,
    ports::{
        blobs::Blobs,
        embedder::Embedder,
        events::EventQueue,
        table::Table,
        tally::{Direct, Tally},
    },
    telemetry::{table::Instrumented, Telemetry},
};

/// Shared state of every router: one reference-counted pointer, so the per-request copies that
/// extractors and layers make cost one atomic increment, not one per part.
#[derive(Clone)]
pub struct AppContext(Arc<Parts>);

/// The parts of an [`AppContext`], read through it (`ctx.table`).
#[derive(Clone)]
pub struct Parts {
    /// The table port (every call timed by the telemetry).
    pub table: Arc<dyn Table>,
    /// Metrics, logger levels and process readings of this process.
    pub telemetry: Arc<Telemetry>,
    /// Configuration.
    pub config: Arc<Config>,
    /// JWT signing and verification keys.
    pub tokens: Arc<TokenKeys>,
    /// Short-lived cache of token holders' account status.
    pub principals: Arc<PrincipalCache>,
    /// The public reads' answers, kept while the table is unchanged.
    pub answers: Arc<Answers>,
    /// Additions made once per marker (views, once per reader and article): written when asked
    /// by default ([`Direct`]), kept in memory and committed every few seconds in the local
    /// gateway.
    pub tally: Arc<dyn Tally>,
    /// The ports only some processes have: taken when a router or a loop starts
    /// ([`AppContext::require_events`] and its siblings), never looked up per request.
    ports: Ports,
    /// What one feature's change causes in another ([`AppContext::with_effect`]), wired where the
    /// features are composed, each taken when a router or a loop starts.
    effects: axum::http::Extensions,
}

/// The ports only some processes have.
#[derive(Clone, Default)]
struct Ports {
    events: Option<Arc<dyn EventQueue>>,
    embedder: Option<Arc<dyn Embedder>>,
    blobs: Option<Arc<dyn Blobs>>,
}

impl AppContext {
    /// Assembles a context from its parts.
    pub fn new(table: Arc<dyn Table>, config: Config, jwt_secret: &[u8]) -> Self {
        let tokens = Arc::new(TokenKeys::new(jwt_secret, config.token_ttl));
        let principals = Arc::new(PrincipalCache::new(config.principal_cache_ttl));
        let telemetry = Arc::new(Telemetry::new(&config));
        let answers = Arc::new(Answers::new(config.answer_cache));
        let table: Arc<dyn Table> = Arc::new(Instrumented::new(table, telemetry.clone()));
        Self(Arc::new(Parts {
            tally: Arc::new(Direct::new(table.clone())),
            table,
            telemetry,
            config: Arc::new(config),
            tokens,
            principals,
            answers,
            ports: Ports::default(),
            effects: axum::http::Extensions::new(),
        }))
    }

    /// The same context with additions counted by `tally`.
    pub fn with_tally(mut self, tally: Arc<dyn Tally>) -> Self {
        Arc::make_mut(&mut self.0).tally = tally;
        self
    }

    /// The same context with an embedder.
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        Arc::make_mut(&mut self.0).ports.embedder = Some(embedder);
        self
    }

    /// The same context with object storage.
    pub fn with_blobs(mut self, blobs: Arc<dyn Blobs>) -> Self {
        Arc::make_mut(&mut self.0).ports.blobs = Some(blobs);
        self
    }

    /// The same context with another configuration (the token keys stay as they are).
    pub fn with_config(mut self, config: Config) -> Self {
        Arc::make_mut(&mut self.0).config = Arc::new(config);
        self
    }

    /// The same context with an event queue.
    pub fn with_events(mut self, events: Arc<dyn EventQueue>) -> Self {
        Arc::make_mut(&mut self.0).ports.events = Some(events);
        self
    }

    /// The same context with `effect`: a handle a feature declares for what its changes cause
    /// in another feature, implemented where the features are composed (one per type).
    pub fn with_effect<T: Clone + Send + Sync + 'static>(mut self, effect: T) -> Self {
        Arc::make_mut(&mut self.0).effects.insert(effect);
        self
    }

    /// The effect of type `T`, or why this process has none (at start, never per request).
    pub fn require_effect<T: Clone + Send + Sync + 'static>(&self) -> anyhow::Result<T> {
        self.effects.get::<T>().cloned().ok_or_else(|| {
            anyhow::anyhow!("no {} wired into this process", std::any::type_name::<T>())
        })
    }

    /// The event queue, or why this process has none (at start, never per request).
    pub fn require_events(&self) -> anyhow::Result<Arc<dyn EventQueue>> {
        self.ports.events.clone().ok_or_else(|| {
            anyhow::anyhow!("no event queue: set BLOG_EVENTS_QUEUE_URL (the SQS queue's URL)")
        })
    }

    /// The embedder, or why this process has none (at start, never per request).
    pub fn require_embedder(&self) -> anyhow::Result<Arc<dyn Embedder>> {
        self.ports.embedder.clone().ok_or_else(|| anyhow::anyhow!("no embedder in this process"))
    }

    /// Object storage, or why this process has none (at start, never per request).
    pub fn require_blobs(&self) -> anyhow::Result<Arc<dyn Blobs>> {
        self.ports.blobs.clone().ok_or_else(|| {
            anyhow::anyhow!("no object storage: set BLOG_BUCKET_NAME (the S3 bucket's name)")
        })
    }

    /// The event queue, when this process has one (the health report's optional component).
    pub fn events(&self) -> Option<&Arc<dyn EventQueue>> {
        self.ports.events.as_ref()
    }

    /// Object storage, when this process has it (the health report's optional component).
    pub fn blobs(&self) -> Option<&Arc<dyn Blobs>> {
        self.ports.blobs.as_ref()
    }
}

impl std::ops::Deref for AppContext {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

impl crate::telemetry::layer::ObserveState for AppContext {
    fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }
    fn table(&self) -> &dyn Table {
        self.0.table.as_ref()
    }
    fn in_lambda(&self) -> bool {
        self.config.in_lambda
    }
}

impl crate::http::answers::ReuseState for AppContext {
    fn answers(&self) -> &Answers {
        &self.answers
    }
    fn change_stamp(&self) -> Option<u64> {
        self.0.table.change_stamp()
    }
}
