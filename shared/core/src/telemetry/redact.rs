//! Every log line passes through here on its way out, whatever its level, target or crate:
//! signatures, credentials, tokens and passwords are replaced by `[redacted]`, and control
//! characters that could forge a line are escaped. The AWS SDK at TRACE, the HTTP trace at
//! DEBUG and an error message quoting a URL all write through the same writer.

use std::{
    borrow::Cow,
    io::{self, Write},
    sync::LazyLock,
};

use regex_lite::Regex;
use tracing_subscriber::fmt::MakeWriter;

/// `key=value`, `key: value` and `"key":"value"` forms of secret-bearing keys, also inside
/// JSON quoted in JSON (`\"password\":\"...\"`, as the Lambda runtime logs a raw event):
/// presigned URLs' query parameters (S3's and the local store's), SigV4's header parts, and
/// anything named token, password or secret.
static KEYED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(x-amz-signature|x-amz-credential|x-amz-security-token|signature|credential|sig|access_token|token|password|secret)((?:\x1b\[[0-9;]*m)*(?:\\*["'])?\s*[=:]\s*(?:\\*["'])?(?:\x1b\[[0-9;]*m)*)[^&\s"',;<>\\\x1b]+"#,
    )
    .expect("a valid pattern")
});

/// Bearer credentials, and JSON Web Tokens wherever they appear.
static BEARER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]+=*").expect("a valid pattern"));
static JWT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*").expect("a valid pattern")
});

/// A capability in a path: the token of a preview link (`/api/v1/articles/preview/<token>`),
/// which the HTTP trace at DEBUG would log with the request's URI.
static IN_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(/preview/)[A-Za-z0-9_%\-]+").expect("a valid pattern"));

/// `line` with its secrets replaced and its control characters (but a final newline, tabs and
/// the terminal's colour escapes) escaped.
pub fn redact(line: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(line);
    if let Cow::Owned(replaced) = JWT.replace_all(&text, "[redacted]") {
        text = Cow::Owned(replaced);
    }
    if let Cow::Owned(replaced) = BEARER.replace_all(&text, "Bearer [redacted]") {
        text = Cow::Owned(replaced);
    }
    if let Cow::Owned(replaced) = KEYED.replace_all(&text, "$1$2[redacted]") {
        text = Cow::Owned(replaced);
    }
    if let Cow::Owned(replaced) = IN_PATH.replace_all(&text, "${1}[redacted]") {
        text = Cow::Owned(replaced);
    }
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let forged = |c: char| c.is_control() && c != '\t' && c != '\u{1b}';
    if !body.contains(forged) {
        return text;
    }
    let mut escaped: String = body
        .chars()
        .map(|c| if forged(c) { c.escape_default().to_string() } else { c.to_string() })
        .collect();
    if text.ends_with('\n') {
        escaped.push('\n');
    }
    Cow::Owned(escaped)
}

/// The writer of the log output: each event's text, redacted, to standard output.
#[derive(Clone, Copy, Debug, Default)]
pub struct RedactingStdout;

impl<'a> MakeWriter<'a> for RedactingStdout {
    type Writer = EventBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        EventBuffer(Vec::with_capacity(256))
    }
}

/// One event's text, written out redacted when the formatter is done with it.
pub struct EventBuffer(Vec<u8>);

impl Write for EventBuffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for EventBuffer {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.0);
        let _ = io::stdout().lock().write_all(redact(&text).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presigned_urls_keep_their_path_and_lose_their_signature() {
        let s3 = "uri=https://b.s3.amazonaws.com/incoming/1?X-Amz-Algorithm=AWS4-HMAC-SHA256\
            &X-Amz-Credential=ASIAXYZ%2F20261125%2Fus-east-1&X-Amz-Date=20261125T000000Z\
            &X-Amz-Security-Token=IQoJb3JpZ2luX2VjE&X-Amz-Signature=0a1b2c3d4e5f";
        let shown = redact(s3);
        for secret in ["ASIAXYZ", "IQoJb3JpZ2luX2VjE", "0a1b2c3d4e5f"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("/incoming/1?X-Amz-Algorithm=AWS4-HMAC-SHA256"), "{shown}");
        let local = redact("GET /_blobs/files/1?expires=1764000000&signature=deadbeef HTTP/1.1");
        assert_eq!(local, "GET /_blobs/files/1?expires=1764000000&signature=[redacted] HTTP/1.1");
    }

    #[test]
    fn tokens_credentials_and_passwords_are_redacted_in_every_form() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl";
        let lines = [
            format!("authorization: Bearer {jwt}"),
            r#"{"headers":{"authorization":"Bearer actuator-token-123"}}"#.to_string(),
            format!("token={jwt}"),
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261125, \
             SignedHeaders=host, Signature=fe5f80f77d5fa3beca038a248ff027"
                .to_string(),
            r#"{"username":"x","password":"Hunter2Hunter2"}"#.to_string(),
            r#"{"body":"{\"body\":\"{\\\"password\\\":\\\"Hunter2Hunter2\\\"}\"}"}"#.to_string(),
            "BLOG_WEBHOOK_SECRET=hook-secret-value".to_string(),
            "\u{1b}[3mtoken\u{1b}[0m\u{1b}[2m=\u{1b}[0mactuator-token-123 (coloured)".to_string(),
        ];
        for line in &lines {
            let shown = redact(line);
            for secret in [
                jwt,
                "actuator-token-123",
                "AKIDEXAMPLE",
                "fe5f80f77d5fa3",
                "Hunter2",
                "hook-secret-value",
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
            assert!(shown.contains("[redacted]"), "{shown}");
        }
    }

    #[test]
    fn a_preview_links_token_in_a_path_is_redacted() {
        let token = "q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6j7K8l9Z0x-_";
        let line = format!("DEBUG request{{method=GET uri=/api/v1/articles/preview/{token} }}");
        let shown = redact(&line);
        assert!(!shown.contains(token), "{shown}");
        assert!(shown.contains("uri=/api/v1/articles/preview/[redacted] "), "{shown}");
        let answer = format!(r#"{{"path":"/api/v1/articles/preview/{token}"}}"#);
        assert_eq!(redact(&answer), r#"{"path":"/api/v1/articles/preview/[redacted]"}"#);
    }

    #[test]
    fn ordinary_lines_pass_unchanged_and_forged_lines_are_escaped() {
        let ordinary =
            "2026-11-25T10:00:00Z  INFO blog_auth: signed in user_id=3 tokenType=Bearer\n";
        assert!(matches!(redact(ordinary), Cow::Borrowed(_)));
        let forged = redact("failed login name=x\r\n2026-11-25 INFO forged line\n");
        assert_eq!(forged, "failed login name=x\\r\\n2026-11-25 INFO forged line\n");
    }
}
