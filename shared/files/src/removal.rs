//! Removal of stored objects nothing needs any more: a file's object once its last record is
//! deleted, and staged uploads once confirmed, failed or deleted. It runs after the deciding
//! write committed, off the request's path: spawned in a long-lived process (the local
//! gateway), awaited before the handler returns inside AWS Lambda (which freezes the
//! environment once the response is out, so spawned work would stall until the next
//! invocation). A removal that keeps failing is logged and harmless to the API: no record
//! points at the object any more, it only occupies storage (a staged one still expires).

use std::{sync::Arc, time::Duration};

use blog_core::{context::AppContext, ports::blobs::Blobs};

/// Attempts before an object is given up as orphaned.
const ATTEMPTS: u32 = 3;

/// Removes the objects `keys` in the background (or before returning, in Lambda).
pub async fn remove_objects(ctx: &AppContext, blobs: Arc<dyn Blobs>, keys: Vec<String>) {
    if keys.is_empty() {
        return;
    }
    let removals = async move {
        futures::future::join_all(keys.into_iter().map(|key| remove_with_retries(&blobs, key)))
            .await;
    };
    if ctx.config.in_lambda {
        removals.await;
    } else {
        tokio::spawn(removals);
    }
}

async fn remove_with_retries(blobs: &Arc<dyn Blobs>, key: String) {
    for attempt in 1..=ATTEMPTS {
        match blobs.delete(&key).await {
            Ok(()) => {
                tracing::info!(key, "stored object removed");
                return;
            }
            Err(error) if attempt < ATTEMPTS => {
                tracing::warn!(key, attempt, error = format!("{error:#}"), "object removal failed");
                tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
            }
            Err(error) => tracing::error!(
                key,
                error = format!("{error:#}"),
                "object removal failed for good; the object is orphaned (no record points at it)"
            ),
        }
    }
}
