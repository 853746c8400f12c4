//! The administrator bootstrap of the auth function. On demand it runs at the first request
//! rather than during initialisation: the function polls for its first invocation at once, and
//! every request waits until the bootstrap has succeeded, so nothing is served before the
//! administrator exists. A failed attempt is not kept: the next request tries again.

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
    Router,
};
use tokio::sync::OnceCell;

use crate::{context::AppContext, http::ApiError, setup, users::envelope::AccountError};

/// The administrator bootstrap of one cold start; clones share it.
#[derive(Clone)]
pub struct AdminBootstrap {
    ctx: AppContext,
    done: Arc<OnceCell<()>>,
}

impl AdminBootstrap {
    /// The bootstrap of the administrator that `ctx`'s configuration names. The user name is
    /// checked here, so a misconfigured function fails its initialisation rather than its
    /// requests.
    pub fn new(ctx: AppContext) -> anyhow::Result<Self> {
        if let Some(admin) = &ctx.config.admin {
            crate::auth::bootstrap::admin_username(&admin.username)?;
        }
        Ok(Self { ctx, done: Arc::default() })
    }

    /// Completes the bootstrap once, or waits for the attempt under way (and makes its own
    /// when that one failed).
    pub async fn ready(&self) -> anyhow::Result<()> {
        self.done
            .get_or_try_init(|| async {
                if let Some(outcome) = setup::bootstrap_admin(&self.ctx).await? {
                    tracing::info!(?outcome, "administrator bootstrap");
                }
                Ok(())
            })
            .await
            .copied()
    }

    /// `router` with every request waiting for the bootstrap; while it fails, requests are
    /// answered 500 in the auth envelope.
    pub fn guard(&self, router: Router) -> Router {
        router.layer(axum::middleware::from_fn_with_state(self.clone(), wait_for_bootstrap))
    }
}

async fn wait_for_bootstrap(
    State(bootstrap): State<AdminBootstrap>,
    request: Request,
    next: Next,
) -> Response {
    match bootstrap.ready().await {
        Ok(()) => next.run(request).await,
        Err(error) => {
            AccountError::internal(error.context("administrator bootstrap")).into_response()
        }
    }
}
