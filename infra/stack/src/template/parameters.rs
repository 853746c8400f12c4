//! The template's parameters as CloudFormation takes them: each override must name a declared
//! parameter, every value (default or given) must pass the parameter's own constraints
//! (`AllowedValues`, `AllowedPattern`, `MinValue`/`MaxValue`, `MinLength`/`MaxLength`), and a
//! parameter without a default must be given.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use super::Template;

/// Effective parameter values, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parameters(BTreeMap<String, String>);

impl Parameters {
    /// The template's parameters at their defaults, with `overrides` applied.
    pub fn resolve(template: &Template, overrides: &BTreeMap<String, String>) -> Result<Self> {
        let declared = template.document()["Parameters"].as_object().cloned().unwrap_or_default();
        if let Some(unknown) = overrides.keys().find(|name| !declared.contains_key(*name)) {
            bail!("parameter {unknown} is not declared in the template");
        }
        let mut values = BTreeMap::new();
        for (name, spec) in &declared {
            let value = match (overrides.get(name), spec.get("Default")) {
                (Some(given), _) => given.clone(),
                (None, Some(default)) => scalar(default),
                (None, None) => bail!("parameter {name} has no default: give it a value"),
            };
            check(name, spec, &value)?;
            values.insert(name.clone(), value);
        }
        Ok(Self(values))
    }

    /// Checks the template's `Rules` as CloudFormation does before it deploys: every rule
    /// whose `RuleCondition` holds must have each `Assert` hold, else the deployment is
    /// refused with the assertion's description.
    pub fn check_rules(&self, template: &Template) -> Result<()> {
        let Some(rules) = template.document()["Rules"].as_object() else { return Ok(()) };
        let none = BTreeMap::new();
        let conditions = template.document()["Conditions"].clone();
        let resolver = super::intrinsics::Resolver::new(self, &conditions, &none, "rules");
        let holds =
            |value: &Value| -> Result<bool> { Ok(resolver.resolve(value)? == Value::Bool(true)) };
        for (name, rule) in rules {
            let applies = match rule.get("RuleCondition") {
                Some(condition) => holds(condition)?,
                None => true,
            };
            if !applies {
                continue;
            }
            for assertion in rule["Assertions"].as_array().into_iter().flatten() {
                if !holds(&assertion["Assert"])? {
                    let why =
                        assertion["AssertDescription"].as_str().unwrap_or("an assertion fails");
                    bail!("rule {name}: {why}");
                }
            }
        }
        Ok(())
    }

    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every parameter and its value.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// A scalar of the template as CloudFormation passes it: a string.
pub fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn check(name: &str, spec: &Value, value: &str) -> Result<()> {
    let problem = |why: String| Err(anyhow::anyhow!("parameter {name}={value:?}: {why}"));
    if let Some(allowed) = spec["AllowedValues"].as_array() {
        if !allowed.iter().any(|a| scalar(a) == value) {
            let allowed: Vec<String> = allowed.iter().map(scalar).collect();
            return problem(format!("not one of {allowed:?}"));
        }
    }
    if let Some(pattern) = spec["AllowedPattern"].as_str() {
        let anchored = format!("^(?:{pattern})$");
        let regex = regex::Regex::new(&anchored)
            .with_context(|| format!("parameter {name}: AllowedPattern {pattern}"))?;
        if !regex.is_match(value) {
            return problem(format!("does not match {pattern}"));
        }
    }
    if spec["Type"] == "Number" {
        let number: f64 = value.parse().map_err(|_| anyhow::anyhow!("{name} is a Number"))?;
        let bound = |key: &str| spec[key].as_f64().or_else(|| spec[key].as_str()?.parse().ok());
        if bound("MinValue").is_some_and(|min| number < min) {
            return problem(format!("below MinValue {}", spec["MinValue"]));
        }
        if bound("MaxValue").is_some_and(|max| number > max) {
            return problem(format!("above MaxValue {}", spec["MaxValue"]));
        }
    }
    let length = value.chars().count() as u64;
    if spec["MinLength"].as_u64().is_some_and(|min| length < min) {
        return problem(format!("shorter than MinLength {}", spec["MinLength"]));
    }
    if spec["MaxLength"].as_u64().is_some_and(|max| length > max) {
        return problem(format!("longer than MaxLength {}", spec["MaxLength"]));
    }
    Ok(())
}
