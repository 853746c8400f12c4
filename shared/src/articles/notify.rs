//! Notification of a published article: a webhook POST signed with HMAC-SHA256 when
//! `BLOG_WEBHOOK_URL` is configured, otherwise a log record. A marker item per event makes a
//! redelivered event notify once.

use crate::{
    context::AppContext,
    ports::table::{n, Condition, Key, TableError},
    records,
};

use super::{events::ArticlePublishedEvent, model::ArticleHead};

/// Header carrying `sha256=<hex HMAC of the body>`.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub const SIGNATURE_HEADER: &str = "x-blog-signature";

fn marker(event: &ArticlePublishedEvent) -> Key {
    Key::new(format!("NOTIFIED#{}", event.event_id), "NOTIFIED")
}

/// The signature header value of a body.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub fn signature(secret: &str, body: &[u8]) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key length");
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
            let client =
                reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build()?;
            CLIENT.get_or_init(|| client)
        }
    };
    let mut request = client.post(url).header("content-type", "application/json");
    if let Some(secret) = ctx.config.webhook_secret.as_deref() {
        request = request.header(SIGNATURE_HEADER, signature(secret, &body));
    }
    let response = request.body(body).send().await?;
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
    fn the_signature_is_the_hex_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
