//! Comments through the XSS filter: the article pipeline's allow-list, less.

use serde_json::json;

use super::cases::{article, post, posted};
use crate::{articles::cases::assert_ok, support::Api};

const CORPUS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](\u{a0}javascript:alert(1))",
    "<a href=\"vbscript:msgbox(1)\">v</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD4=\">d</a>",
    "<iframe src=\"https://evil.test\"></iframe>",
    "<svg onload=alert(1)>",
    "<p style=\"background:url(javascript:alert(1))\" onclick=\"alert(1)\">p</p>",
    "<details open ontoggle=alert(1)>",
    "![x](https://img.test/a.png)",
    "<form action=\"https://evil.test\"><input type=submit></form>",
    "<object data=\"x.swf\"></object>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
];

pub async fn no_script_survives_in_a_comment(api: Api) {
    let admin = api.admin_token().await;
    let id = article(&api, &admin).await;
    let mut tokens = Vec::new();
    for n in 0..CORPUS.len().div_ceil(5) {
        tokens.push(api.user(&format!("xss{n}")).await.1);
    }
    for (n, payload) in CORPUS.iter().enumerate() {
        let reply = post(&api, &tokens[n / 5], &id, None, payload).await;
        let data = assert_ok(&reply);
        assert_eq!(data["content"], json!(payload), "the Markdown is kept as written");
        let html = data["contentHtml"].as_str().unwrap().to_ascii_lowercase();
        for banned in [
            "<script",
            "=\"javascript:",
            "=\"vbscript:",
            "=\"data:",
            "onerror",
            "onload",
            "onclick",
            "ontoggle",
            "<iframe",
            "<svg",
            "<img",
            "style=",
            "<form",
            "<object",
            "<math",
        ] {
            assert!(!html.contains(banned), "{payload} -> {html}");
        }
    }
    let token = &api.user("linker").await.1;
    let links = posted(&api, token, &id, None, "# Title\n\n[site](https://example.com) and www.rust-lang.org\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n\n- item\n\n`code`").await;
    let reply = api.call("GET", &format!("/api/v1/comments/{links}"), None, None).await;
    let html = assert_ok(&reply)["contentHtml"].as_str().unwrap().to_string();
    assert!(
        html.contains(
            "<a href=\"https://example.com\" rel=\"nofollow ugc noopener noreferrer\">site</a>"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<a href=\"http://www.rust-lang.org\" rel=\"nofollow ugc noopener noreferrer\">"
        ),
        "{html}"
    );
    assert!(
        html.contains("<h1>Title</h1>") && !html.contains("id="),
        "headings without ids: {html}"
    );
    assert!(!html.contains("<table") && !html.contains("<td"), "no tables: {html}");
    assert!(
        html.contains("<blockquote>")
            && html.contains("<li>item</li>")
            && html.contains("<code>code</code>"),
        "{html}"
    );
}
