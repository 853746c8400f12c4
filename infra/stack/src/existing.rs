//! Resources created outside the stack, which it uses instead of creating the template's: the
//! ones LocalStack's ready hook (infra/localstack/ready.d) creates from the request files of
//! infra/localstack/resources, as `make localstack` runs it. Each is looked up by its name on
//! the emulators, so a missing one fails the start with its name, and described as the stack
//! describes what it creates (`Ref`, `Arn` and the other attributes a function may reference;
//! a table's partition keys from the table itself).

use std::{collections::BTreeMap, path::Path};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::{
    actions::KeySchemas,
    clients::Clients,
    template::intrinsics::{Physical, ACCOUNT, REGION},
};

/// Each request file of infra/localstack/resources and the template resource it creates.
pub const LOCALSTACK_RESOURCES: [(&str, &str); 9] = [
    ("table.json", "BlogTable"),
    ("table-ttl.json", "BlogTable"),
    ("events-dead-letter-queue.json", "EventsDeadLetterQueue"),
    ("events-queue.json", "EventsQueue"),
    ("uploads-bucket.json", "UploadsBucket"),
    ("jwt-secret.json", "JwtSecret"),
    ("admin-password-secret.json", "AdminPasswordSecret"),
    ("actuator-token-secret.json", "ActuatorTokenSecret"),
    ("webhook-signing-secret.json", "WebhookSigningSecret"),
];

/// The name each request file of `dir` (infra/localstack/resources) gives its resource, by
/// logical id: the `TableName`, `QueueName`, `Bucket` or `Name` of the request that creates it.
pub fn localstack_names(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut names = BTreeMap::new();
    for (file, logical_id) in LOCALSTACK_RESOURCES {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
        let request: Value =
            serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
        let name = ["TableName", "QueueName", "Bucket", "Name"]
            .iter()
            .find_map(|key| request[key].as_str())
            .with_context(|| format!("{}: no TableName, QueueName, Bucket or Name", file))?;
        if let Some(other) = names.insert(logical_id.to_string(), name.to_string()) {
            if other != name {
                bail!("{logical_id} is named both {other} and {name} in {}", dir.display());
            }
        }
    }
    Ok(names)
}

/// The existing resource `name` of type `kind`, as the stack describes the ones it creates;
/// a table's partition keys go into `schemas`.
pub async fn adopt(
    clients: &Clients,
    kind: &str,
    name: &str,
    schemas: &mut KeySchemas,
) -> Result<Physical> {
    match kind {
        "AWS::DynamoDB::Table" => table(clients, name, schemas).await,
        "AWS::SQS::Queue" => {
            use aws_sdk_sqs::types::QueueAttributeName;
            let found = clients.sqs.get_queue_url().queue_name(name).send().await;
            let url = found.with_context(|| format!("the queue {name}"))?.queue_url;
            let url = url.with_context(|| format!("no URL of the queue {name}"))?;
            // Its own ARN: LocalStack's account is not the stack's.
            let attributes = clients
                .sqs
                .get_queue_attributes()
                .queue_url(&url)
                .attribute_names(QueueAttributeName::QueueArn)
                .send()
                .await
                .with_context(|| format!("the attributes of the queue {name}"))?;
            let arn = attributes.attributes().and_then(|a| a.get(&QueueAttributeName::QueueArn));
            let arn = arn.with_context(|| format!("no ARN of the queue {name}"))?.clone();
            Ok(Physical::new(
                url.clone(),
                &[("Arn", arn), ("QueueName", name.into()), ("QueueUrl", url)],
            ))
        }
        "AWS::S3::Bucket" => {
            let found = clients.s3.head_bucket().bucket(name).send().await;
            found.with_context(|| format!("the bucket {name}"))?;
            Ok(Physical::new(
                name,
                &[
                    ("Arn", format!("arn:aws:s3:::{name}")),
                    ("DomainName", format!("{name}.s3.amazonaws.com")),
                    ("RegionalDomainName", format!("{name}.s3.{REGION}.amazonaws.com")),
                ],
            ))
        }
        "AWS::SecretsManager::Secret" => {
            let found = clients.secrets.describe_secret().secret_id(name).send().await;
            let arn = found.with_context(|| format!("the secret {name}"))?.arn;
            let arn = arn.with_context(|| format!("no ARN of the secret {name}"))?;
            Ok(Physical::new(arn.clone(), &[("Id", arn)]))
        }
        other => bail!("the stack cannot use an existing {other} ({name})"),
    }
}

async fn table(clients: &Clients, name: &str, schemas: &mut KeySchemas) -> Result<Physical> {
    use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType};
    let described = clients.dynamodb.describe_table().table_name(name).send().await;
    let table = described.with_context(|| format!("the table {name}"))?.table;
    let table = table.with_context(|| format!("no description of the table {name}"))?;
    let hash = |keys: &[KeySchemaElement]| {
        keys.iter().find(|key| key.key_type == KeyType::Hash).map(|key| key.attribute_name.clone())
    };
    let partition = hash(table.key_schema()).with_context(|| format!("{name}: no HASH key"))?;
    let mut indexes = BTreeMap::new();
    for index in table.global_secondary_indexes() {
        let index_name = index.index_name().with_context(|| format!("{name}: an unnamed index"))?;
        let key = hash(index.key_schema()).with_context(|| format!("{index_name}: no HASH key"))?;
        indexes.insert(index_name.to_string(), key);
    }
    schemas.tables.insert(name.to_string(), (partition, indexes));
    // The ARN as in the stack's region and account (DynamoDB Local answers its own region).
    let arn = format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}");
    Ok(Physical::new(name, &[("Arn", arn)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_localstack_request_file_names_its_resource() {
        let dir = crate::testing::workspace().join("infra/localstack/resources");
        let names = localstack_names(&dir).unwrap();
        assert_eq!(names["BlogTable"], "blog");
        assert_eq!(names["EventsQueue"], "blog-events");
        assert_eq!(names["UploadsBucket"], "blog-uploads");
        assert_eq!(names["JwtSecret"], "blog-jwt-secret");
        assert_eq!(names.len(), 8, "{names:?}");
    }
}
