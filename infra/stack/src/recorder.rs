//! What the functions asked of AWS: every call with the IAM actions it needed (for the IAM
//! check), a meter of table calls that counts them the way the port's `Metered` wrapper does
//! (operations, items written by transactions, round trips, items read), and outages injected
//! per function and service.

use std::{collections::BTreeSet, sync::Mutex, time::Duration};

use anyhow::Result;
use axum::http::request::Parts;
use blog_api::ports::table::metered::CallCounts;

use crate::{
    actions::{self, Action, KeySchemas},
    lock,
};

/// Partitions of the functions' own telemetry (metrics totals and logger levels): their calls
/// happen when an interval is due, not because of a request, so the meter leaves them out.
const TELEMETRY: [&str; 2] = ["METRICS", "CONFIG"];

/// One call a function made.
#[derive(Clone, Debug)]
pub struct Call {
    /// The function's logical id.
    pub function: String,
    /// The SigV4 service.
    pub service: String,
    /// What it needed.
    pub actions: Vec<Action>,
    /// The HTTP status it got.
    pub status: u16,
    /// How long the emulator took.
    pub elapsed: Duration,
}

impl Call {
    /// A call of `function` to `service`.
    pub fn new(function: &str, service: &str, actions: Vec<Action>, status: u16) -> Self {
        Self {
            function: function.to_string(),
            service: service.to_string(),
            actions,
            status,
            elapsed: Duration::ZERO,
        }
    }
}

/// A metered call in flight.
pub struct Metered {
    place: u64,
}

#[derive(Default)]
struct Meter {
    counts: CallCounts,
    finished: u64,
}

/// The record of a stack.
pub struct Recorder {
    schemas: KeySchemas,
    scheduled: BTreeSet<String>,
    calls: Mutex<Vec<Call>>,
    unreadable: Mutex<Vec<String>>,
    meter: Mutex<Meter>,
    outages: Mutex<BTreeSet<(String, String)>>,
}

impl Recorder {
    /// A record of calls to tables of `schemas`. The calls of the `scheduled` functions (logical
    /// ids) are recorded but not metered: like telemetry, they run when a period is due, not
    /// because of a request or an event a test hands over.
    pub fn new(schemas: KeySchemas, scheduled: BTreeSet<String>) -> Self {
        Self {
            schemas,
            scheduled,
            calls: Mutex::default(),
            unreadable: Mutex::default(),
            meter: Mutex::default(),
            outages: Mutex::default(),
        }
    }

    /// The actions a request needs.
    pub fn actions_of(&self, service: &str, parts: &Parts, body: &[u8]) -> Result<Vec<Action>> {
        actions::of_request(service, parts, body, &self.schemas)
    }

    /// Keeps a call.
    pub fn record(&self, call: Call) {
        lock(&self.calls).push(call);
    }

    /// Notes a request whose actions could not be read (a failure of the IAM check).
    pub fn unreadable(&self, function: &str, service: &str, why: &str) {
        lock(&self.unreadable).push(format!("{function}: a {service} request: {why}"));
    }

    /// Every call so far.
    pub fn calls(&self) -> Vec<Call> {
        lock(&self.calls).clone()
    }

    /// Requests whose actions could not be read.
    pub fn unreadable_requests(&self) -> Vec<String> {
        lock(&self.unreadable).clone()
    }

    /// Makes `service` unreachable for `function` (a logical id, or `*` for every function),
    /// or reachable again.
    pub fn set_outage(&self, function: &str, service: &str, down: bool) {
        let key = (function.to_string(), service.to_string());
        let mut outages = lock(&self.outages);
        if down {
            outages.insert(key);
        } else {
            outages.remove(&key);
        }
    }

    /// Whether `service` is unreachable for `function`.
    pub fn is_unreachable(&self, function: &str, service: &str) -> bool {
        let outages = lock(&self.outages);
        outages.contains(&(function.to_string(), service.to_string()))
            || outages.contains(&("*".to_string(), service.to_string()))
    }

    /// Counts a table call of `function` that is neither telemetry nor a scheduled function's;
    /// `None` for anything else.
    pub fn begin(
        &self,
        function: &str,
        service: &str,
        actions: &[Action],
        parts: &Parts,
    ) -> Option<Metered> {
        if service != "dynamodb" || self.scheduled.contains(function) {
            return None;
        }
        let telemetry = actions
            .iter()
            .all(|action| action.leading_keys.iter().all(|key| TELEMETRY.contains(&key.as_str())));
        if telemetry {
            return None;
        }
        let operation = parts.headers.get("x-amz-target")?.to_str().ok()?.rsplit('.').next()?;
        let mut meter = lock(&self.meter);
        let counts = &mut meter.counts;
        match operation {
            "GetItem" => counts.get += 1,
            "BatchGetItem" => counts.get_many += 1,
            "PutItem" => counts.put += 1,
            "UpdateItem" => counts.update += 1,
            "DeleteItem" => counts.delete += 1,
            "Query" => counts.query += 1,
            "Scan" => counts.scan += 1,
            "TransactWriteItems" => {
                counts.transact += 1;
                counts.transact_items += actions.len() as u64;
            }
            _ => return None,
        }
        let place = meter.finished + 1;
        meter.counts.round_trips = meter.counts.round_trips.max(place);
        Some(Metered { place })
    }

    /// Ends a metered call, which read `items`.
    pub fn end(&self, call: Option<Metered>, items: u64) {
        if let Some(call) = call {
            let mut meter = lock(&self.meter);
            meter.finished = meter.finished.max(call.place);
            meter.counts.items_read += items;
        }
    }

    /// The table calls metered since the last reset.
    pub fn counts(&self) -> CallCounts {
        lock(&self.meter).counts
    }

    /// Starts metering from zero.
    pub fn reset_meter(&self) {
        *lock(&self.meter) = Meter::default();
    }
}

/// The items a DynamoDB answer returns: a Query's `Items`, a GetItem's `Item`, a
/// BatchGetItem's `Responses` (0 for anything else).
pub fn items_read(answer: &[u8]) -> u64 {
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(answer) else { return 0 };
    if let Some(items) = answer["Items"].as_array() {
        return items.len() as u64;
    }
    if answer["Item"].is_object() {
        return 1;
    }
    let responses = answer["Responses"].as_object().into_iter().flat_map(|tables| tables.values());
    responses.filter_map(serde_json::Value::as_array).map(|items| items.len() as u64).sum()
}

#[cfg(test)]
mod tests {
    use super::items_read;

    #[test]
    fn the_items_of_each_read_answer_are_counted() {
        let item = r#"{"pk":{"S":"A"}}"#;
        assert_eq!(items_read(format!(r#"{{"Count":2,"Items":[{item},{item}]}}"#).as_bytes()), 2);
        assert_eq!(items_read(format!(r#"{{"Item":{item}}}"#).as_bytes()), 1);
        assert_eq!(items_read(b"{}"), 0);
        let batch =
            format!(r#"{{"Responses":{{"blog":[{item},{item},{item}]}},"UnprocessedKeys":{{}}}}"#);
        assert_eq!(items_read(batch.as_bytes()), 3);
        assert_eq!(items_read(br#"{"Attributes":{"n":{"N":"1"}}}"#), 0);
    }
}
