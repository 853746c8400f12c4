//! Property tests of the Markdown pipeline: arbitrary strings and bytes, random mixes of
//! Markdown and HTML syntax, and generated HTML elements, attributes and obfuscated URLs in
//! Markdown contexts. `render` never panics, is deterministic, and its HTML passes the
//! independent checker of `xss.rs` (no script element, no event-handler attribute, no
//! `javascript:`/`data:`/`vbscript:` URL, only allow-listed elements and attributes).

use blog_api::articles::content::{render, summarize, SUMMARY_MAX_CHARS};
use proptest::{prelude::*, sample::select};

use crate::xss;

/// Checks every property of the pipeline's output for one input.
fn check(markdown: &str) -> Result<(), TestCaseError> {
    let rendered = render(markdown);
    let problems = xss::violations(&rendered.html);
    prop_assert!(problems.is_empty(), "html: {:?}\nproblems: {problems:?}", rendered.html);
    let toc: Vec<serde_json::Value> = serde_json::from_str(&rendered.toc_json)
        .map_err(|e| TestCaseError::fail(format!("tocJson is not JSON: {e}")))?;
    prop_assert_eq!(toc.len(), rendered.toc.len());
    for entry in &rendered.toc {
        prop_assert!((1..=6).contains(&entry.level), "{entry:?}");
    }
    let summary = summarize(&rendered.plain_text, SUMMARY_MAX_CHARS);
    prop_assert!(summary.chars().count() <= SUMMARY_MAX_CHARS, "{summary:?}");
    prop_assert_eq!(&render(markdown), &rendered, "render is deterministic");
    Ok(())
}

/// Markdown and HTML syntax that matters to a sanitiser, alone or in combination.
const PIECES: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "\"",
    "'",
    "`",
    "=",
    " ",
    "\t",
    "\n",
    "\n\n",
    "    ",
    "\0",
    "&",
    ";",
    ":",
    "#",
    "(",
    ")",
    "[",
    "]",
    "](",
    "![",
    "*",
    "_",
    "~~",
    "|",
    "- ",
    "1. ",
    "> ",
    "# ",
    "```",
    "~~~",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?",
    "?>",
    "<!DOCTYPE",
    "\\",
    "{#",
    "}",
    "[^1]",
    "[^1]: ",
    "- [ ] ",
    "| --- |",
    "\u{200b}",
    "\u{feff}",
    "\u{202e}",
    "é",
    "中",
    "<script>",
    "</script>",
    "<img",
    "<svg",
    "<math>",
    "<iframe",
    "<style>",
    "<a ",
    "</a>",
    "<object",
    "<embed",
    "<form",
    "<base",
    "<meta",
    "<link",
    "<details",
    "<input",
    "<body",
    "<noscript>",
    "<xmp>",
    "<template>",
    "<textarea>",
    "<title>",
    "<plaintext>",
    "<table>",
    "src=",
    "href=",
    "xlink:href=",
    "onerror=",
    "onload=",
    "onclick=",
    "ONMOUSEOVER=",
    "style=",
    "formaction=",
    "srcdoc=",
    "action=",
    "javascript:",
    "JaVaScRiPt:",
    "vbscript:",
    "data:text/html,",
    "alert(1)",
    "&#106;",
    "&#x6A;",
    "&#x09;",
    "&colon;",
    "&#58;",
    "&Tab;",
    "https://ok.test",
    "www.ok.test",
    "mailto:a@b.c",
    "[r]: ",
];

fn mix() -> impl Strategy<Value = String> {
    let token = prop_oneof![3 => select(PIECES).prop_map(str::to_owned), 1 => "\\PC{0,6}"];
    prop::collection::vec(token, 1..48).prop_map(|tokens| tokens.concat())
}

/// A `javascript:` (or `vbscript:`, `data:`) URL, obfuscated the ways browsers forgive.
fn hostile_url() -> impl Strategy<Value = String> {
    let scheme = select(vec!["javascript", "JaVaScRiPt", "vbscript", "data", "DATA"]);
    let colon = select(vec![":", "&colon;", "&#58;", "&#x3a;", "&#0000058", "%3A"]);
    let noise = select(vec!["", "\t", "\n", "\r", "\0", "&#x09;", "&#10;", "&Tab;", "&NewLine;"]);
    let prefix = select(vec!["", " ", "\u{1}", "\u{c}", "&#32;", "\u{a0}"]);
    let payload = select(vec!["alert(1)", "//%0Aalert(1)", "text/html,<script>alert(1)</script>"]);
    (scheme, any::<prop::sample::Index>(), noise, any::<bool>(), colon, prefix, payload).prop_map(
        |(scheme, at, noise, entity, colon, prefix, payload)| {
            let mut chars: Vec<String> = scheme.chars().map(String::from).collect();
            let at = at.index(chars.len());
            if entity {
                chars[at] = format!("&#{};", u32::from(chars[at].chars().next().unwrap()));
            }
            chars.insert(at, noise.to_owned());
            format!("{prefix}{}{colon}{payload}", chars.concat())
        },
    )
}

/// One HTML element with attributes of every kind, quoted every way.
fn element() -> impl Strategy<Value = String> {
    let name = select(vec![
        "a", "img", "script", "SCRIPT", "svg", "iframe", "input", "p", "div", "span", "code",
        "table", "td", "object", "embed", "form", "button", "details", "video", "source", "math",
        "style", "base", "meta", "link", "body", "isindex", "xss",
    ]);
    let attribute = select(vec![
        "href",
        "src",
        "onerror",
        "onload",
        "OnClick",
        "onfocus",
        "ontoggle",
        "style",
        "class",
        "id",
        "title",
        "alt",
        "xlink:href",
        "formaction",
        "srcdoc",
        "data",
        "action",
        "background",
        "dynsrc",
        "type",
        "checked",
        "autofocus",
        "srcset",
    ]);
    let value = prop_oneof![hostile_url(), "\\PC{0,12}", Just("alert(1)".to_owned())];
    let quote = select(vec!["\"", "'", "", "`"]);
    let attributes = prop::collection::vec((attribute, value, quote), 0..4).prop_map(|list| {
        list.iter().map(|(a, v, q)| format!(" {a}={q}{v}{q}")).collect::<String>()
    });
    (name, attributes, "\\PC{0,12}", any::<bool>()).prop_map(|(name, attributes, inner, close)| {
        let end = if close { format!("</{name}>") } else { String::new() };
        format!("<{name}{attributes}>{inner}{end}")
    })
}

/// `snippet` where Markdown turns things into links, images and raw HTML.
fn in_context(snippet: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    let context = select(vec![
        "{}",
        "text {} text",
        "# {}",
        "- item {}",
        "> {}",
        "| a |\n|---|\n| {} |",
        "*{}*",
        "[{}](https://ok.test)",
        "para\n\n{}\n\nafter",
        "[x]({})",
        "[x](<{}>)",
        "![x]({})",
        "[x][r]\n\n[r]: {}",
        "<{}>",
        "see {} here",
        "<a href=\"{}\">x</a>",
        "<img src={}>",
        "`{}`",
        "```\n{}\n```",
        "1. {}\n2. {}",
        "## {} {#anchor}",
    ]);
    (context, snippet).prop_map(|(context, snippet)| context.replace("{}", &snippet))
}

/// Cases per property: about a second for all of them in a debug build.
const CASES: u32 = 400;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_strings_render_safely(markdown in any::<String>()) {
        check(&markdown)?;
    }

    #[test]
    fn arbitrary_bytes_render_safely(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn mixes_of_markdown_and_html_syntax_render_safely(markdown in mix()) {
        check(&markdown)?;
    }

    #[test]
    fn generated_elements_in_markdown_contexts_render_safely(
        markdown in prop::collection::vec(in_context(element()), 1..4).prop_map(|p| p.join("\n"))
    ) {
        check(&markdown)?;
    }

    #[test]
    fn obfuscated_hostile_urls_never_become_links_or_images(
        markdown in in_context(hostile_url())
    ) {
        check(&markdown)?;
    }
}
