//! The administrator bootstrap of the auth function's cold start. On demand it runs beside the
//! runtime's start rather than before it: the function polls for its first invocation at
//! once, and every request waits until the bootstrap has succeeded, so nothing is served
//! before the administrator exists. A failed attempt is not kept: the next request tries again.

use std::{sync::Arc, time::Duration};

use axum::{
    extract::{Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
    Router,
};
use tokio::sync::OnceCell;

use crate::{context::AppContext, http::account::AccountError, http::ApiError, setup};

/// The longest one attempt may take. Lambda may freeze an environment that it initialised
/// before any request arrived while the background attempt waits on DynamoDB; after the thaw
/// that call could wait forever, and every request with it.
const ATTEMPT_LIMIT: Duration = Duration::from_secs(5);

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
                let attempt =
                    tokio::time::timeout(ATTEMPT_LIMIT, setup::bootstrap_admin(&self.ctx));
                let outcome = attempt.await.map_err(|_| {
                    anyhow::anyhow!("no answer from the table within {ATTEMPT_LIMIT:?}")
                })??;
                if let Some(outcome) = outcome {
                    tracing::info!(?outcome, "administrator bootstrap");
                }
                Ok(())
            })
            .await
            .copied()
    }

    /// Starts the bootstrap in the background; a failure is logged and left to the next
    /// request to retry.
    pub fn start(&self) {
        let bootstrap = self.clone();
        tokio::spawn(async move {
            if let Err(error) = bootstrap.ready().await {
                tracing::warn!(error = format!("{error:#}"), "administrator bootstrap failed");
            }
        });
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
