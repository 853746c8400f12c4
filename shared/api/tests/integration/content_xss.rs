//! The content pipeline against XSS: OWASP filter-evasion payloads embedded in Markdown in many
//! ways, plus deterministic pseudo-random mixes of dangerous fragments. Zero survivors allowed.
//!
//! The output is checked structurally by the independent checker in `xss.rs`: every
//! element and attribute on an allow-list, no URL scheme but `http`, `https` or `mailto`, and
//! any deviation from the serialiser's expected output shape fails the test too.

use blog_api::articles::content::{render, summarize};

use crate::xss::violations;

/// Raw HTML payloads (OWASP XSS filter evasion cheat sheet and friends).
const HTML_PAYLOADS: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>",
    "<IMG SRC=\"javascript:alert('XSS');\">",
    "<IMG SRC=javascript:alert('XSS')>",
    "<IMG SRC=JaVaScRiPt:alert('XSS')>",
    "<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
    "<a onmouseover=\"alert(document.cookie)\">xxs link</a>",
    "<IMG \"\"\"><SCRIPT>alert(\"XSS\")</SCRIPT>\"\\>",
    "<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>",
    "<IMG SRC=# onmouseover=\"alert('xxs')\">",
    "<IMG SRC= onmouseover=\"alert('xxs')\">",
    "<IMG onmouseover=\"alert('xxs')\">",
    "<IMG SRC=/ onerror=\"alert(String.fromCharCode(88,83,83))\"></img>",
    "<img src=x onerror=\"&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041\">",
    "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
    "<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>",
    "<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>",
    "<IMG SRC=\"jav\tascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x0A;ascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x0D;ascript:alert('XSS');\">",
    "<IMG SRC=\" &#14;  javascript:alert('XSS');\">",
    "<SCRIPT/XSS SRC=\"http://xss.rocks/xss.js\"></SCRIPT>",
    "<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert(\"XSS\")>",
    "<<SCRIPT>alert(\"XSS\");//\\<</SCRIPT>",
    "<SCRIPT SRC=http://xss.rocks/xss.js?< B >",
    "<SCRIPT SRC=//xss.rocks/.j>",
    "<IMG SRC=\"`('XSS')\"`",
    "<iframe src=http://xss.rocks/scriptlet.html <",
    "</TITLE><SCRIPT>alert(\"XSS\");</SCRIPT>",
    "<INPUT TYPE=\"IMAGE\" SRC=\"javascript:alert('XSS');\">",
    "<BODY BACKGROUND=\"javascript:alert('XSS')\">",
    "<IMG DYNSRC=\"javascript:alert('XSS')\">",
    "<IMG LOWSRC=\"javascript:alert('XSS')\">",
    "<STYLE>li {list-style-image: url(\"javascript:alert('XSS')\");}</STYLE><UL><LI>XSS</br>",
    "<svg/onload=alert('XSS')>",
    "<svg><script>alert(1)</script></svg>",
    "<BODY ONLOAD=alert('XSS')>",
    "<BGSOUND SRC=\"javascript:alert('XSS');\">",
    "<LINK REL=\"stylesheet\" HREF=\"javascript:alert('XSS');\">",
    "<STYLE>@import'http://xss.rocks/xss.css';</STYLE>",
    "<META HTTP-EQUIV=\"Link\" Content=\"<http://xss.rocks/xss.css>; REL=stylesheet\">",
    "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=javascript:alert('XSS');\">",
    "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K\">",
    "<IFRAME SRC=\"javascript:alert('XSS');\"></IFRAME>",
    "<IFRAME SRC=# onmouseover=\"alert(document.cookie)\"></IFRAME>",
    "<FRAMESET><FRAME SRC=\"javascript:alert('XSS');\"></FRAMESET>",
    "<TABLE BACKGROUND=\"javascript:alert('XSS')\">",
    "<TABLE><TD BACKGROUND=\"javascript:alert('XSS')\">",
    "<DIV STYLE=\"background-image: url(javascript:alert('XSS'))\">",
    "<DIV STYLE=\"width: expression(alert('XSS'));\">",
    "<IMG STYLE=\"xss:expr/*XSS*/ession(alert('XSS'))\">",
    "<BASE HREF=\"javascript:alert('XSS');//\">",
    "<OBJECT TYPE=\"text/x-scriptlet\" DATA=\"http://xss.rocks/scriptlet.html\"></OBJECT>",
    "<EMBED SRC=\"data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoMSkiLz4=\" type=\"image/svg+xml\" AllowScriptAccess=\"always\"></EMBED>",
    "<a href=\"javascript&colon;alert(1)\">x</a>",
    "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
    "<a href=\" javascript:alert(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "<a href=\"https://ok.test\" onclick=\"alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
    "<a href=\"java\0script:alert(1)\">x</a>",
    "<a href=\"&#0000106avascript:alert(1)\">x</a>",
    "<a href=\"javascript://%0Aalert(1)\">x</a>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    "<math href=\"javascript:alert(1)\">CLICK</math>",
    "<math><maction actiontype=\"statusline#http://google.com\" xlink:href=\"javascript:alert(2)\">CLICKME</maction></math>",
    "<form action=\"javascript:alert(1)\"><button>go</button></form>",
    "<form><button formaction=javascript:alert(1)>x</button></form>",
    "<details open ontoggle=alert(1)>",
    "<input onfocus=alert(1) autofocus>",
    "<select onfocus=alert(1) autofocus>",
    "<textarea onfocus=alert(1) autofocus>",
    "<video><source onerror=\"alert(1)\">",
    "<audio src=x onerror=alert(1)>",
    "<marquee onstart=alert(1)>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
    "<svg><a xlink:href=\"javascript:alert(1)\"><text x=\"20\" y=\"20\">XSS</text></a></svg>",
    "<svg><set attributeName=\"href\" to=\"javascript:alert(1)\"/></svg>",
    "<svg><iframe><a title=\"</iframe><img src onerror=alert(1)>\">test",
    "<!--<img src=\"--><img src=x onerror=alert(1)//\">",
    "<object data=\"javascript:alert(1)\">",
    "<embed src=\"javascript:alert(1)\">",
    "<isindex type=image src=1 onerror=alert(1)>",
    "<img src=\"data:image/svg+xml,<svg onload=alert(1)>\">",
    "<div style=\"x:expression(alert(1))\">",
    "<xmp><script>alert(1)</script></xmp>",
    "<template><script>alert(1)</script></template>",
    "<base href=\"http://evil.test/\">",
    "<link rel=import href=http://evil.test>",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    "<img srcset=\"x 1x\" onerror=alert(1)>",
    "<p style=\"color:red\" class=\"x\" id=\"y\">styled</p>",
    "<code class=\"language-x onmouseover=alert(1)\">c</code>",
    "<input type=\"text\" onfocus=\"alert(1)\" autofocus value=\"x\">",
];

/// URL payloads, placed where Markdown builds links and images.
const URL_PAYLOADS: &[&str] = &[
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;avascript:alert(1)",
    "jav&#x09;ascript:alert(1)",
    "jav&#x0A;ascript:alert(1)",
    "javascript&#58;alert(1)",
    "javascript&colon;alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "data:image/svg+xml,%3Csvg%20onload=alert(1)%3E",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "javascript://%0Aalert(1)",
    "\\javascript:alert(1)",
    "java%0ascript:alert(1)",
    "javascript:alert(1)\" onmouseover=\"alert(1)",
];

/// Markdown contexts for a raw HTML payload.
fn html_contexts(payload: &str) -> Vec<String> {
    vec![
        payload.to_owned(),
        format!("text {payload} text"),
        format!("# {payload}"),
        format!("- item {payload}"),
        format!("> {payload}"),
        format!("| a |\n|---|\n| {payload} |"),
        format!("*{payload}*"),
        format!("[{payload}](https://ok.test)"),
        format!("para\n\n{payload}\n\nafter"),
    ]
}

/// Markdown contexts for a URL payload.
fn url_contexts(payload: &str) -> Vec<String> {
    vec![
        format!("[x]({payload})"),
        format!("[x](<{payload}>)"),
        format!("[x]({payload} \"title\")"),
        format!("![x]({payload})"),
        format!("[x][r]\n\n[r]: {payload}"),
        format!("![x][r]\n\n[r]: <{payload}>"),
        format!("<{payload}>"),
        format!("see {payload} here"),
        format!("<a href=\"{payload}\">x</a>"),
        format!("<img src=\"{payload}\">"),
    ]
}

fn assert_clean(markdown: &str) {
    let rendered = render(markdown);
    let problems = violations(&rendered.html);
    assert!(
        problems.is_empty(),
        "XSS survivor\nmarkdown: {markdown:?}\nhtml: {:?}\nproblems: {problems:?}",
        rendered.html
    );
    // TOC titles and the plain text are text, not HTML (a heading about `<script>` keeps that
    // text); consumers escape them. They must still be well-formed JSON / plain strings.
    let toc: Vec<serde_json::Value> = serde_json::from_str(&rendered.toc_json).unwrap();
    assert_eq!(toc.len(), rendered.toc.len());
    let _ = summarize(&rendered.plain_text, 200);
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(HTML_PAYLOADS.len() + URL_PAYLOADS.len() >= 60);
}

#[test]
fn raw_html_payloads_never_survive() {
    for payload in HTML_PAYLOADS {
        for markdown in html_contexts(payload) {
            assert_clean(&markdown);
        }
    }
}

#[test]
fn url_payloads_never_become_links_or_images() {
    for payload in URL_PAYLOADS {
        for markdown in url_contexts(payload) {
            assert_clean(&markdown);
        }
    }
}

#[test]
fn the_checker_catches_what_it_must() {
    let unsafe_outputs = [
        "<script>alert(1)</script>",
        "<img src=\"x\" onerror=\"alert(1)\">",
        "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
        "<a href=\"JAVASCRIPT:alert(1)\">x</a>",
        "<img src=\"data:text/html,x\">",
        "<p style=\"color:red\">x</p>",
        "<iframe></iframe>",
        "<code class=\"evil\">x</code>",
        "<p>unescaped > text</p>",
    ];
    for html in unsafe_outputs {
        assert!(!violations(html).is_empty(), "checker missed {html}");
    }
    assert!(violations(
        "<p><a href=\"https://x.test/?q=a:b\" rel=\"noopener\">x</a> &lt;script&gt;</p>"
    )
    .is_empty());
}

#[test]
fn safe_links_images_and_code_classes_survive() {
    let html = render(
        "[a](https://ok.test/a) [m](mailto:me@ok.test) [r](/relative#x) ![i](https://ok.test/i.png)\n\n```rust\nx\n```\n",
    )
    .html;
    assert!(violations(&html).is_empty(), "{html}");
    assert!(html.contains("href=\"https://ok.test/a\""), "{html}");
    assert!(html.contains("href=\"mailto:me@ok.test\""), "{html}");
    assert!(html.contains("href=\"/relative#x\""), "{html}");
    assert!(html.contains("src=\"https://ok.test/i.png\""), "{html}");
    assert!(html.contains("class=\"language-rust\""), "{html}");
}

/// Pieces that are dangerous alone or in combination.
const FRAGMENTS: &[&str] = &[
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
    "> ",
    "# ",
    "```",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "&#106;",
    "&#x09;",
    "&#x6A;",
    "&colon;",
    "&#58;",
    "javascript:",
    "JaVaScRiPt:",
    "vbscript:",
    "data:text/html;base64,PHNjcmlwdD4=",
    "alert(1)",
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
    "src=",
    "href=",
    "xlink:href=",
    "onerror=",
    "onload=",
    "onclick=",
    "ontoggle=",
    "style=",
    "formaction=",
    "srcdoc=",
    "action=",
    "x",
    "https://ok.test",
    "www.ok.test",
    "{#id}",
    "[r]: ",
    "é",
    "中",
    "\u{200b}",
];

/// xorshift64: a deterministic pseudo-random sequence without a crate.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_mixes_of_dangerous_fragments_never_survive_or_panic() {
    let mut rng = XorShift(0x5EED_1234_ABCD_9876);
    for _ in 0..2_000 {
        let pieces = 1 + rng.below(24);
        let markdown: String = (0..pieces).map(|_| FRAGMENTS[rng.below(FRAGMENTS.len())]).collect();
        assert_clean(&markdown);
    }
}

/// Shapes that were quadratic (nested containers, nested raw HTML, many equal headings, long
/// runs of URL-like text) must render in roughly linear time: 50,000 repetitions take a second or
/// so each in a debug build (quadratic, they took minutes); the generous bound tolerates a busy
/// machine.
#[test]
fn pathological_shapes_render_in_bounded_time() {
    let n = 50_000;
    let shapes: Vec<(&str, String)> = vec![
        ("nested quotes", ">".repeat(n) + " deep"),
        ("nested lists", "- ".repeat(n) + "item"),
        ("nested divs", "<div>".repeat(n)),
        ("div blocks", "<div>\n\n".repeat(n)),
        ("quoted divs", "> <div>\n".repeat(n)),
        ("nested tables", "<table><tr><td>".repeat(n / 3)),
        ("inline elements", "x <em>".repeat(n)),
        ("unclosed tag starts", "<div".repeat(n)),
        ("equal headings", "# h\n".repeat(n)),
        ("url-like run", "(www.".repeat(n)),
    ];
    for (name, input) in shapes {
        let started = std::time::Instant::now();
        let rendered = render(&input);
        let elapsed = started.elapsed();
        assert!(violations(&rendered.html).is_empty(), "{name}");
        assert!(elapsed < std::time::Duration::from_secs(60), "{name} took {elapsed:?}");
    }
}
