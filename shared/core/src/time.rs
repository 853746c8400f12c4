//! Timestamps as the API writes them: UTC, `YYYY-MM-DDTHH:MM:SS`.

use chrono::{DateTime, SecondsFormat, Utc};

/// The API's date-time format.
pub const FORMAT: &str = "%Y-%m-%dT%H:%M:%S";

/// Now, formatted for the API.
pub fn now_string() -> String {
    format(Utc::now())
}

/// Formats a UTC instant for the API.
pub fn format(at: DateTime<Utc>) -> String {
    at.format(FORMAT).to_string()
}

/// An API time (UTC `YYYY-MM-DDTHH:MM:SS`) as an HTTP-date (RFC 9110 §5.6.7, e.g. `Fri, 02 Jan
/// 2026 03:04:05 GMT`); `None` when it is not an API time.
pub fn http_date(api_time: &str) -> Option<String> {
    let at = chrono::NaiveDateTime::parse_from_str(api_time, FORMAT).ok()?;
    Some(at.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
}

/// RFC 3339 with milliseconds (logs and internal records).
pub fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn times_are_written_without_zone_or_fraction() {
        let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(format(at), "2026-01-02T03:04:05");
    }

    #[test]
    fn an_api_time_reads_as_an_http_date() {
        assert_eq!(
            http_date("2026-01-02T03:04:05").as_deref(),
            Some("Fri, 02 Jan 2026 03:04:05 GMT")
        );
        assert_eq!(
            http_date("1994-11-06T08:49:37").as_deref(),
            Some("Sun, 06 Nov 1994 08:49:37 GMT")
        );
        assert_eq!(http_date(""), None);
        assert_eq!(http_date("2026-01-02 03:04:05"), None);
    }
}
