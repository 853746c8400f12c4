//! Which IAM actions an AWS request needs, read off the request as the services authorize it:
//! DynamoDB's JSON operations (a transaction per contained operation, queries on an index
//! against `<table>/index/<name>`, the partition-key values as `dynamodb:LeadingKeys`, the
//! attribute names of an item request as `dynamodb:Attributes` and its `dynamodb:ReturnValues`),
//! SQS in its JSON and query protocols (batches as their single action), Secrets Manager, S3's
//! REST requests on path-style URLs (object tagging, copies and bucket reads included; a
//! listing's `s3:prefix`) and Bedrock Runtime's model invocations.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use axum::http::{request::Parts, Method};
use percent_encoding::percent_decode_str;
use serde_json::Value;

use crate::template::intrinsics::{ACCOUNT, REGION};

/// One action a request needs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Action {
    /// `service:Action`, e.g. `dynamodb:GetItem`.
    pub action: String,
    /// The resource's ARN.
    pub resource: String,
    /// `dynamodb:LeadingKeys`: the partition-key values the request touches.
    pub leading_keys: Vec<String>,
    /// A query of a secondary index (its leading keys are the index's partition keys).
    pub on_index: bool,
    /// The request's other condition keys the IAM check reads (`dynamodb:Attributes`,
    /// `dynamodb:ReturnValues`, `s3:prefix`), by key; a key the request does not carry is
    /// absent, as in IAM's request context.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context: BTreeMap<String, Vec<String>>,
}

impl Action {
    /// `action` (`service:Action`) on the resource of ARN `resource`, without leading keys or
    /// other condition keys (the builders below add them, e.g. to ask a policy a question).
    pub fn new(action: &str, resource: impl Into<String>) -> Self {
        Self {
            action: action.to_string(),
            resource: resource.into(),
            leading_keys: vec![],
            on_index: false,
            context: BTreeMap::new(),
        }
    }

    /// With these partition keys (`dynamodb:LeadingKeys`).
    pub fn keys(mut self, keys: &[&str]) -> Self {
        self.leading_keys = keys.iter().map(|k| k.to_string()).collect();
        self
    }

    /// A query of a secondary index (`resource` is `<table ARN>/index/<name>`).
    pub fn on_an_index(mut self) -> Self {
        self.on_index = true;
        self
    }

    /// With `values` for the condition key `key` (e.g. `dynamodb:Attributes`).
    pub fn with(mut self, key: &str, values: &[&str]) -> Self {
        self.context.insert(key.to_string(), values.iter().map(|v| v.to_string()).collect());
        self
    }
}

/// The partition-key attribute of each table and index, by table name.
#[derive(Clone, Debug, Default)]
pub struct KeySchemas {
    /// Table name → (table's partition key, index name → index's partition key).
    pub tables: BTreeMap<String, (String, BTreeMap<String, String>)>,
}

/// The SigV4 service a request is signed for (`Authorization` header or presigned query).
pub fn signed_service(parts: &Parts) -> Option<String> {
    let credential = match parts.headers.get("authorization").and_then(|v| v.to_str().ok()) {
        Some(header) => header.split("Credential=").nth(1)?.split(',').next()?.to_string(),
        None => {
            let query = parts.uri.query()?;
            form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "X-Amz-Credential")?
                .1
                .into_owned()
        }
    };
    // AKID/date/region/service/aws4_request
    credential.split('/').nth(3).map(str::to_string)
}

/// The actions `parts` and `body` need, for the SigV4 `service` they are signed for.
pub fn of_request(
    service: &str,
    parts: &Parts,
    body: &[u8],
    schemas: &KeySchemas,
) -> Result<Vec<Action>> {
    match service {
        "dynamodb" => dynamodb(parts, body, schemas),
        "sqs" => sqs(parts, body),
        "secretsmanager" => secrets(parts, body),
        "s3" => s3(parts),
        "bedrock" => bedrock(parts),
        other => bail!("the stack does not emulate the service {other}"),
    }
}

fn target(parts: &Parts) -> Option<&str> {
    let target = parts.headers.get("x-amz-target")?.to_str().ok()?;
    target.rsplit('.').next()
}

fn table_arn(table: &str) -> String {
    format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}")
}

/// The string form of a DynamoDB attribute value (`S` or `N`).
fn scalar(value: &Value) -> Option<String> {
    value["S"].as_str().or_else(|| value["N"].as_str()).map(str::to_string)
}

fn leading_key(schemas: &KeySchemas, table: &str, item: &Value) -> Result<String> {
    let (hash, _) = schemas.tables.get(table).with_context(|| format!("unknown table {table}"))?;
    scalar(&item[hash]).with_context(|| format!("no partition key {hash} in {item}"))
}

fn item_action(schemas: &KeySchemas, action: &str, table: &str, item: &Value) -> Result<Action> {
    let mut found = Action::new(action, table_arn(table));
    found.leading_keys.push(leading_key(schemas, table, item)?);
    Ok(found)
}

fn dynamodb(parts: &Parts, body: &[u8], schemas: &KeySchemas) -> Result<Vec<Action>> {
    let operation = target(parts).context("a DynamoDB request without X-Amz-Target")?;
    let body: Value = serde_json::from_slice(body).context("a DynamoDB body")?;
    let table = || body["TableName"].as_str().context("TableName");
    Ok(match operation {
        "GetItem" | "DeleteItem" | "UpdateItem" | "PutItem" => {
            let field = if operation == "PutItem" { "Item" } else { "Key" };
            let action = format!("dynamodb:{operation}");
            let mut found = item_action(schemas, &action, table()?, &body[field])?;
            found.context = context::item(&body, &action, field, true);
            vec![found]
        }
        "Query" => vec![query(schemas, &body)?],
        "BatchGetItem" | "BatchWriteItem" => {
            let requests = body["RequestItems"].as_object().context("RequestItems")?;
            let mut actions = vec![];
            for (table, request) in requests {
                let mut action = Action::new(&format!("dynamodb:{operation}"), table_arn(table));
                let items: Vec<&Value> = match request["Keys"].as_array() {
                    Some(keys) => keys.iter().collect(),
                    None => request
                        .as_array()
                        .context("write requests")?
                        .iter()
                        .map(|r| {
                            let put = &r["PutRequest"]["Item"];
                            if put.is_null() {
                                &r["DeleteRequest"]["Key"]
                            } else {
                                put
                            }
                        })
                        .collect(),
                };
                for item in items {
                    action.leading_keys.push(leading_key(schemas, table, item)?);
                }
                actions.push(action);
            }
            actions
        }
        "TransactWriteItems" | "TransactGetItems" => {
            let mut actions = vec![];
            for entry in body["TransactItems"].as_array().context("TransactItems")? {
                let (kind, inner) = entry
                    .as_object()
                    .and_then(|o| o.iter().next())
                    .context("a transaction entry")?;
                let (action, field) = match kind.as_str() {
                    "Put" => ("dynamodb:PutItem", "Item"),
                    "Update" => ("dynamodb:UpdateItem", "Key"),
                    "Delete" => ("dynamodb:DeleteItem", "Key"),
                    "ConditionCheck" => ("dynamodb:ConditionCheckItem", "Key"),
                    "Get" => ("dynamodb:GetItem", "Key"),
                    other => bail!("transaction entry {other}"),
                };
                let table = inner["TableName"].as_str().context("TableName")?;
                let mut found = item_action(schemas, action, table, &inner[field])?;
                // A transaction's entries take no ReturnValues.
                found.context = context::item(inner, action, field, false);
                actions.push(found);
            }
            actions
        }
        other => vec![Action::new(&format!("dynamodb:{other}"), table_arn(table()?))],
    })
}

/// A query: the table or index, and the partition-key value of its key condition.
fn query(schemas: &KeySchemas, body: &Value) -> Result<Action> {
    let table = body["TableName"].as_str().context("TableName")?;
    let (table_hash, indexes) =
        schemas.tables.get(table).with_context(|| format!("unknown table {table}"))?;
    let (resource, hash, on_index) = match body["IndexName"].as_str() {
        Some(index) => {
            let hash = indexes.get(index).with_context(|| format!("unknown index {index}"))?;
            (format!("{}/index/{index}", table_arn(table)), hash, true)
        }
        None => (table_arn(table), table_hash, false),
    };
    let mut action = Action::new("dynamodb:Query", resource);
    action.on_index = on_index;
    let names = &body["ExpressionAttributeNames"];
    let values = &body["ExpressionAttributeValues"];
    if let Some(expression) = body["KeyConditionExpression"].as_str() {
        let and = regex::Regex::new(r"(?i)\s+and\s+").expect("a valid pattern");
        for part in and.split(expression) {
            let Some((name, placeholder)) = part.split_once('=') else { continue };
            let (name, placeholder) = (name.trim(), placeholder.trim());
            let name = match name.strip_prefix('#') {
                Some(_) => names[name].as_str().unwrap_or(name),
                None => name,
            };
            if name == hash {
                let value = scalar(&values[placeholder]).context("the partition-key value")?;
                action.leading_keys.push(value);
            }
        }
    } else if let Some(conditions) = body["KeyConditions"].as_object() {
        if let Some(value) = conditions.get(hash.as_str()) {
            action.leading_keys.extend(scalar(&value["AttributeValueList"][0]));
        }
    }
    if action.leading_keys.is_empty() {
        bail!("a query of {table} without a partition-key value");
    }
    Ok(action)
}

fn queue_arn(url: &str) -> Result<String> {
    let path = url.split("://").nth(1).and_then(|rest| rest.split_once('/')).map(|(_, p)| p);
    let mut segments = path.context("a queue URL")?.trim_matches('/').split('/');
    let (Some(account), Some(name)) = (segments.next(), segments.next()) else {
        bail!("queue URL {url}");
    };
    Ok(format!("arn:aws:sqs:{REGION}:{account}:{name}"))
}

fn sqs(parts: &Parts, body: &[u8]) -> Result<Vec<Action>> {
    let (operation, queue_url) = match target(parts) {
        Some(operation) => {
            let body: Value = serde_json::from_slice(body).context("an SQS body")?;
            (operation.to_string(), body["QueueUrl"].as_str().map(str::to_string))
        }
        None => {
            let form: BTreeMap<String, String> =
                form_urlencoded::parse(body).into_owned().collect();
            let operation = form.get("Action").context("an SQS request without Action")?.clone();
            (operation, form.get("QueueUrl").cloned())
        }
    };
    let action = match operation.as_str() {
        "SendMessageBatch" => "SendMessage",
        "DeleteMessageBatch" => "DeleteMessage",
        "ChangeMessageVisibilityBatch" => "ChangeMessageVisibility",
        other => other,
    };
    let resource = match queue_url {
        Some(url) => queue_arn(&url)?,
        None => format!("arn:aws:sqs:{REGION}:{ACCOUNT}:*"),
    };
    Ok(vec![Action::new(&format!("sqs:{action}"), resource)])
}

fn secrets(parts: &Parts, body: &[u8]) -> Result<Vec<Action>> {
    let operation = target(parts).context("a Secrets Manager request without X-Amz-Target")?;
    let body: Value = serde_json::from_slice(body).context("a Secrets Manager body")?;
    let id = body["SecretId"].as_str().unwrap_or("*");
    let resource = if id.starts_with("arn:") {
        id.to_string()
    } else {
        format!("arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{id}")
    };
    Ok(vec![Action::new(&format!("secretsmanager:{operation}"), resource)])
}

fn decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

fn s3(parts: &Parts) -> Result<Vec<Action>> {
    let path = parts.uri.path().trim_start_matches('/');
    let (bucket, key) = match path.split_once('/') {
        Some((bucket, key)) if !key.is_empty() => (decode(bucket), Some(decode(key))),
        _ => (decode(path.trim_end_matches('/')), None),
    };
    let subresources: Vec<String> = parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).map(|(name, _)| name.into_owned()).collect())
        .unwrap_or_default();
    let has = |name: &str| subresources.iter().any(|s| s == name);
    let bucket_arn = format!("arn:aws:s3:::{bucket}");
    let Some(key) = key else {
        let action = match parts.method {
            Method::HEAD | Method::GET if has("location") => "s3:GetBucketLocation",
            Method::GET if has("prefix") => {
                let query = parts.uri.query().unwrap_or_default();
                let prefix = form_urlencoded::parse(query.as_bytes())
                    .find(|(name, _)| name == "prefix")
                    .map(|(_, value)| value.into_owned())
                    .unwrap_or_default();
                let listing =
                    Action::new("s3:ListBucket", bucket_arn).with("s3:prefix", &[&prefix]);
                return Ok(vec![listing]);
            }
            Method::HEAD | Method::GET => "s3:ListBucket",
            Method::PUT => "s3:CreateBucket",
            Method::DELETE => "s3:DeleteBucket",
            Method::POST if has("delete") => {
                return Ok(vec![Action::new("s3:DeleteObject", format!("{bucket_arn}/*"))]);
            }
            ref other => bail!("S3 {other} on a bucket"),
        };
        return Ok(vec![Action::new(action, bucket_arn)]);
    };
    let object = format!("{bucket_arn}/{key}");
    let mut actions = vec![];
    match parts.method {
        Method::PUT if has("tagging") => actions.push(Action::new("s3:PutObjectTagging", object)),
        Method::PUT | Method::POST => {
            if let Some(source) = parts.headers.get("x-amz-copy-source") {
                let source = decode(source.to_str().unwrap_or_default());
                let source = source.trim_start_matches('/').split('?').next().unwrap_or_default();
                actions.push(Action::new("s3:GetObject", format!("arn:aws:s3:::{source}")));
            }
            if parts.headers.contains_key("x-amz-tagging") {
                actions.push(Action::new("s3:PutObjectTagging", object.clone()));
            }
            actions.push(Action::new("s3:PutObject", object));
        }
        Method::GET | Method::HEAD if has("tagging") => {
            actions.push(Action::new("s3:GetObjectTagging", object))
        }
        Method::GET | Method::HEAD => actions.push(Action::new("s3:GetObject", object)),
        Method::DELETE if has("tagging") => {
            actions.push(Action::new("s3:DeleteObjectTagging", object))
        }
        Method::DELETE if has("uploadId") => {
            actions.push(Action::new("s3:AbortMultipartUpload", object))
        }
        Method::DELETE => actions.push(Action::new("s3:DeleteObject", object)),
        ref other => bail!("S3 {other} on an object"),
    }
    Ok(actions)
}

fn bedrock(parts: &Parts) -> Result<Vec<Action>> {
    let path = parts.uri.path();
    let model = path
        .strip_prefix("/model/")
        .and_then(|rest| rest.split('/').next())
        .with_context(|| format!("Bedrock Runtime path {path}"))?;
    let arn = format!("arn:aws:bedrock:{REGION}::foundation-model/{}", decode(model));
    let action = if path.ends_with("/invoke-with-response-stream") {
        "bedrock:InvokeModelWithResponseStream"
    } else {
        "bedrock:InvokeModel"
    };
    Ok(vec![Action::new(action, arn)])
}

mod context;
#[cfg(test)]
mod tests;
