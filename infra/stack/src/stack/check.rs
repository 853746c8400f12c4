//! The IAM check of a stack: every action each function made, held against the policies the
//! template gives that function, and written down for `docs/iam.md`.

use std::{io::Write, path::Path, sync::PoisonError};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::Stack;
use crate::{actions::Action, iam::Decision};

/// One action a function made and what its policy says of it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The function's logical id.
    pub function: String,
    /// The action.
    pub action: Action,
    /// The policy's decision.
    pub decision: Decision,
}

/// A finding in the template's own terms, as `docs/iam.md` lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Row {
    /// The function's logical id.
    pub function: String,
    /// `service:Action`.
    pub action: String,
    /// The resource by its logical id, e.g. `BlogTable/index/gsi1`, `UploadsBucket/uploads/*`.
    pub resource: String,
    /// Leading-key prefixes, e.g. `USER#…`, `METRICS`.
    pub keys: Vec<String>,
    /// The statement that grants it, or `NOT GRANTED`.
    pub granted_by: String,
}

/// A leading key with its variable parts elided: `USER#42` → `USER#…`, `COUNTER#FILE` kept.
pub fn key_prefix(key: &str) -> String {
    let mut segments = key.split('#');
    let first = segments.next().unwrap_or_default().to_string();
    let rest: Vec<&str> = segments.collect();
    let constant = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && s.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    };
    match rest.as_slice() {
        [] => first,
        [only] if constant(only) => format!("{first}#{only}"),
        _ => format!("{first}#…"),
    }
}

impl Stack {
    /// Every action the functions made, with the decision of their policies.
    pub fn iam_findings(&self) -> Vec<Finding> {
        let policies = self.policies.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let mut findings = vec![];
        for call in self.recorder.calls() {
            let policy = policies.get(&call.function).cloned().unwrap_or_default();
            for action in call.actions {
                let decision = policy.decide(&action);
                findings.push(Finding { function: call.function.clone(), action, decision });
            }
        }
        findings
    }

    /// Everything AWS would refuse: actions no statement grants, and requests whose actions
    /// could not be read.
    pub fn iam_violations(&self) -> Vec<String> {
        let mut violations = self.recorder.unreadable_requests();
        for finding in self.iam_findings() {
            let Finding { function, action, decision } = finding;
            let why = match decision {
                Decision::Allowed(_) => continue,
                Decision::Denied(sid) => format!("denied by {sid}"),
                Decision::NotGranted(unmet) if unmet.is_empty() => "granted by no statement".into(),
                Decision::NotGranted(unmet) => {
                    format!("the conditions of {} do not hold", unmet.join(", "))
                }
            };
            let mut keys = if action.leading_keys.is_empty() {
                String::new()
            } else {
                format!(" (leading keys {:?})", action.leading_keys)
            };
            for (key, values) in &action.context {
                keys += &format!(" ({key} {values:?})");
            }
            violations.push(format!(
                "{function}: {} on {}{keys}: {why} in template.yaml",
                action.action, action.resource
            ));
        }
        violations.sort();
        violations.dedup();
        violations
    }

    /// The findings in the template's terms, one row per distinct action, resource and
    /// statement.
    pub fn iam_rows(&self) -> Vec<Row> {
        let mut names: Vec<(String, String)> = vec![];
        for (logical_id, physical) in &self.provisioned.physical {
            names.push((physical.reference.clone(), logical_id.clone()));
            for value in physical.attributes.values() {
                names.push((value.clone(), logical_id.clone()));
            }
        }
        // Longest first, so that an ARN is replaced before the name inside it.
        names.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        let mut rows: Vec<Row> = self
            .iam_findings()
            .into_iter()
            .map(|finding| {
                let mut resource = symbolic(&finding.action.resource);
                for (value, logical_id) in &names {
                    if !value.is_empty() && resource.contains(value.as_str()) {
                        resource = resource.replace(value.as_str(), logical_id);
                    }
                }
                let mut keys: Vec<String> =
                    finding.action.leading_keys.iter().map(|k| key_prefix(k)).collect();
                keys.sort();
                keys.dedup();
                let granted_by = match finding.decision {
                    Decision::Allowed(sid) => sid,
                    _ => "NOT GRANTED".to_string(),
                };
                Row {
                    function: finding.function,
                    action: finding.action.action,
                    resource,
                    keys,
                    granted_by,
                }
            })
            .collect();
        rows.sort();
        rows.dedup();
        rows
    }

    /// Appends the rows of this stack to `dir/<stack name>.jsonl` for the report.
    pub fn save_iam_rows(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.jsonl", self.options.name));
        let mut file =
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        for row in self.iam_rows() {
            writeln!(file, "{}", serde_json::to_string(&row)?)?;
        }
        Ok(())
    }
}

/// A resource with its variable parts elided: an S3 object key kept to its first segment, the
/// Bedrock model's ARN to the model.
pub fn symbolic(resource: &str) -> String {
    if let Some(rest) = resource.strip_prefix("arn:aws:s3:::") {
        return match rest.split_once('/') {
            Some((bucket, key)) => {
                let first = key.split('/').next().unwrap_or_default();
                if key.contains('/') {
                    format!("{bucket}/{first}/*")
                } else {
                    format!("{bucket}/*")
                }
            }
            None => rest.to_string(),
        };
    }
    match resource.split_once(":foundation-model/") {
        Some((_, model)) => format!("foundation-model/{model}"),
        None => resource.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_keys_keep_their_constant_parts_only() {
        assert_eq!(key_prefix("USER#42"), "USER#…");
        assert_eq!(key_prefix("COUNTER#FILE"), "COUNTER#FILE");
        assert_eq!(key_prefix("OBJECT#abc#12"), "OBJECT#…");
        assert_eq!(key_prefix("METRICS"), "METRICS");
        assert_eq!(key_prefix("USERNAME#alice"), "USERNAME#…");
    }

    #[test]
    fn object_keys_and_models_read_in_the_template_terms() {
        assert_eq!(
            symbolic("arn:aws:s3:::UploadsBucket/uploads/2026/11/x.png"),
            "UploadsBucket/uploads/*"
        );
        assert_eq!(symbolic("arn:aws:s3:::UploadsBucket"), "UploadsBucket");
        assert_eq!(
            symbolic("arn:aws:bedrock:us-east-1::foundation-model/m:0"),
            "foundation-model/m:0"
        );
    }
}
