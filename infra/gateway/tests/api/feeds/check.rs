//! The independent parsers (infra/checks/feeds.py on the pinned Python of .tools/venv) and the
//! articles' JSON answers the documents are checked against.

use std::{
    io::Write,
    process::{Command, Stdio},
};

use serde_json::Value;

use crate::{articles::cases::assert_ok, support::Api};

/// What infra/checks/feeds.py reads of `document` (`kind`: `feed` or `sitemap`).
pub fn parse(kind: &str, document: &[u8]) -> Value {
    let root = crate::support::stack::workspace();
    let python = root.join(".tools/venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: `make tools` installs it with the pinned feedparser",
        python.display()
    );
    let mut child = Command::new(&python)
        .arg(root.join("infra/checks/feeds.py"))
        .arg(kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the parser starts");
    child.stdin.take().expect("stdin").write_all(document).expect("the document is sent");
    let output = child.wait_with_output().expect("the parser ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "feeds.py {kind} failed: {stderr}");
    serde_json::from_slice(&output.stdout).expect("feeds.py prints JSON")
}

/// The public detail of article `id` (its JSON answer).
pub async fn detail(api: &Api, id: &str) -> Value {
    assert_ok(&api.call("GET", &format!("/api/v1/articles/{id}"), None, None).await).clone()
}

/// A JSON string field as `&str`.
pub fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_else(|| panic!("{field} is not a string in {value}"))
}

/// The page of article `id` on the default public site.
pub fn article_page(id: &str) -> String {
    format!("https://blog.example.com/articles/{id}")
}
