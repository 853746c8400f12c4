//! template.yaml, read as CloudFormation and SAM read it: short-form intrinsics become their
//! long form (`!Ref X` is `{"Ref": "X"}`), the function Globals merge into every function the
//! way SAM merges them (maps merged, lists appended, scalars overridden), and the functions,
//! their HTTP API routes, queue and schedule events and policies are read from the result.

pub mod intrinsics;
mod parameters;

use std::{collections::BTreeMap, path::Path, time::Duration};

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

pub use parameters::Parameters;

/// The template, its YAML turned into JSON with intrinsics in their long form.
#[derive(Clone, Debug)]
pub struct Template {
    document: Value,
}

/// One `AWS::Serverless::Function`, Globals merged in (intrinsics not yet resolved).
#[derive(Clone, Debug)]
pub struct FunctionSpec {
    /// Logical id, e.g. `AuthFunction`.
    pub logical_id: String,
    /// The workspace binary `sam build` builds for it: `Metadata.BuildProperties.Binary`, else
    /// the crate its `CodeUri` names.
    pub binary: String,
    /// `MemorySize` in MB.
    pub memory: Value,
    /// `Timeout` in seconds.
    pub timeout: Value,
    /// `Environment.Variables`, Globals merged.
    pub environment: BTreeMap<String, Value>,
    /// Its events.
    pub events: Vec<EventSpec>,
    /// Its `Policies` entries.
    pub policies: Vec<Value>,
}

/// An event source of a function.
#[derive(Clone, Debug)]
pub enum EventSpec {
    /// An `HttpApi` event: a route, or the `$default` route when it has no path and method.
    Http {
        /// The event's name.
        name: String,
        /// `METHOD /path`, or `None` for `$default`.
        route: Option<(String, String)>,
    },
    /// An `SQS` event source mapping.
    Sqs {
        /// The event's name.
        name: String,
        /// `Queue` (an ARN, usually `!GetAtt <Queue>.Arn`).
        queue: Value,
        /// `BatchSize` (SAM's default: 10).
        batch_size: Value,
        /// `MaximumBatchingWindowInSeconds` (default 0).
        batching_window: Value,
        /// `FunctionResponseTypes` holds `ReportBatchItemFailures`.
        reports_item_failures: bool,
        /// `Enabled` (default true).
        enabled: Value,
    },
    /// A `ScheduleV2` event (EventBridge Scheduler).
    Schedule {
        /// The event's name.
        name: String,
        /// `ScheduleExpression`, e.g. `rate(5 minutes)`.
        expression: Value,
        /// `Input`: the JSON the function is invoked with (`{}` without one).
        input: Option<Value>,
        /// `State` is not `DISABLED`.
        enabled: bool,
    },
}

impl Template {
    /// Reads and converts `path`.
    pub fn load(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// Converts the text of a template.
    pub fn parse(text: &str) -> Result<Self> {
        let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(text)?;
        Ok(Self { document: long_form(yaml)? })
    }

    /// The whole document.
    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The `Resources` section.
    pub fn resources(&self) -> Result<&Map<String, Value>> {
        self.document["Resources"].as_object().context("the template has no Resources")
    }

    /// The resource `logical_id`.
    pub fn resource(&self, logical_id: &str) -> Option<&Value> {
        self.document["Resources"].get(logical_id)
    }

    /// Logical ids and properties of the resources of type `kind`, in template order.
    pub fn resources_of_type(&self, kind: &str) -> Result<Vec<(String, Value)>> {
        Ok(self
            .resources()?
            .iter()
            .filter(|(_, resource)| resource["Type"] == kind)
            .map(|(id, resource)| (id.clone(), resource["Properties"].clone()))
            .collect())
    }

    /// Every `AWS::Serverless::Function`, with the function Globals merged in.
    pub fn functions(&self) -> Result<Vec<FunctionSpec>> {
        let globals = &self.document["Globals"]["Function"];
        self.resources_of_type("AWS::Serverless::Function")?
            .into_iter()
            .map(|(logical_id, properties)| {
                let merged = merge(globals, &properties);
                let metadata = &self.document["Resources"][&logical_id]["Metadata"];
                function_spec(logical_id.clone(), &merged, metadata)
                    .with_context(|| format!("function {logical_id}"))
            })
            .collect()
    }

    /// The `CorsConfiguration` of the `AWS::Serverless::HttpApi` the routes belong to.
    pub fn http_api_cors(&self) -> Result<Option<Value>> {
        let apis = self.resources_of_type("AWS::Serverless::HttpApi")?;
        match apis.as_slice() {
            [] => Ok(None),
            [(_, properties)] => Ok(properties.get("CorsConfiguration").cloned()),
            _ => bail!("the stack serves one HttpApi; the template declares {}", apis.len()),
        }
    }
}

fn function_spec(logical_id: String, properties: &Value, metadata: &Value) -> Result<FunctionSpec> {
    let code_uri = properties["CodeUri"].as_str().context("CodeUri must be a path")?;
    if metadata["BuildMethod"] != "rust-cargolambda" {
        bail!("Metadata.BuildMethod must be rust-cargolambda (sam build with cargo-lambda)");
    }
    let crate_name = code_uri.trim_end_matches('/').rsplit('/').next().unwrap_or_default();
    let binary = metadata["BuildProperties"]["Binary"].as_str().unwrap_or(crate_name).to_string();
    let environment = properties["Environment"]["Variables"]
        .as_object()
        .map(|vars| vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let mut events = vec![];
    if let Some(declared) = properties["Events"].as_object() {
        for (name, event) in declared {
            events.push(event_spec(name, event).with_context(|| format!("event {name}"))?);
        }
    }
    let policies = match &properties["Policies"] {
        Value::Null => vec![],
        Value::Array(list) => list.clone(),
        single => vec![single.clone()],
    };
    Ok(FunctionSpec {
        logical_id,
        binary,
        memory: properties.get("MemorySize").cloned().unwrap_or(Value::from(128)),
        timeout: properties.get("Timeout").cloned().unwrap_or(Value::from(3)),
        environment,
        events,
        policies,
    })
}

fn event_spec(name: &str, event: &Value) -> Result<EventSpec> {
    let properties = &event["Properties"];
    let text = |key: &str| properties[key].as_str().map(str::to_string);
    Ok(match event["Type"].as_str() {
        Some("HttpApi") => {
            let route = match (text("Method"), text("Path")) {
                (Some(method), Some(path)) => Some((method.to_uppercase(), path)),
                (None, None) => None,
                _ => bail!("an HttpApi event needs both Method and Path, or neither ($default)"),
            };
            if properties["PayloadFormatVersion"].as_str().unwrap_or("2.0") != "2.0" {
                bail!("the stack's front sends payload format 2.0 only");
            }
            EventSpec::Http { name: name.to_string(), route }
        }
        Some("SQS") => EventSpec::Sqs {
            name: name.to_string(),
            queue: properties["Queue"].clone(),
            batch_size: properties.get("BatchSize").cloned().unwrap_or(Value::from(10)),
            batching_window: properties
                .get("MaximumBatchingWindowInSeconds")
                .cloned()
                .unwrap_or(Value::from(0)),
            reports_item_failures: properties["FunctionResponseTypes"]
                .as_array()
                .is_some_and(|types| types.iter().any(|t| t == "ReportBatchItemFailures")),
            enabled: properties.get("Enabled").cloned().unwrap_or(Value::Bool(true)),
        },
        Some("ScheduleV2") => EventSpec::Schedule {
            name: name.to_string(),
            expression: properties["ScheduleExpression"].clone(),
            input: properties.get("Input").cloned(),
            enabled: properties["State"].as_str() != Some("DISABLED"),
        },
        other => bail!("event type {other:?} is not emulated by the stack"),
    })
}

/// SAM's Globals merge: maps merged key by key, lists appended, anything else overridden.
fn merge(global: &Value, local: &Value) -> Value {
    match (global, local) {
        (Value::Object(global), Value::Object(local)) => {
            let mut merged = global.clone();
            for (key, value) in local {
                let combined = match global.get(key) {
                    Some(base) => merge(base, value),
                    None => value.clone(),
                };
                merged.insert(key.clone(), combined);
            }
            Value::Object(merged)
        }
        (Value::Array(global), Value::Array(local)) => {
            Value::Array(global.iter().chain(local).cloned().collect())
        }
        (_, Value::Null) => global.clone(),
        (_, local) => local.clone(),
    }
}

/// YAML to JSON, short-form intrinsics to their long form.
fn long_form(yaml: serde_yaml_ng::Value) -> Result<Value> {
    use serde_yaml_ng::Value as Yaml;
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(b),
        Yaml::Number(n) => serde_json::to_value(n)?,
        Yaml::String(s) => Value::String(s),
        Yaml::Sequence(items) => {
            Value::Array(items.into_iter().map(long_form).collect::<Result<_>>()?)
        }
        Yaml::Mapping(map) => {
            let mut object = Map::new();
            for (key, value) in map {
                let key = match key {
                    Yaml::String(key) => key,
                    other => serde_yaml_ng::to_string(&other)?.trim().to_string(),
                };
                object.insert(key, long_form(value)?);
            }
            Value::Object(object)
        }
        Yaml::Tagged(tagged) => {
            let tag = tagged.tag.to_string();
            let name = tag.trim_start_matches('!');
            let value = long_form(tagged.value)?;
            let (key, value) = match name {
                "Ref" | "Condition" => (name.to_string(), value),
                "GetAtt" => {
                    let parts = match value {
                        Value::String(dotted) => match dotted.split_once('.') {
                            Some((resource, attribute)) => vec![resource.into(), attribute.into()],
                            None => bail!("!GetAtt {dotted} names no attribute"),
                        },
                        list => serde_json::from_value(list)?,
                    };
                    ("Fn::GetAtt".to_string(), Value::Array(parts))
                }
                other => (format!("Fn::{other}"), value),
            };
            Value::Object(Map::from_iter([(key, value)]))
        }
    })
}

/// A number or numeric string of the template as seconds.
pub fn seconds(value: &Value) -> Result<Duration> {
    Ok(Duration::from_secs(number(value)?))
}

/// A number or numeric string of the template.
pub fn number(value: &Value) -> Result<u64> {
    match value {
        Value::Number(n) => n.as_u64().with_context(|| format!("{n} is not a whole number")),
        Value::String(s) => s.trim().parse().with_context(|| format!("{s} is not a number")),
        other => bail!("{other} is not a number"),
    }
}

#[cfg(test)]
mod tests;
