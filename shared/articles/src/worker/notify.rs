//! Notification of a published article: a webhook POST signed with HMAC-SHA256 when
//! `BLOG_WEBHOOK_URL` is configured, otherwise a log record. A marker item per event makes a
//! redelivered event notify once. The signature covers a timestamp sent beside it, so a
//! receiver can refuse a replayed notification; redirects are not followed (the signed body
//! goes to the configured URL or nowhere).

use blog_core::{
    context::AppContext,
    ports::table::{n, Condition, Key, TableError},
    records,
};

use crate::{events::ArticlePublishedEvent, model::ArticleHead};

/// Header carrying `sha256=<hex HMAC of "<timestamp>.<body>">`.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub const SIGNATURE_HEADER: &str = "x-blog-signature";
/// Header carrying the time of sending in seconds since the epoch, covered by the signature.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub const TIMESTAMP_HEADER: &str = "x-blog-timestamp";

fn marker(event: &ArticlePublishedEvent) -> Key {
    Key::new(format!("NOTIFIED#{}", event.event_id), "NOTIFIED")
}

/// The signature header value of a body sent at `timestamp` (seconds since the epoch): the hex
/// HMAC-SHA256 of `<timestamp>.<body>`.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key length");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    format!("sha256={}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// Notifies once per event.
pub async fn notify(
    ctx: &AppContext,
    event: &ArticlePublishedEvent,
    head: &ArticleHead,
) -> anyhow::Result<()> {
    let Some(url) = ctx.config.webhook_url.as_deref() else {
        tracing::info!(target: "blog::notification", article_id = head.id, title = %head.title, "article published");
        return Ok(());
    };
    let mut item = records::key_item(&marker(event));
    item.insert("expiresAt".into(), n(chrono::Utc::now().timestamp() + 14 * 24 * 3600));
    match ctx.table.put(item, Some(Condition::NotExists)).await {
        Ok(()) => {}
        Err(TableError::ConditionFailed) => return Ok(()),
        Err(other) => return Err(other.into()),
    }
    let payload = serde_json::json!({
        "event": event,
        "article": { "id": head.id.to_string(), "title": head.title, "summary": head.summary, "publishTime": head.publish_time },
    });
    let body = serde_json::to_vec(&payload)?;
    if let Err(error) = post(ctx, url, body).await {
        ctx.table.delete(&marker(event), None).await?;
        return Err(error.context("webhook notification failed"));
    }
    tracing::info!(article_id = head.id, "webhook notified");
    Ok(())
}

#[cfg(feature = "webhook")]
async fn post(ctx: &AppContext, url: &str, body: Vec<u8>) -> anyhow::Result<()> {
    use std::sync::OnceLock;
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    let client = match CLIENT.get() {
        Some(client) => client,
        None => {
            let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
            let client = reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .build()?;
            CLIENT.get_or_init(|| client)
        }
    };
    let secret = ctx.config.webhook_secret.as_ref().and_then(|source| source.value());
    let secret = secret.ok_or_else(|| anyhow::anyhow!("the webhook's signing key was not read"))?;
    let timestamp = chrono::Utc::now().timestamp();
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header(TIMESTAMP_HEADER, timestamp.to_string())
        .header(SIGNATURE_HEADER, signature(secret, timestamp, &body))
        .body(body)
        .send()
        .await?;
    anyhow::ensure!(response.status().is_success(), "webhook answered {}", response.status());
    Ok(())
}

#[cfg(not(feature = "webhook"))]
async fn post(_ctx: &AppContext, url: &str, _body: Vec<u8>) -> anyhow::Result<()> {
    anyhow::bail!("this binary was built without webhook support (BLOG_WEBHOOK_URL={url})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_hex_hmac_sha256_of_the_timestamp_and_the_body() {
        use hmac::{KeyInit, Mac};
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"1700000000.what do ya want for nothing?");
        let digest = mac.finalize().into_bytes();
        let expected: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let signed = signature("Jefe", 1_700_000_000, b"what do ya want for nothing?");
        assert_eq!(signed, format!("sha256={expected}"));
        assert_ne!(signed, signature("Jefe", 1_700_000_001, b"what do ya want for nothing?"));
    }
}
