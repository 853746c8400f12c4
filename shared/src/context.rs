//! What handlers share: the ports, the configuration and the auth services. Built once per
//! process (per Lambda cold start) by [`crate::setup`].

use std::sync::Arc;

use crate::{
    auth::{principal::PrincipalCache, tokens::TokenKeys},
    config::Config,
    ports::{events::EventQueue, table::Table},
};

/// Shared state of every router.
#[derive(Clone)]
pub struct AppContext {
    /// The table port.
    pub table: Arc<dyn Table>,
    /// Configuration.
    pub config: Arc<Config>,
    /// JWT signing and verification keys.
    pub tokens: Arc<TokenKeys>,
    /// Short-lived cache of token holders' account status.
    pub principals: Arc<PrincipalCache>,
    /// The event queue, in the processes that emit events.
    pub events: Option<Arc<dyn EventQueue>>,
}

impl AppContext {
    /// Assembles a context from its parts.
    pub fn new(table: Arc<dyn Table>, config: Config, jwt_secret: &[u8]) -> Self {
        let tokens = Arc::new(TokenKeys::new(jwt_secret, config.token_ttl));
        let principals = Arc::new(PrincipalCache::new(config.principal_cache_ttl));
        Self { table, config: Arc::new(config), tokens, principals, events: None }
    }

    /// The same context with an event queue.
    pub fn with_events(mut self, events: Arc<dyn EventQueue>) -> Self {
        self.events = Some(events);
        self
    }
}
