//! How a download is served to a browser: as the file's declared type, shown in the page when
//! that type runs nothing (images other than SVG, audio, video, PDF, plain text), otherwise
//! saved as an attachment (HTML, SVG, XML, scripts and anything unknown could run script in the
//! origin that serves it). Either way under the file's own name.

use blog_core::ports::blobs::Served;

use super::model::FileRecord;

/// Types a browser shows without running anything of the file's.
fn shown_inline(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    let (kind, subtype) = essence.split_once('/').unwrap_or((essence, ""));
    match kind {
        "audio" | "video" => true,
        "image" => ["png", "jpeg", "gif", "webp", "avif", "bmp"].contains(&subtype),
        "text" => subtype == "plain",
        "application" => subtype == "pdf",
        _ => false,
    }
}

/// The `Content-Disposition` of `name` shown inline or saved: an ASCII `filename` for old
/// clients and the exact name as RFC 8187 `filename*`.
fn disposition(inline: bool, name: &str) -> String {
    let kind = if inline { "inline" } else { "attachment" };
    let ascii: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || " ._-()".contains(c) { c } else { '_' })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("{kind}; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// How `record`'s bytes are served.
pub fn served(record: &FileRecord) -> Served {
    let content_type = record.file_type.clone();
    let inline = shown_inline(&content_type);
    Served { disposition: disposition(inline, &record.file_name), content_type }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_that_could_run_script_are_saved_and_media_shown() {
        for saved in [
            "text/html",
            "image/svg+xml",
            "application/xhtml+xml",
            "text/xml",
            "text/javascript",
            "application/octet-stream",
            "TEXT/HTML",
        ] {
            assert!(!shown_inline(&saved.to_lowercase()), "{saved}");
        }
        for shown in [
            "image/png",
            "image/jpeg",
            "video/mp4",
            "audio/mpeg",
            "application/pdf",
            "text/plain; charset=utf-8",
        ] {
            assert!(shown_inline(shown), "{shown}");
        }
    }

    #[test]
    fn the_name_survives_in_both_forms_and_cannot_break_the_header() {
        let shown = disposition(false, "évil\"; x=\r\n.html");
        assert_eq!(
            shown,
            "attachment; filename=\"_vil__ x___.html\"; filename*=UTF-8''%C3%A9vil%22%3B%20x%3D%0D%0A.html"
        );
        assert!(axum::http::HeaderValue::from_str(&shown).is_ok());
    }
}
