//! Removal of a stored object once its last record is deleted. It runs after the deleting
//! transaction committed, off the request's path: spawned in a long-lived process (the local
//! gateway), awaited before the handler returns inside AWS Lambda (which freezes the
//! environment once the response is out, so spawned work would stall until the next
//! invocation). A removal that keeps failing is logged and harmless to the API: no record
//! points at the object any more, it only occupies storage.

use std::{sync::Arc, time::Duration};

use crate::{context::AppContext, ports::blobs::Blobs};

/// Attempts before an object is given up as orphaned.
const ATTEMPTS: u32 = 3;

/// Removes the object `key` in the background (or before returning, in Lambda).
pub async fn remove_object(ctx: &AppContext, blobs: Arc<dyn Blobs>, key: String) {
    if ctx.config.in_lambda {
        remove_with_retries(blobs, key).await;
    } else {
        tokio::spawn(remove_with_retries(blobs, key));
    }
}

async fn remove_with_retries(blobs: Arc<dyn Blobs>, key: String) {
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
