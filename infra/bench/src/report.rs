//! The capacity section of docs/performance.md: one table per corpus size, and the cost
//! targets checked against the measurements.

use std::{fmt::Write as _, time::Duration};

use crate::{
    doc::{machine, thousands, today, verdict, wrap},
    measure::{Measurement, RELATED, RUNS},
};

/// Everything measured on one corpus size.
pub struct SizeReport {
    pub articles: usize,
    pub seeding: Duration,
    /// What the keyword rows and filters select, in words.
    pub corpus_note: String,
    pub measurements: Vec<Measurement>,
}

/// "2: 1 Query + 1 GetItem", in DynamoDB's operation names, with the items of transactions.
fn calls(m: &Measurement) -> String {
    let counts = &m.calls;
    let transact = match m.transact_items {
        0 => "TransactWriteItems".to_string(),
        items => format!("TransactWriteItems ({items} items)"),
    };
    let named = [
        (counts.query, "Query".to_string()),
        (counts.get, "GetItem".into()),
        (counts.get_many, "BatchGetItem".into()),
        (counts.put, "PutItem".into()),
        (counts.update, "UpdateItem".into()),
        (counts.delete, "DeleteItem".into()),
        (counts.transact, transact),
    ];
    let parts: Vec<String> =
        named.iter().filter(|(n, _)| *n > 0).map(|(n, name)| format!("{n} {name}")).collect();
    let mut text = format!("{}: {}", counts.total(), parts.join(" + "));
    if m.calls_vary {
        text.push_str(" (varied between runs)");
    }
    if m.requests != counts.total() {
        let _ = write!(text, " ({} requests with retries)", m.requests);
    }
    text
}

/// The Markdown table of one size.
pub fn table(measurements: &[Measurement]) -> String {
    let mut text = String::from(
        "| endpoint | DynamoDB calls (by operation) | round trips | read units | write units \
         | SQS SendMessage | Bedrock InvokeModel |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for m in measurements {
        let (read, write) = (m.read_units, m.write_units);
        let round_trips = match m.round_trips {
            (fewest, most) if fewest == most => fewest.to_string(),
            (fewest, most) => format!("{fewest}-{most}"),
        };
        let _ = writeln!(
            text,
            "| `{}` | {} | {round_trips} | {read:.1} | {write:.1} | {} | {} |",
            m.endpoint,
            calls(m),
            m.sends,
            m.embeds
        );
    }
    text
}

fn row<'a>(measurements: &'a [Measurement], endpoint: &str) -> Option<&'a Measurement> {
    measurements.iter().find(|m| m.endpoint == endpoint)
}

/// The cost targets of the issue, checked on one size: (target, measured, pass).
fn targets(measurements: &[Measurement]) -> Vec<(String, String, bool)> {
    let mut checks = Vec::new();
    if let Some(detail) = row(measurements, "GET /api/v1/articles/{id}") {
        // The read, and in Lambda the view's UpdateItem made with it (one round trip).
        let reads = detail.calls.reads();
        let others = detail.calls.total() - reads;
        let round_trips = detail.round_trips.1;
        checks.push((
            "article detail: 1 read (+ its view's write, in the same round trip)".into(),
            format!(
                "{} call(s), {reads} read(s), {round_trips} round trip(s)",
                detail.calls.total()
            ),
            reads == 1 && others <= 1 && round_trips == 1,
        ));
    }
    let lists: Vec<&Measurement> =
        measurements.iter().filter(|m| m.endpoint.starts_with("GET /api/v1/articles?")).collect();
    if !lists.is_empty() {
        let over: Vec<String> = lists
            .iter()
            .filter(|m| m.calls.total() > 2)
            .map(|m| format!("`{}`: {}", m.endpoint, m.calls.total()))
            .collect();
        let most = lists.iter().map(|m| m.calls.total()).max().unwrap_or(0);
        let measured = if over.is_empty() {
            format!("at most {most} calls in all {} list rows", lists.len())
        } else {
            format!("over 2 calls: {}", over.join("; "))
        };
        checks.push(("article list: ≤ 2 calls".into(), measured, over.is_empty()));
    }
    if let Some(related) = row(measurements, RELATED) {
        let reads = related.calls.reads();
        checks.push(("related articles: ≤ 2 reads".into(), format!("{reads} read(s)"), reads <= 2));
    }
    if let Some(feed) = row(measurements, "GET /api/v1/feeds/rss.xml (20 items)") {
        let (calls, round_trips) = (feed.calls.total(), feed.round_trips.1);
        checks.push((
            "feed of the blog: 2 Query + 1 BatchGetItem, 2 round trips".into(),
            format!(
                "{calls} call(s) in {round_trips} round trip(s), {:.1} read units",
                feed.read_units
            ),
            calls == 3 && round_trips == 2,
        ));
    }
    if let Some(publish) = row(measurements, "PUT /api/v1/admin/articles/{id}/publish") {
        let (transact, sends) = (publish.calls.transact, publish.sends);
        let other = publish.calls.total() - transact;
        checks.push((
            "publish: 1 transaction + 1 send".into(),
            format!(
                "{transact} TransactWriteItems + {sends} SendMessage (and {other} other table \
                 call(s): reading the article, clearing its outbox entry once sent)"
            ),
            transact == 1 && sends == 1,
        ));
    }
    checks
}

/// The generated section: provenance, method, caveats, targets and one table per size.
pub fn section(reports: &[SizeReport], command: &str, total: Duration) -> String {
    let provenance = format!(
        "Produced by `{command}` on {date}, on {machine}, in {total:.0} s in all, against DynamoDB \
         Local (in memory) and moto's SQS, started by `infra/emulators/with-emulators.sh`.",
        date = today(),
        machine = machine(),
        total = total.as_secs_f64(),
    );
    let method = format!(
        "Method: for each size a fresh table gets an administrator, 10 categories (4 roots, 6 \
         children) and 30 tags through the admin API, then that many PUBLISHED articles written \
         directly with `store::save` (1 category and 0-3 tags each, both with skewed popularity; \
         titles and summaries from a fixed word list, so keyword searches range from most \
         articles to a handful; a Markdown body of a few paragraphs). Every endpoint then runs \
         {RUNS} times in-process through `local_gateway::app` (the real handlers, no HTTP), and \
         every answer must be 200. Calls are counted per operation by the `Metered` table \
         wrapper; read and write units are the `ConsumedCapacity` (`ReturnConsumedCapacity=TOTAL`) \
         that `DynamoTable::usage` adds up. The event queue is the SQS adapter on moto behind a \
         counting wrapper of the `EventQueue` port (one SendMessage per send); the worker row \
         receives each event the measured writes sent from that queue and hands it, as a \
         one-record SQS batch, to the worker's `process_batch`, with a counting wrapper of the \
         `Embedder` port (the Bedrock adapter makes one InvokeModel per embedding). Round trips \
         are the longest chain of table calls each begun after the one before it had ended (calls \
         made together overlap; the meter counts a call as waiting on every call that had ended \
         when it began, so interleaved chains may count one more): what a request waits for at \
         DynamoDB's latency, given as the range over the runs. Figures are medians of the {RUNS} \
         runs (of the 10 events for the worker row); the calls were the same in every run unless \
         marked. The administration rows use an administrator token \
         whose account status is already cached."
    );
    let caveat = "**Caveat.** DynamoDB Local's consumed-capacity figures follow DynamoDB's rules \
         only approximately, so compare the units between endpoints and sizes rather than read \
         them as a bill; the call counts are exact. Transactions above all: DynamoDB Local \
         charges them far less than DynamoDB does (in a probe, 10 puts of 100 bytes in one \
         TransactWriteItems reported 2 WCU; DynamoDB rounds every item up to 1 KB and charges 2 \
         WCU per item and KB, so 20 WCU, plus the writes to the indexes). Hence the item count \
         next to each TransactWriteItems: on DynamoDB such a call costs at least 2 WCU per item.";
    let mut text = format!(
        "## DynamoDB, SQS and Bedrock calls per endpoint\n\n{}\n{}\n{}",
        wrap(&provenance, ""),
        wrap(&method, ""),
        wrap(caveat, "> ")
    );
    for report in reports {
        let seeded =
            format!("Seeded in {:.1} s. {}", report.seeding.as_secs_f64(), report.corpus_note);
        let mut checks = String::from("| target | measured | verdict |\n|---|---|---|\n");
        for (target, measured, pass) in targets(&report.measurements) {
            let _ = writeln!(checks, "| {target} | {measured} | {} |", verdict(pass));
        }
        let _ = write!(
            text,
            "\n### {} published articles\n\n{}\n{}\n{}",
            thousands(report.articles),
            wrap(&seeded, ""),
            checks,
            table(&report.measurements),
        );
    }
    text
}
