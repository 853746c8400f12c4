//! What handlers share: the ports, the configuration and the auth services. Built once per
//! process (per Lambda cold start) by [`crate::setup`].

use std::sync::Arc;

use crate::{
    access::{PrincipalCache, TokenKeys},
    config::Config,
    http::answers::Answers,
    ports::{blobs::Blobs, embedder::Embedder, events::EventQueue, table::Table},
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
    /// The event queue, in the processes that emit events.
    pub events: Option<Arc<dyn EventQueue>>,
    /// The embedder, in the processes that handle events.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Object storage, in the processes that serve files.
    pub blobs: Option<Arc<dyn Blobs>>,
}

impl AppContext {
    /// Assembles a context from its parts.
    pub fn new(table: Arc<dyn Table>, config: Config, jwt_secret: &[u8]) -> Self {
        let tokens = Arc::new(TokenKeys::new(jwt_secret, config.token_ttl));
        let principals = Arc::new(PrincipalCache::new(config.principal_cache_ttl));
        let telemetry = Arc::new(Telemetry::new(&config));
        let answers = Arc::new(Answers::new(config.answer_cache));
        Self(Arc::new(Parts {
            table: Arc::new(Instrumented::new(table, telemetry.clone())),
            telemetry,
            config: Arc::new(config),
            tokens,
            principals,
            answers,
            events: None,
            embedder: None,
            blobs: None,
        }))
    }

    /// The same context with an embedder.
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        Arc::make_mut(&mut self.0).embedder = Some(embedder);
        self
    }

    /// The same context with object storage.
    pub fn with_blobs(mut self, blobs: Arc<dyn Blobs>) -> Self {
        Arc::make_mut(&mut self.0).blobs = Some(blobs);
        self
    }

    /// The same context with another configuration (the token keys stay as they are).
    pub fn with_config(mut self, config: Config) -> Self {
        Arc::make_mut(&mut self.0).config = Arc::new(config);
        self
    }

    /// The same context with an event queue.
    pub fn with_events(mut self, events: Arc<dyn EventQueue>) -> Self {
        Arc::make_mut(&mut self.0).events = Some(events);
        self
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
