//! CloudFormation's intrinsic functions over the stack's physical resources: `Ref`,
//! `Fn::GetAtt`, `Fn::Sub`, `Fn::Join`, `Fn::Split`, `Fn::Select`, `Fn::If` and the condition
//! functions, with the pseudo parameters of an `us-east-1` stack in account 123456789012.
//! A reference to a resource the stack does not emulate is an error naming it.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::{parameters::scalar, Parameters};

/// Region of the emulated stack.
pub const REGION: &str = "us-east-1";
/// Account of the emulated stack (moto's default account).
pub const ACCOUNT: &str = "123456789012";

/// What a resource resolves to: its `Ref` and its attributes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Physical {
    /// The value of `!Ref <resource>`.
    pub reference: String,
    /// The values of `!GetAtt <resource>.<attribute>`.
    pub attributes: BTreeMap<String, String>,
}

impl Physical {
    /// A resource whose `Ref` is `reference`, with `attributes`.
    pub fn new(reference: impl Into<String>, attributes: &[(&str, String)]) -> Self {
        let attributes = attributes.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Self { reference: reference.into(), attributes }
    }
}

/// What `AWS::NoValue` resolves to until the property or item holding it is left out.
const NO_VALUE: &str = "\u{0}AWS::NoValue";

fn is_no_value(value: &Value) -> bool {
    value.as_str() == Some(NO_VALUE)
}

fn is_intrinsic(map: &serde_json::Map<String, Value>) -> bool {
    map.keys().all(|key| key == "Ref" || key.starts_with("Fn::"))
}

/// Resolves intrinsics against parameters, conditions and physical resources.
pub struct Resolver<'a> {
    parameters: &'a Parameters,
    conditions: &'a Value,
    physical: &'a BTreeMap<String, Physical>,
    stack_name: &'a str,
}

impl<'a> Resolver<'a> {
    /// A resolver for the stack `stack_name` of `template_conditions` (the `Conditions`
    /// section).
    pub fn new(
        parameters: &'a Parameters,
        template_conditions: &'a Value,
        physical: &'a BTreeMap<String, Physical>,
        stack_name: &'a str,
    ) -> Self {
        Self { parameters, conditions: template_conditions, physical, stack_name }
    }

    /// `value` with every intrinsic replaced by its result; a property or list item that
    /// resolves to `AWS::NoValue` is left out, as CloudFormation leaves it out.
    pub fn resolve(&self, value: &Value) -> Result<Value> {
        match value {
            Value::Array(items) => {
                let mut resolved = Vec::with_capacity(items.len());
                for item in items {
                    let item = self.resolve(item)?;
                    if !is_no_value(&item) {
                        resolved.push(item);
                    }
                }
                Ok(Value::Array(resolved))
            }
            Value::Object(map) if map.len() == 1 && is_intrinsic(map) => {
                let (key, argument) = map.iter().next().expect("one entry");
                self.function(key, argument).with_context(|| format!("{key} {argument}"))
            }
            Value::Object(map) => {
                let mut resolved = serde_json::Map::new();
                for (key, value) in map {
                    let value = self.resolve(value)?;
                    if !is_no_value(&value) {
                        resolved.insert(key.clone(), value);
                    }
                }
                Ok(Value::Object(resolved))
            }
            scalar => Ok(scalar.clone()),
        }
    }

    /// `value` resolved to a string (numbers and booleans as CloudFormation writes them).
    pub fn string(&self, value: &Value) -> Result<String> {
        match self.resolve(value)? {
            Value::Array(_) | Value::Object(_) | Value::Null => {
                bail!("{value} does not resolve to a string")
            }
            other => Ok(scalar(&other)),
        }
    }

    /// Whether the condition `name` of the template holds.
    pub fn condition(&self, name: &str) -> Result<bool> {
        let definition =
            self.conditions.get(name).with_context(|| format!("no condition {name}"))?;
        self.truth(definition)
    }

    fn truth(&self, value: &Value) -> Result<bool> {
        match self.resolve(value)? {
            Value::Bool(b) => Ok(b),
            Value::String(s) if s == "true" || s == "false" => Ok(s == "true"),
            other => bail!("{other} is not a condition"),
        }
    }

    fn function(&self, name: &str, argument: &Value) -> Result<Value> {
        let list = || argument.as_array().with_context(|| format!("{name} takes a list"));
        match name {
            "Ref" => self.reference(argument.as_str().context("Ref takes a name")?),
            "Fn::GetAtt" => {
                let parts: Vec<String> =
                    list()?.iter().map(|p| self.string(p)).collect::<Result<_>>()?;
                let [resource, attribute] = parts.as_slice() else {
                    bail!("Fn::GetAtt takes a resource and an attribute");
                };
                self.attribute(resource, attribute).map(Value::String)
            }
            "Fn::Sub" => self.substitute(argument).map(Value::String),
            "Fn::Join" => {
                let [separator, items] = list()?.as_slice() else {
                    bail!("Fn::Join takes a separator and a list");
                };
                let separator = self.string(separator)?;
                let items = self.resolve(items)?;
                let items = items.as_array().context("Fn::Join joins a list")?;
                let texts: Vec<String> = items.iter().map(scalar).collect();
                Ok(Value::String(texts.join(&separator)))
            }
            "Fn::Split" => {
                let [separator, text] = list()?.as_slice() else {
                    bail!("Fn::Split takes a separator and a string");
                };
                let (separator, text) = (self.string(separator)?, self.string(text)?);
                Ok(Value::Array(text.split(&separator).map(Value::from).collect()))
            }
            "Fn::Select" => {
                let [index, items] = list()?.as_slice() else {
                    bail!("Fn::Select takes an index and a list");
                };
                let index: usize = self.string(index)?.parse().context("Fn::Select index")?;
                let items = self.resolve(items)?;
                items.get(index).cloned().with_context(|| format!("no item {index}"))
            }
            "Fn::If" => {
                let [condition, then, otherwise] = list()?.as_slice() else {
                    bail!("Fn::If takes a condition and two values");
                };
                let holds = self.condition(condition.as_str().context("Fn::If condition")?)?;
                self.resolve(if holds { then } else { otherwise })
            }
            "Fn::Equals" => {
                let [left, right] = list()?.as_slice() else {
                    bail!("Fn::Equals takes two values");
                };
                Ok(Value::Bool(self.resolve(left)? == self.resolve(right)?))
            }
            "Fn::Not" => {
                let [inner] = list()?.as_slice() else { bail!("Fn::Not takes one condition") };
                Ok(Value::Bool(!self.truth(inner)?))
            }
            "Fn::And" | "Fn::Or" => {
                let truths: Vec<bool> =
                    list()?.iter().map(|c| self.truth(c)).collect::<Result<_>>()?;
                let all = name == "Fn::And";
                Ok(Value::Bool(if all {
                    truths.iter().all(|t| *t)
                } else {
                    truths.iter().any(|t| *t)
                }))
            }
            "Fn::Condition" => {
                Ok(Value::Bool(self.condition(argument.as_str().context("a condition name")?)?))
            }
            other => bail!("the stack does not evaluate {other}"),
        }
    }

    fn reference(&self, name: &str) -> Result<Value> {
        if let Some(pseudo) = self.pseudo(name) {
            return Ok(Value::String(pseudo));
        }
        if let Some(value) = self.parameters.get(name) {
            return Ok(Value::String(value.to_string()));
        }
        self.physical
            .get(name)
            .map(|p| Value::String(p.reference.clone()))
            .ok_or_else(|| self.not_emulated(name))
    }

    fn attribute(&self, resource: &str, attribute: &str) -> Result<String> {
        let physical = self.physical.get(resource).ok_or_else(|| self.not_emulated(resource))?;
        physical
            .attributes
            .get(attribute)
            .cloned()
            .with_context(|| format!("the stack gives {resource} no attribute {attribute}"))
    }

    fn not_emulated(&self, name: &str) -> anyhow::Error {
        anyhow!("{name} is neither a parameter nor a resource the stack emulates")
    }

    fn pseudo(&self, name: &str) -> Option<String> {
        Some(match name {
            "AWS::Region" => REGION.to_string(),
            "AWS::AccountId" => ACCOUNT.to_string(),
            "AWS::Partition" => "aws".to_string(),
            "AWS::URLSuffix" => "amazonaws.com".to_string(),
            "AWS::StackName" => self.stack_name.to_string(),
            "AWS::StackId" => {
                format!("arn:aws:cloudformation:{REGION}:{ACCOUNT}:stack/{}/local", self.stack_name)
            }
            "AWS::NoValue" => NO_VALUE.to_string(),
            _ => return None,
        })
    }

    /// `Fn::Sub`: `${Name}` and `${Resource.Attribute}` replaced, `${!Literal}` kept as
    /// `${Literal}`; the list form adds its own variables.
    fn substitute(&self, argument: &Value) -> Result<String> {
        let (text, variables) = match argument {
            Value::String(text) => (text.as_str(), BTreeMap::new()),
            Value::Array(pair) if pair.len() == 2 => {
                let text = pair[0].as_str().context("Fn::Sub text")?;
                let map = pair[1].as_object().context("Fn::Sub variables")?;
                let variables = map
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.string(v)?)))
                    .collect::<Result<BTreeMap<_, _>>>()?;
                (text, variables)
            }
            other => bail!("Fn::Sub takes a string or [string, variables], not {other}"),
        };
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find('}').context("an unclosed ${ in Fn::Sub")? + start;
            let name = &rest[start + 2..end];
            if let Some(literal) = name.strip_prefix('!') {
                out.push_str(&format!("${{{literal}}}"));
            } else if let Some(value) = variables.get(name) {
                out.push_str(value);
            } else if let Some((resource, attribute)) =
                name.split_once('.').filter(|_| !name.starts_with("AWS::"))
            {
                out.push_str(&self.attribute(resource, attribute)?);
            } else {
                out.push_str(&scalar(&self.reference(name)?));
            }
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}
