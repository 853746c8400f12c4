//! The events side of the harness: where the tests read the ArticlePublishedEvent the API
//! emitted, how they start the worker, and how they hand it events themselves. In-process the
//! worker is the local one and the follow-up runs in the test's context; on the AWS adapter set
//! the queue is on moto and the worker function's handler runs in the test process; on the
//! stack the queue is the stack's, the worker is the worker function's binary fed by the
//! template's event source mapping, and events handed to it go through the Invoke API.

use blog_api::area::AreaState;
use std::time::Duration;

use blog_api::{
    articles::followup::Outcome,
    ports::events::{local, Message},
    worker,
};
use serde_json::{json, Value};

use super::{aws, Api};

/// Where the tests read the events the API emitted (until a worker takes the queue over).
pub enum Events {
    /// The gateway's in-process queue.
    InProcess {
        queue: std::sync::Arc<local::InProcessQueue>,
        receiver: tokio::sync::Mutex<Option<local::Receiver>>,
    },
    /// A queue on moto (the stack's, on the stack).
    Sqs(aws::SqsEvents),
}

impl Api {
    /// The next event the API emitted (waits up to 10 s), as JSON.
    pub async fn next_event(&self) -> Option<Value> {
        let wait = Duration::from_secs(10);
        match &self.events {
            Events::InProcess { receiver, .. } => {
                let mut receiver = receiver.lock().await;
                let receiver = receiver.as_mut().expect("the worker has taken the queue");
                let message = tokio::time::timeout(wait, receiver.0.recv()).await.ok()??;
                serde_json::from_str(&message.body).ok()
            }
            Events::Sqs(sqs) => sqs.next_event(wait).await,
        }
    }

    /// A message the worker gave up on (waits up to a second): the local worker's `DEADLETTER`
    /// item, or on SQS a message of the dead-letter queue.
    pub async fn dead_letter(&self) -> Option<aws::DeadLetter> {
        match &self.events {
            Events::InProcess { .. } => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let query = blog_api::ports::table::Query::partition(
                    blog_api::ports::table::Index::Primary,
                    "DEADLETTER",
                );
                let letters = self.table.query(query).await.expect("DEADLETTER items").items;
                let letter = serde_json::to_value(letters.first()?).expect("DynamoDB JSON");
                Some(aws::DeadLetter {
                    id: letter["sk"]["S"].as_str()?.to_string(),
                    body: letter["body"]["S"].as_str()?.to_string(),
                    deliveries: letter["deliveries"]["N"].as_str()?.parse().ok()?,
                })
            }
            Events::Sqs(sqs) => {
                let mut letter = sqs.dead_letter().await?;
                if let Some(stack) = &self.stack {
                    // The worker function logs every delivery it failed.
                    let worker = stack.function("worker").expect("the worker function");
                    let failed = worker
                        .logs()
                        .lines()
                        .iter()
                        .filter(|line| {
                            serde_json::from_str::<Value>(line).is_ok_and(|line| {
                                line["message_id"] == letter.id.as_str()
                                    && line["message"] == "event failed"
                            })
                        })
                        .count();
                    letter.deliveries = failed as u32;
                }
                Some(letter)
            }
        }
    }

    /// Starts the worker on the API's queue (events then reach it, not `next_event`): the local
    /// worker, the harness's event source on moto, or the stack's event source mapping.
    pub async fn start_worker(&self) {
        if let Some(stack) = &self.stack {
            stack.set_event_sources_enabled(true);
            return;
        }
        match &self.events {
            Events::InProcess { queue, receiver } => {
                let receiver = receiver.lock().await.take().expect("worker started once");
                let worker = worker::run_local(
                    AreaState::from_context(&self.ctx).expect("the harness has an embedder"),
                    queue.clone(),
                    receiver,
                    Duration::from_secs(1),
                );
                tokio::spawn(worker);
            }
            Events::Sqs(sqs) => sqs.start_worker(self.ctx.clone()),
        }
    }

    /// Sends `body` to the API's event queue, as the API would.
    pub async fn send_event(&self, body: &str) {
        match &self.events {
            Events::Sqs(sqs) => sqs.send(body).await,
            Events::InProcess { queue, .. } => {
                use blog_api::ports::events::EventQueue;
                queue.send(body.to_string()).await.expect("in-process send");
            }
        }
    }

    /// Runs the outbox sweep once: how many events it delivered. In a process, the sweep of
    /// everything in the outbox; on the stack, the sweep function, invoked with its schedule's
    /// input once the events have waited the minute it leaves them to their request (their
    /// stored times are moved a minute back, as if it had passed).
    pub async fn sweep_outbox(&self) -> anyhow::Result<usize> {
        let Some(stack) = &self.stack else {
            return blog_api::articles::events::sweep(
                &AreaState::from_context(&self.ctx)?,
                Duration::ZERO,
            )
            .await;
        };
        self.age_outbox(Duration::from_secs(61)).await;
        let body = invoke_sweep(stack).await?;
        body["delivered"].as_u64().map(|n| n as usize).ok_or_else(|| anyhow::anyhow!("{body}"))
    }

    /// Runs the schedule once, as the sweep's schedule would: how many scheduled drafts it
    /// published (waiting for those due within its period). In a process, `publish_due`; on
    /// the stack, the sweep function invoked with its schedule's input.
    pub async fn run_schedule(&self) -> anyhow::Result<u64> {
        let Some(stack) = &self.stack else {
            let publishing = AreaState::from_context(&self.ctx)?;
            let period = self.ctx.config.schedule_period;
            return Ok(blog_api::articles::publish_due(&publishing, period).await? as u64);
        };
        let body = invoke_sweep(stack).await?;
        body["published"].as_u64().ok_or_else(|| anyhow::anyhow!("{body}"))
    }

    /// Runs the sitemap's rebuild as on a deployment whose articles predate the pages (its
    /// progress item removed first), to its end: how many pages it wrote. In a process, the
    /// rebuild's steps; on the stack, the sweep function invoked with its schedule's input.
    pub async fn rebuild_sitemap(&self) -> anyhow::Result<u64> {
        use blog_api::articles::sitemap_pages;
        self.table.delete(&sitemap_pages::rebuild_key(), None).await?;
        let Some(stack) = &self.stack else {
            let mut pages = 0;
            loop {
                match sitemap_pages::rebuild_step(self.table.as_ref()).await? {
                    0 => return Ok(pages),
                    step => pages += step,
                }
            }
        };
        let body = invoke_sweep(stack).await?;
        body["sitemapPages"].as_u64().ok_or_else(|| anyhow::anyhow!("{body}"))
    }

    /// Moves every outbox event `by` back in time (its key and its `createdAt`).
    async fn age_outbox(&self, by: Duration) {
        use blog_api::ports::table::{n, s, AttributeValue, Index, Key, Query};
        let items =
            self.table.query(Query::partition(Index::Primary, "OUTBOX")).await.unwrap().items;
        for mut item in items {
            let (Some(AttributeValue::S(sk)), Some(AttributeValue::S(body))) =
                (item.get("sk").cloned(), item.get("body").cloned())
            else {
                continue;
            };
            let mut event: Value = serde_json::from_str(&body).unwrap();
            let created = event["createdAt"].as_i64().unwrap() - by.as_millis() as i64;
            event["createdAt"] = json!(created);
            let event_id = event["eventId"].as_str().unwrap().to_string();
            item.insert("sk".into(), s(format!("{created:015}#{event_id}")));
            item.insert("body".into(), s(event.to_string()));
            item.insert("createdAt".into(), n(created));
            self.table.put(item, None).await.unwrap();
            self.table.delete(&Key::new("OUTBOX", sk), None).await.unwrap();
        }
    }

    /// Hands the worker the next `count` events the API emitted, in order, each as one delivery
    /// (the function's batch on the stack): what a test of a follow-up waits for, instead of
    /// a time. Panics when fewer were emitted (after `next_event`'s wait) or one failed.
    pub async fn follow_up(&self, count: usize) -> Vec<Value> {
        let mut handled = Vec::new();
        for n in 0..count {
            let event = self.next_event().await.unwrap_or_else(|| panic!("event {n} of {count}"));
            let id = format!("m-{}", super::uuid_like());
            let message = Message { id, body: event.to_string(), receive_count: 1 };
            assert!(self.handle_batch(&[message]).await.is_empty(), "the worker failed {event}");
            handled.push(event);
        }
        handled
    }

    /// Hands the worker one event, as one delivery of a message: the follow-up's outcome.
    pub async fn handle_event(&self, body: &str) -> anyhow::Result<Outcome> {
        let Some(stack) = &self.stack else {
            return worker::handle(&AreaState::from_context(&self.ctx)?, body).await;
        };
        let id = format!("m-{}", super::uuid_like());
        let message = Message { id: id.clone(), body: body.to_string(), receive_count: 1 };
        let failed = self.handle_batch(&[message]).await;
        anyhow::ensure!(failed.is_empty(), "the worker function failed the event");
        // The function logs each event's outcome; its output is read asynchronously.
        for _ in 0..100 {
            let worker = stack.function("worker").expect("the worker function");
            let outcome = worker.logs().lines().iter().find_map(|line| {
                let line: Value = serde_json::from_str(line).ok()?;
                (line["message_id"] == id.as_str()).then(|| line["outcome"].clone())
            });
            match outcome.as_ref().and_then(Value::as_str) {
                Some("Done") => return Ok(Outcome::Done),
                Some("Skipped") => return Ok(Outcome::Skipped),
                Some(other) => anyhow::bail!("unknown outcome {other}"),
                None => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
        anyhow::bail!("the worker function logged no outcome for {id}")
    }

    /// Hands the worker one batch, as the event source does: the ids of the messages it
    /// reported as failed.
    pub async fn handle_batch(&self, messages: &[Message]) -> Vec<String> {
        let Some(stack) = &self.stack else {
            return worker::process_batch(
                &AreaState::from_context(&self.ctx).expect("the harness has an embedder"),
                messages,
            )
            .await;
        };
        let records: Vec<Value> =
            messages.iter().map(|m| aws::sqs_record(m, &format!("receipt-{}", m.id))).collect();
        let answer = stack.invoke("worker", &json!({ "Records": records })).await;
        match answer.expect("the worker function answers") {
            blog_stack::functions::Outcome::Answered(body) => {
                let body: Value = serde_json::from_slice(&body).expect("a batch response");
                body["batchItemFailures"]
                    .as_array()
                    .expect("batchItemFailures")
                    .iter()
                    .map(|f| f["itemIdentifier"].as_str().unwrap().to_string())
                    .collect()
            }
            blog_stack::functions::Outcome::Failed(error) => {
                panic!("the worker function failed: {}", String::from_utf8_lossy(&error))
            }
        }
    }
}

/// The stack's sweep function invoked with its schedule's input: its answer.
async fn invoke_sweep(stack: &blog_stack::Stack) -> anyhow::Result<Value> {
    let input = std::fs::read_to_string(
        super::stack::workspace().join("events/outbox-sweep/scheduled.json"),
    )?;
    let input: Value = serde_json::from_str(&input)?;
    match stack.invoke("outbox-sweep", &input).await? {
        blog_stack::functions::Outcome::Answered(body) => Ok(serde_json::from_slice(&body)?),
        blog_stack::functions::Outcome::Failed(error) => {
            anyhow::bail!("the sweep failed: {}", String::from_utf8_lossy(&error))
        }
    }
}
