//! The stack's secrets as an operator reads and rotates them (`get-secret-value`,
//! `put-secret-value`).

use anyhow::{Context, Result};

use super::Stack;

impl Stack {
    /// The current value of the secret `logical_id`.
    pub async fn secret_value(&self, logical_id: &str) -> Result<String> {
        let arn = self.reference(logical_id).with_context(|| format!("no secret {logical_id}"))?;
        let secret = self.clients().secrets.get_secret_value().secret_id(arn).send().await?;
        secret.secret_string.with_context(|| format!("{logical_id} holds no string"))
    }

    /// Gives the secret `logical_id` a new value and recycles every function instance, as a
    /// rotation reaches Lambda: functions read their secrets at their cold start.
    pub async fn set_secret_value(&self, logical_id: &str, value: &str) -> Result<()> {
        let arn = self.reference(logical_id).with_context(|| format!("no secret {logical_id}"))?;
        self.clients()
            .secrets
            .put_secret_value()
            .secret_id(arn)
            .secret_string(value)
            .send()
            .await
            .with_context(|| format!("PutSecretValue of {logical_id}"))?;
        for (logical_id, _) in self.function_names() {
            if let Some(function) = self.function(&logical_id) {
                function.recycle();
            }
        }
        Ok(())
    }
}
