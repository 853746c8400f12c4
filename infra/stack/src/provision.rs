//! The template's resources created on the emulators (or found there, when they exist already:
//! [`crate::existing`]), named as CloudFormation names them
//! (`<stack>-<LogicalId>-<RANDOM>` unless the template names them): the DynamoDB table from
//! its key schema, indexes and TTL attribute (DynamoDB Local), the queues with their redrive
//! policies and the secrets with generated values (moto), the bucket (s3s-fs). What a function
//! may reference resolves to these: `!Ref`, `!GetAtt <X>.Arn`, `QueueName`, and so on.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use rand::Rng;
use serde_json::Value;

use crate::{
    actions::KeySchemas,
    clients::Clients,
    template::{
        intrinsics::{Physical, Resolver, ACCOUNT, REGION},
        Parameters, Template,
    },
};

/// What provisioning made.
#[derive(Default)]
pub struct Provisioned {
    /// Every emulated resource, by logical id.
    pub physical: BTreeMap<String, Physical>,
    /// Partition keys of the tables and their indexes.
    pub schemas: KeySchemas,
    /// Logical ids and types of the resources the stack does not emulate.
    pub not_emulated: Vec<(String, String)>,
    /// The distributions it emulates, bound, to be served once the resources exist.
    pub distributions: Vec<crate::distribution::Emulated>,
}

/// Provisioning choices beyond the template.
#[derive(Clone, Debug, Default)]
pub struct Choices {
    /// Values of secrets by logical id, instead of generated ones.
    pub secret_values: BTreeMap<String, String>,
    /// A visibility timeout for every queue instead of the template's (faster redelivery in
    /// tests).
    pub visibility_timeout: Option<u32>,
    /// Names of resources that exist already (by logical id), used instead of created
    /// ([`crate::existing`]).
    pub existing: BTreeMap<String, String>,
}

/// `<stack>-<LogicalId>-<12 random>` in upper case, as CloudFormation generates names.
pub fn generated_name(stack: &str, logical_id: &str, limit: usize) -> String {
    let random: String = rand::rng()
        .sample_iter(rand::distr::Alphanumeric)
        .take(12)
        .map(|c| (c as char).to_ascii_uppercase())
        .collect();
    let mut name = format!("{stack}-{logical_id}");
    name.truncate(limit.saturating_sub(13));
    format!("{name}-{random}")
}

/// The name property `key` of a resource, or a name generated for it (at most `limit` long).
fn name_of(properties: &Value, key: &str, stack: &str, logical_id: &str, limit: usize) -> String {
    match properties[key].as_str() {
        Some(name) => name.to_string(),
        None => generated_name(stack, logical_id, limit),
    }
}

/// Creates the resources of `template` on the emulators behind `clients`.
pub async fn provision(
    template: &Template,
    parameters: &Parameters,
    stack: &str,
    clients: &Clients,
    choices: &Choices,
) -> Result<Provisioned> {
    let mut made = Provisioned::default();
    let conditions = template.document()["Conditions"].clone();
    let mut pending: Vec<(String, String, Value)> = template
        .resources()?
        .iter()
        .map(|(id, r)| (id.clone(), r["Type"].as_str().unwrap_or_default().to_string(), r.clone()))
        .collect();
    // Resources whose properties refer to ones not made yet wait for them (a queue's redrive
    // policy names its dead-letter queue).
    while !pending.is_empty() {
        let before = pending.len();
        let mut waiting = vec![];
        for (logical_id, kind, resource) in pending {
            let resolver = Resolver::new(parameters, &conditions, &made.physical, stack);
            // A function's and the API's properties are read when they are wired, not here.
            let needed =
                !matches!(kind.as_str(), "AWS::Serverless::Function" | "AWS::Serverless::HttpApi");
            let resolved = match needed {
                true => resolver.resolve(&resource["Properties"]),
                false => Ok(Value::Null),
            };
            let properties = match resolved {
                Ok(properties) => properties,
                Err(_) if emulated(&kind, &resource) => {
                    waiting.push((logical_id, kind, resource));
                    continue;
                }
                Err(_) => Value::Null,
            };
            let physical = match kind.as_str() {
                _ if choices.existing.contains_key(&logical_id) => {
                    let name = &choices.existing[&logical_id];
                    crate::existing::adopt(clients, &kind, name, &mut made.schemas).await?
                }
                "AWS::DynamoDB::Table" => {
                    table(clients, stack, &logical_id, &properties, &mut made.schemas).await?
                }
                "AWS::SQS::Queue" => {
                    queue(clients, stack, &logical_id, &properties, choices).await?
                }
                "AWS::S3::Bucket" => bucket(clients, stack, &logical_id, &properties).await?,
                "AWS::SecretsManager::Secret" => {
                    secret(clients, stack, &logical_id, &properties, choices).await?
                }
                "AWS::Serverless::Function" => {
                    let name = generated_name(stack, &logical_id, 64);
                    let arn = format!("arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}");
                    Physical::new(name, &[("Arn", arn)])
                }
                "AWS::CloudFront::OriginAccessControl" => {
                    let id: String = uuid::Uuid::new_v4().simple().to_string()[..14].to_uppercase();
                    Physical::new(id.clone(), &[("Id", id)])
                }
                "AWS::CloudFront::Distribution" => {
                    match crate::distribution::Emulated::bind(&logical_id, &properties)? {
                        Some(distribution) => {
                            let physical = distribution.physical()?;
                            made.distributions.push(distribution);
                            physical
                        }
                        None => {
                            made.not_emulated.push((logical_id, kind));
                            continue;
                        }
                    }
                }
                "AWS::Serverless::HttpApi" => {
                    let id: String = rand::rng()
                        .sample_iter(rand::distr::Alphanumeric)
                        .take(10)
                        .map(|c| (c as char).to_ascii_lowercase())
                        .collect();
                    Physical::new(id, &[])
                }
                _ => {
                    made.not_emulated.push((logical_id, kind));
                    continue;
                }
            };
            made.physical.insert(logical_id, physical);
        }
        if waiting.len() == before {
            let names: Vec<&str> = waiting.iter().map(|(id, ..)| id.as_str()).collect();
            bail!("cannot resolve the properties of {names:?}: they refer to something the stack does not emulate");
        }
        pending = waiting;
    }
    Ok(made)
}

fn emulated(kind: &str, resource: &Value) -> bool {
    match kind {
        "AWS::CloudFront::Distribution" => crate::distribution::Emulated::emulable(resource),
        _ => matches!(
            kind,
            "AWS::DynamoDB::Table"
                | "AWS::SQS::Queue"
                | "AWS::S3::Bucket"
                | "AWS::SecretsManager::Secret"
                | "AWS::Serverless::Function"
                | "AWS::Serverless::HttpApi"
                | "AWS::CloudFront::OriginAccessControl"
        ),
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    value[key].as_str().with_context(|| format!("{key} in {value}"))
}

async fn table(
    clients: &Clients,
    stack: &str,
    logical_id: &str,
    properties: &Value,
    schemas: &mut KeySchemas,
) -> Result<Physical> {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, TimeToLiveSpecification,
    };
    let name = name_of(properties, "TableName", stack, logical_id, 255);
    let key_schema = |keys: &Value| -> Result<(Vec<KeySchemaElement>, String)> {
        let mut elements = vec![];
        let mut hash = None;
        for key in keys.as_array().context("KeySchema")? {
            let attribute = text(key, "AttributeName")?;
            let kind = KeyType::from(text(key, "KeyType")?);
            if kind == KeyType::Hash {
                hash = Some(attribute.to_string());
            }
            elements.push(
                KeySchemaElement::builder().attribute_name(attribute).key_type(kind).build()?,
            );
        }
        Ok((elements, hash.context("a key schema without a HASH key")?))
    };
    let mut create = clients.dynamodb.create_table().table_name(&name);
    for definition in properties["AttributeDefinitions"].as_array().context("attributes")? {
        create = create.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(text(definition, "AttributeName")?)
                .attribute_type(ScalarAttributeType::from(text(definition, "AttributeType")?))
                .build()?,
        );
    }
    let (elements, hash) = key_schema(&properties["KeySchema"])?;
    create = create.set_key_schema(Some(elements));
    let mut indexes = BTreeMap::new();
    for index in properties["GlobalSecondaryIndexes"].as_array().into_iter().flatten() {
        let index_name = text(index, "IndexName")?;
        let (elements, index_hash) = key_schema(&index["KeySchema"])?;
        indexes.insert(index_name.to_string(), index_hash);
        let projection = &index["Projection"];
        let mut built = Projection::builder()
            .projection_type(ProjectionType::from(text(projection, "ProjectionType")?));
        for attribute in projection["NonKeyAttributes"].as_array().into_iter().flatten() {
            built = built.non_key_attributes(attribute.as_str().unwrap_or_default());
        }
        create = create.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(index_name)
                .set_key_schema(Some(elements))
                .projection(built.build())
                .build()?,
        );
    }
    let billing = properties["BillingMode"].as_str().unwrap_or("PROVISIONED");
    if billing != "PAY_PER_REQUEST" {
        bail!("table {logical_id}: the stack emulates on-demand (PAY_PER_REQUEST) tables only");
    }
    create.billing_mode(BillingMode::PayPerRequest).send().await.context("CreateTable")?;
    let ttl = &properties["TimeToLiveSpecification"];
    if ttl["Enabled"].as_bool() == Some(true) {
        let specification = TimeToLiveSpecification::builder()
            .attribute_name(text(ttl, "AttributeName")?)
            .enabled(true)
            .build()?;
        clients
            .dynamodb
            .update_time_to_live()
            .table_name(&name)
            .time_to_live_specification(specification)
            .send()
            .await
            .context("UpdateTimeToLive")?;
    }
    schemas.tables.insert(name.clone(), (hash, indexes));
    let arn = format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}");
    Ok(Physical::new(name, &[("Arn", arn)]))
}

async fn queue(
    clients: &Clients,
    stack: &str,
    logical_id: &str,
    properties: &Value,
    choices: &Choices,
) -> Result<Physical> {
    use aws_sdk_sqs::types::QueueAttributeName;
    let name = name_of(properties, "QueueName", stack, logical_id, 80);
    let mut create = clients.sqs.create_queue().queue_name(&name);
    let numeric = [
        "VisibilityTimeout",
        "MessageRetentionPeriod",
        "DelaySeconds",
        "MaximumMessageSize",
        "ReceiveMessageWaitTimeSeconds",
    ];
    for attribute in numeric {
        if let Some(value) = properties.get(attribute) {
            let value = crate::template::number(value)?.to_string();
            create = create.attributes(QueueAttributeName::from(attribute), value);
        }
    }
    if let Some(seconds) = choices.visibility_timeout {
        create = create.attributes(QueueAttributeName::VisibilityTimeout, seconds.to_string());
    }
    if let Some(redrive) = properties.get("RedrivePolicy") {
        create = create.attributes(QueueAttributeName::RedrivePolicy, redrive.to_string());
    }
    let url = create.send().await.context("CreateQueue")?.queue_url.context("a queue URL")?;
    let arn = format!("arn:aws:sqs:{REGION}:{ACCOUNT}:{name}");
    Ok(Physical::new(url.clone(), &[("Arn", arn), ("QueueName", name), ("QueueUrl", url)]))
}

async fn bucket(
    clients: &Clients,
    stack: &str,
    logical_id: &str,
    properties: &Value,
) -> Result<Physical> {
    // Bucket names are lower case.
    let name =
        name_of(properties, "BucketName", &stack.to_lowercase(), logical_id, 63).to_lowercase();
    clients.s3.create_bucket().bucket(&name).send().await.context("CreateBucket")?;
    Ok(Physical::new(
        name.clone(),
        &[
            ("Arn", format!("arn:aws:s3:::{name}")),
            ("DomainName", format!("{name}.s3.amazonaws.com")),
            ("RegionalDomainName", format!("{name}.s3.{REGION}.amazonaws.com")),
        ],
    ))
}

async fn secret(
    clients: &Clients,
    stack: &str,
    logical_id: &str,
    properties: &Value,
    choices: &Choices,
) -> Result<Physical> {
    let name = name_of(properties, "Name", stack, logical_id, 256);
    let value = match (choices.secret_values.get(logical_id), &properties["SecretString"]) {
        (Some(given), _) => given.clone(),
        (None, Value::String(fixed)) => fixed.clone(),
        (None, _) => generate(&properties["GenerateSecretString"])
            .with_context(|| format!("generating {logical_id}"))?,
    };
    let created = clients
        .secrets
        .create_secret()
        .name(&name)
        .secret_string(value)
        .send()
        .await
        .context("CreateSecret")?;
    let arn = created.arn.context("a secret ARN")?;
    Ok(Physical::new(arn.clone(), &[("Id", arn)]))
}

/// A value as `GenerateSecretString` describes it (Secrets Manager's defaults: 32 characters,
/// every character class, at least one of each included class).
pub fn generate(spec: &Value) -> Result<String> {
    let length = spec["PasswordLength"].as_u64().unwrap_or(32) as usize;
    let flag = |key: &str| spec[key].as_bool().unwrap_or(false);
    let excluded = spec["ExcludeCharacters"].as_str().unwrap_or_default();
    let mut classes: Vec<Vec<char>> = vec![];
    let mut add = |on: bool, chars: &str| {
        let kept: Vec<char> = chars.chars().filter(|c| !excluded.contains(*c)).collect();
        if on && !kept.is_empty() {
            classes.push(kept);
        }
    };
    add(!flag("ExcludeLowercase"), "abcdefghijklmnopqrstuvwxyz");
    add(!flag("ExcludeUppercase"), "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    add(!flag("ExcludeNumbers"), "0123456789");
    add(!flag("ExcludePunctuation"), "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
    add(flag("IncludeSpace"), " ");
    if classes.is_empty() || length < classes.len() {
        bail!("no characters to generate from");
    }
    let all: Vec<char> = classes.concat();
    let mut rng = rand::rng();
    loop {
        let candidate: String = (0..length).map(|_| all[rng.random_range(0..all.len())]).collect();
        let each = spec["RequireEachIncludedType"].as_bool().unwrap_or(true);
        if !each || classes.iter().all(|class| candidate.chars().any(|c| class.contains(&c))) {
            let value = match spec["GenerateStringKey"].as_str() {
                Some(key) => {
                    let template = spec["SecretStringTemplate"].as_str().unwrap_or("{}");
                    let mut object: Value = serde_json::from_str(template)?;
                    object[key] = Value::String(candidate);
                    object.to_string()
                }
                None => candidate,
            };
            return Ok(value);
        }
    }
}
