//! IAM's identity-policy evaluation for the actions the functions make: an explicit `Deny`
//! wins, else an `Allow` whose action, resource and conditions all match grants, else the
//! action is denied (as AccessDenied would be in AWS). Conditions: the string and boolean
//! operators with their `ForAllValues:`/`ForAnyValue:` set forms and `IfExists`, on
//! `dynamodb:LeadingKeys` (the partition keys of the request), `dynamodb:Attributes` and
//! `dynamodb:ReturnValues` (read off item requests), `s3:prefix` (of a listing) and
//! `aws:SecureTransport` (always true: every AWS endpoint is HTTPS); a condition on any other
//! key never holds. As in IAM, a `ForAllValues:` or `IfExists` condition holds when the request
//! lacks the key. A `dynamodb:LeadingKeys` condition is never taken to cover a query of a
//! secondary index: the check does not rely on how AWS reads leading keys there, so a policy
//! must grant index queries without one.
//!
//! [`Policy::decide`] answers the question AWS answers: is this action on this resource, with
//! these keys and attributes, allowed? The stack asks it of every call it records, and the
//! template tests ask it of what a function must never be able to do.

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::actions::Action;

/// One statement of an inline policy.
#[derive(Clone, Debug)]
pub struct Statement {
    /// `Sid`, or `#<n>` without one.
    pub sid: String,
    allow: bool,
    actions: Vec<String>,
    resources: Vec<String>,
    conditions: Vec<Clause>,
}

#[derive(Clone, Debug)]
struct Clause {
    operator: String,
    key: String,
    values: Vec<String>,
}

/// A function's identity policy: the statements of its inline policies.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Every statement, in template order.
    pub statements: Vec<Statement>,
}

/// What the policy says about an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Granted by the statement `Sid`.
    Allowed(String),
    /// Denied explicitly by the statement `Sid`.
    Denied(String),
    /// No statement grants it; the statements that matched action and resource but not
    /// their conditions, if any.
    NotGranted(Vec<String>),
}

fn strings(value: &Value) -> Result<Vec<String>> {
    match value {
        Value::String(one) => Ok(vec![one.clone()]),
        Value::Array(many) => many
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Bool(b) => Ok(b.to_string()),
                other => bail!("{other} is not a string"),
            })
            .collect(),
        Value::Bool(b) => Ok(vec![b.to_string()]),
        other => bail!("{other} is not a string or a list"),
    }
}

impl Policy {
    /// The statements of a function's resolved `Policies` entries. Only inline policy
    /// documents are read; a managed policy or SAM policy template is refused by name, so the
    /// check never passes over a grant it cannot see.
    pub fn from_policies(policies: &[Value]) -> Result<Self> {
        let mut statements = vec![];
        for policy in policies {
            let Some(statement) = policy.get("Statement") else {
                bail!("policy {policy} is not an inline policy document; the IAM check reads only those");
            };
            let list = match statement {
                Value::Array(list) => list.clone(),
                single => vec![single.clone()],
            };
            for statement in &list {
                let index = statements.len();
                statements.push(
                    Self::statement(statement, index)
                        .with_context(|| format!("statement {statement}"))?,
                );
            }
        }
        Ok(Self { statements })
    }

    fn statement(value: &Value, index: usize) -> Result<Statement> {
        if value.get("NotAction").is_some() || value.get("NotResource").is_some() {
            bail!("NotAction and NotResource are not read by the IAM check");
        }
        let mut conditions = vec![];
        if let Some(map) = value["Condition"].as_object() {
            for (operator, keys) in map {
                for (key, values) in keys.as_object().context("condition keys")? {
                    conditions.push(Clause {
                        operator: operator.clone(),
                        key: key.clone(),
                        values: strings(values)?,
                    });
                }
            }
        }
        Ok(Statement {
            sid: value["Sid"].as_str().map_or_else(|| format!("#{index}"), str::to_string),
            allow: match value["Effect"].as_str() {
                Some("Allow") => true,
                Some("Deny") => false,
                other => bail!("Effect {other:?}"),
            },
            actions: strings(&value["Action"])?,
            resources: strings(&value["Resource"])?,
            conditions,
        })
    }

    /// Whether the policy grants `action`.
    pub fn decide(&self, action: &Action) -> Decision {
        let mut allowed = None;
        let mut unmet = vec![];
        for statement in &self.statements {
            let applies = statement.actions.iter().any(|p| glob(p, &action.action, true))
                && statement.resources.iter().any(|p| glob(p, &action.resource, false));
            if !applies {
                continue;
            }
            if !statement.conditions.iter().all(|c| c.holds(action)) {
                unmet.push(statement.sid.clone());
                continue;
            }
            if !statement.allow {
                return Decision::Denied(statement.sid.clone());
            }
            allowed.get_or_insert_with(|| statement.sid.clone());
        }
        match allowed {
            Some(sid) => Decision::Allowed(sid),
            None => Decision::NotGranted(unmet),
        }
    }

    /// The statement named `sid`.
    pub fn statement_named(&self, sid: &str) -> Option<&Statement> {
        self.statements.iter().find(|s| s.sid == sid)
    }
}

impl Statement {
    /// The `dynamodb:LeadingKeys` values this statement is conditioned on, if any.
    pub fn leading_keys(&self) -> Vec<String> {
        self.conditions
            .iter()
            .filter(|c| c.key == "dynamodb:LeadingKeys")
            .flat_map(|c| c.values.clone())
            .collect()
    }

    /// Its conditions on keys other than `dynamodb:LeadingKeys`, as `operator key: values`.
    pub fn other_conditions(&self) -> Vec<String> {
        self.conditions
            .iter()
            .filter(|c| c.key != "dynamodb:LeadingKeys")
            .map(|c| format!("{} {}: {}", c.operator, c.key, c.values.join(" ")))
            .collect()
    }

    /// The actions it names.
    pub fn actions(&self) -> &[String] {
        &self.actions
    }

    /// The resources it names.
    pub fn resources(&self) -> &[String] {
        &self.resources
    }
}

/// The condition keys besides the leading keys that the check reads off a request.
const CONTEXT_KEYS: [&str; 3] = ["dynamodb:Attributes", "dynamodb:ReturnValues", "s3:prefix"];

impl Clause {
    fn holds(&self, action: &Action) -> bool {
        let context: Option<Vec<String>> = match self.key.as_str() {
            "dynamodb:LeadingKeys" if action.on_index => return false,
            "dynamodb:LeadingKeys" => {
                Some(action.leading_keys.clone()).filter(|keys| !keys.is_empty())
            }
            "aws:SecureTransport" => Some(vec!["true".into()]),
            key if CONTEXT_KEYS.contains(&key) => action.context.get(key).cloned(),
            _ => return false,
        };
        let (set, operator) = match self.operator.split_once(':') {
            Some((set @ ("ForAllValues" | "ForAnyValue"), rest)) => (Some(set), rest),
            _ => (None, self.operator.as_str()),
        };
        let (operator, if_exists) = match operator.strip_suffix("IfExists") {
            Some(base) => (base, true),
            None => (operator, false),
        };
        let Some(context) = context else {
            return set == Some("ForAllValues") || if_exists;
        };
        let (negated, base) = match operator {
            "StringNotEquals" => (true, "StringEquals"),
            "StringNotLike" => (true, "StringLike"),
            "StringNotEqualsIgnoreCase" => (true, "StringEqualsIgnoreCase"),
            other => (false, other),
        };
        let matches_one = |value: &String| {
            let hit = self.values.iter().any(|pattern| match base {
                "StringEquals" | "Bool" => pattern == value,
                "StringEqualsIgnoreCase" => pattern.eq_ignore_ascii_case(value),
                "StringLike" => glob(pattern, value, false),
                _ => false,
            });
            hit != negated
        };
        if !matches!(base, "StringEquals" | "Bool" | "StringEqualsIgnoreCase" | "StringLike") {
            return false;
        }
        match set {
            Some("ForAllValues") => context.iter().all(matches_one),
            _ => context.iter().any(matches_one),
        }
    }
}

/// IAM's wildcard match: `*` any run of characters, `?` one character.
pub fn glob(pattern: &str, text: &str, ignore_case: bool) -> bool {
    let fold = |s: &str| if ignore_case { s.to_ascii_lowercase() } else { s.to_string() };
    let (pattern, text): (Vec<char>, Vec<char>) =
        (fold(pattern).chars().collect(), fold(text).chars().collect());
    let (mut p, mut t, mut star, mut mark) = (0, 0, None, 0);
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

pub mod probe;
#[cfg(test)]
mod tests;
