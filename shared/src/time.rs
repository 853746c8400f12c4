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
}
