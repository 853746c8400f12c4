//! The placeholders of the sample events (`{{NAME}}`, events/README.md's table), where
//! `blog-stack invoke` takes their values from, and the rendering of a sample with them.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    sync::LazyLock,
};

use regex::Regex;

/// Where a placeholder's value comes from when no variable of its name gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A login through the API as the stack's administrator (BLOG_ADMIN_USERNAME and
    /// BLOG_ADMIN_PASSWORD).
    Administrator,
    /// `event_user` of `auth/register.json`, registered (unless it exists) and logged in with
    /// `auth/login.json` through the API.
    SampleUser,
    /// The running stack's actuator token.
    Actuator,
    /// Only a variable of its name; what answers the value.
    Given(&'static str),
}

/// Every placeholder of the samples and the source of its value.
pub const PLACEHOLDERS: [(&str, Source); 11] = [
    ("ADMIN_TOKEN", Source::Administrator),
    ("USER_TOKEN", Source::SampleUser),
    ("USER_ID", Source::SampleUser),
    ("ACTUATOR_TOKEN", Source::Actuator),
    ("CATEGORY_ID", Source::Given("`data.id` of the `categories/create.json` response")),
    ("TAG_ID", Source::Given("`data.id` of the `tags/create.json` response")),
    ("ARTICLE_ID", Source::Given("`data` of the `admin-articles/create.json` response")),
    ("FILE_ID", Source::Given("`data.fileId` of the `files/presigned.json` response")),
    ("COMMENT_ID", Source::Given("`data.id` of the `comments/create.json` response")),
    ("REPORT_ID", Source::Given("`data.id` of the `comments/report.json` response")),
    ("PREVIEW_TOKEN", Source::Given("`data.token` of the `admin-articles/preview.json` response")),
];

/// The source of the placeholder `name`; `None` for a name the table does not hold.
pub fn source(name: &str) -> Option<Source> {
    PLACEHOLDERS.iter().find(|(n, _)| *n == name).map(|(_, source)| *source)
}

static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{([A-Za-z0-9_]+)\}\}").expect("a valid pattern"));

/// The names of the placeholders in `text`, each once.
pub fn placeholders(text: &str) -> BTreeSet<String> {
    PLACEHOLDER.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// `text` with each placeholder replaced by its value in `values`.
pub fn render(text: &str, values: &BTreeMap<String, String>) -> Result<String, Unfilled> {
    let missing: Vec<String> =
        placeholders(text).into_iter().filter(|name| !values.contains_key(name)).collect();
    if !missing.is_empty() {
        return Err(Unfilled(missing));
    }
    Ok(PLACEHOLDER.replace_all(text, |c: &regex::Captures| values[&c[1]].clone()).into_owned())
}

/// The API Gateway event `text` rendered with `values`, its `content-length` header (when it
/// has one) that of the rendered body, as API Gateway would send it.
pub fn render_event(text: &str, values: &BTreeMap<String, String>) -> Result<String, Unfilled> {
    let rendered = render(text, values)?;
    let Ok(mut event) = serde_json::from_str::<serde_json::Value>(&rendered) else {
        return Ok(rendered);
    };
    let length = match (&event["body"], &event["isBase64Encoded"]) {
        (serde_json::Value::String(body), serde_json::Value::Bool(false)) => body.len(),
        _ => return Ok(rendered),
    };
    match event["headers"].get_mut("content-length") {
        Some(header) => *header = length.to_string().into(),
        None => return Ok(rendered),
    }
    Ok(serde_json::to_string_pretty(&event).unwrap_or(rendered))
}

/// Placeholders left without a value: one line each, with where its value comes from.
#[derive(Debug, PartialEq, Eq)]
pub struct Unfilled(pub Vec<String>);

impl fmt::Display for Unfilled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for name in &self.0 {
            let from = match source(name) {
                Some(Source::Given(answer)) => {
                    let value = if name.ends_with("_TOKEN") { "token" } else { "id" };
                    format!("give {name}=<{value}>: {answer}")
                }
                Some(Source::Administrator) => format!(
                    "a login as the stack's administrator (BLOG_ADMIN_USERNAME, \
                     BLOG_ADMIN_PASSWORD), or {name}=<token>"
                ),
                Some(Source::SampleUser) => {
                    format!("a login as event_user (auth/login.json), or {name}=<value>")
                }
                Some(Source::Actuator) => format!(
                    "the running stack's actuator token (the file its serving file names; \
                     `make stack` writes it), or {name}=<token>"
                ),
                None => format!("not in events/README.md's placeholder table: give {name}=<value>"),
            };
            writeln!(f, "  {{{{{name}}}}}: {from}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Unfilled {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_rendered_with_every_placeholder_replaced_wherever_it_is() {
        let text =
            r#"{"path":"/a/{{ARTICLE_ID}}","id":"{{ARTICLE_ID}}","t":"Bearer {{USER_TOKEN}}"}"#;
        assert_eq!(placeholders(text), BTreeSet::from(["ARTICLE_ID".into(), "USER_TOKEN".into()]));
        let values =
            BTreeMap::from([("ARTICLE_ID".into(), "42".into()), ("USER_TOKEN".into(), "t".into())]);
        assert_eq!(render(text, &values).unwrap(), r#"{"path":"/a/42","id":"42","t":"Bearer t"}"#);
    }

    #[test]
    fn a_rendered_body_gets_its_own_content_length() {
        let text = r#"{"headers":{"content-length":"13"},"body":"{\"id\":\"{{COMMENT_ID}}\"}","isBase64Encoded":false}"#;
        let values = BTreeMap::from([("COMMENT_ID".into(), "123456".into())]);
        let event: serde_json::Value =
            serde_json::from_str(&render_event(text, &values).unwrap()).unwrap();
        assert_eq!(event["body"], r#"{"id":"123456"}"#);
        assert_eq!(event["headers"]["content-length"], "15");
    }

    #[test]
    fn an_unfilled_placeholder_is_named_with_where_its_value_comes_from() {
        let text = "{{COMMENT_ID}} {{ACTUATOR_TOKEN}} {{SOMETHING}} {{TAG_ID}} {{PREVIEW_TOKEN}}";
        let values = BTreeMap::from([("TAG_ID".into(), "7".into())]);
        let unfilled = render(text, &values).unwrap_err();
        assert_eq!(unfilled.0, ["ACTUATOR_TOKEN", "COMMENT_ID", "PREVIEW_TOKEN", "SOMETHING"]);
        let message = unfilled.to_string();
        assert!(
            message.contains(
                "{{COMMENT_ID}}: give COMMENT_ID=<id>: `data.id` of the `comments/create.json`"
            ),
            "{message}"
        );
        assert!(message.contains("{{ACTUATOR_TOKEN}}: the running stack's actuator token"));
        assert!(message.contains("{{PREVIEW_TOKEN}}: give PREVIEW_TOKEN=<token>: `data.token`"));
        assert!(message.contains("{{SOMETHING}}: not in events/README.md's placeholder table"));
    }
}
