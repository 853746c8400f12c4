//! The Lambda side: one function serves one area's router through lambda_http.

#[cfg(feature = "auth")]
mod admin;

use axum::Router;

#[cfg(feature = "auth")]
pub use admin::AdminBootstrap;

/// Error type of a function's `main`.
pub use lambda_http::Error as LambdaError;

#[cfg(all(feature = "articles", feature = "files"))]
use crate::articles::Embedding;
use crate::{api::Function, area::Needs, config::Config, context::AppContext, setup};
#[cfg(feature = "articles")]
use crate::{area::AreaState, articles::Publishing};

/// Runs the HTTP function `function`: configuration, adapters and clients are built once per
/// cold start (only those its areas need), then every invocation goes through lambda_http into
/// its areas' router. A port an area needs that the process lacks stops the initialisation.
/// Where the configuration names an administrator (the auth function), its bootstrap runs at
/// the first request, or during initialisation when Lambda initialises the environment ahead of
/// requests; either way no request is served before it.
pub async fn run(function: &Function) -> Result<(), LambdaError> {
    let needs = function.needs();
    let ctx = cold_start(function.name, needs).await?;
    #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
    let mut router = function
        .router(&ctx)
        .map_err(|error| InitError(format!("{} cannot start: {error:#}", function.name)))?;
    #[cfg(feature = "auth")]
    if needs.tokens && ctx.config.admin.is_some() {
        let bootstrap = AdminBootstrap::new(ctx.clone())?;
        if ctx.config.initialized_ahead {
            bootstrap.ready().await?;
        }
        router = bootstrap.guard(router);
    }
    lambda_http::run(crate::http::finish(router)).await
}

/// The router a function serves: its areas plus the outermost layers (404 fallback, tracing).
pub fn service(function: &Function, ctx: AppContext) -> anyhow::Result<Router> {
    Ok(crate::http::finish(function.router(&ctx)?))
}

/// Runs the worker function: SQS batches of ArticlePublishedEvent, FileConfirmedEvent and the
/// other worker messages ([`crate::worker`]), partial batch failures reported back.
#[cfg(all(feature = "comments", feature = "files"))]
pub async fn run_worker() -> Result<(), LambdaError> {
    run_events(
        "worker",
        Needs::WORKER,
        crate::effects::authors,
        |ctx: Embedding, payload| async move { worker_invocation(&ctx, payload).await },
    )
    .await
}

/// Runs the outbox-sweep function: on each scheduled event, re-sends the ArticlePublishedEvent
/// whose send failed after their publish committed.
#[cfg(feature = "articles")]
pub async fn run_outbox_sweep() -> Result<(), LambdaError> {
    run_events(
        "outbox-sweep",
        Needs::OUTBOX_SWEEP,
        crate::effects::none,
        |ctx: Publishing, payload| async move { outbox_sweep_invocation(&ctx, payload).await },
    )
    .await
}

/// Runs a function of JSON events (not HTTP) as `name`: its state (the context with the port
/// it cannot work without and the cross-feature `effects` it takes) is built once per cold
/// start, then every event's payload goes to `invocation`.
#[cfg(feature = "articles")]
async fn run_events<S, F, Answer>(
    name: &str,
    needs: Needs,
    effects: fn(AppContext) -> AppContext,
    invocation: F,
) -> Result<(), LambdaError>
where
    S: AreaState,
    F: Fn(S, serde_json::Value) -> Answer,
    Answer: std::future::Future<Output = Result<serde_json::Value, LambdaError>>,
{
    let ctx = effects(cold_start(name, needs).await?);
    let state = S::from_context(&ctx)
        .map_err(|error| InitError(format!("{name} cannot start: {error:#}")))?;
    let handler =
        lambda_runtime::service_fn(|event: lambda_runtime::LambdaEvent<serde_json::Value>| {
            invocation(state.clone(), event.payload)
        });
    lambda_runtime::run(handler).await
}

/// What every function does once per cold start: configuration from the environment, logging,
/// and the context with only the adapters and clients it `needs`. Whatever stops it (a bad
/// variable, an adapter the binary lacks, a secret it cannot read) stops the initialisation
/// with one line naming the cause, before the function asks for its first invocation.
async fn cold_start(name: &str, needs: Needs) -> Result<AppContext, LambdaError> {
    let cannot_start = |error: anyhow::Error| InitError(format!("{name} cannot start: {error:#}"));
    let mut config = Config::from_env().map_err(cannot_start)?;
    config.function = name.to_string();
    crate::telemetry::init(&config.log, true);
    Ok(setup::function_context(config, needs).await.map_err(cannot_start)?)
}

/// Why a function could not initialise. Its `Debug` is the message itself, so that `main`
/// prints it as one line (`Error: <function> cannot start: <cause>: <detail>`).
struct InitError(String);

impl std::fmt::Debug for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InitError {}

/// One invocation of the worker: an SQS event of the worker's messages.
#[cfg(all(feature = "articles", feature = "files"))]
pub async fn worker_invocation(
    ctx: &Embedding,
    payload: serde_json::Value,
) -> Result<serde_json::Value, LambdaError> {
    ctx.telemetry.refresh_levels_if_due(ctx.table.as_ref()).await;
    let response = handle_worker_event(ctx, payload).await;
    ctx.telemetry.export_if_due(ctx.table.as_ref()).await;
    response
}

/// One invocation of the outbox sweep, whatever the (scheduled) event: every outbox event
/// older than a minute is sent, the pending views are moved to the articles, a step of the
/// sitemap's rebuild runs (until it is done), and the drafts scheduled within the sweep's period
/// are published, each at its time (the run waits for them); answers
/// `{"delivered": n, "views": m, "sitemapPages": r, "published": p}`.
#[cfg(feature = "articles")]
pub async fn outbox_sweep_invocation(
    ctx: &Publishing,
    _scheduled_event: serde_json::Value,
) -> Result<serde_json::Value, LambdaError> {
    ctx.telemetry.refresh_levels_if_due(ctx.table.as_ref()).await;
    let delivered = crate::articles::events::sweep(ctx, std::time::Duration::from_secs(60)).await;
    if let Ok(count) = &delivered {
        let cold_start = ctx.telemetry.cold_start();
        let function = ctx.telemetry.function();
        println!("{}", crate::telemetry::emf::sweep_line(function, *count as u64, cold_start));
    }
    let views = crate::articles::views::sweep(ctx.table.as_ref()).await;
    let sitemap = crate::articles::sitemap_pages::rebuild_step(ctx.table.as_ref()).await;
    let published = crate::articles::publish_due(ctx, ctx.config.schedule_period).await;
    ctx.telemetry.export_if_due(ctx.table.as_ref()).await;
    Ok(serde_json::json!({
        "delivered": delivered?,
        "views": views?,
        "sitemapPages": sitemap?,
        "published": published?
    }))
}

#[cfg(all(feature = "articles", feature = "files"))]
async fn handle_worker_event(
    ctx: &Embedding,
    payload: serde_json::Value,
) -> Result<serde_json::Value, LambdaError> {
    use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
    let event: SqsEvent = serde_json::from_value(payload)
        .map_err(|error| format!("the worker takes SQS events only: {error}"))?;
    let messages: Vec<crate::ports::events::Message> = event
        .records
        .into_iter()
        .map(|record| crate::ports::events::Message {
            id: record.message_id.unwrap_or_default(),
            receive_count: record
                .attributes
                .get("ApproximateReceiveCount")
                .and_then(|count| count.parse().ok())
                .unwrap_or(1),
            body: record.body.unwrap_or_default(),
        })
        .collect();
    let failed = crate::worker::process_batch(ctx, &messages).await;
    let processed = (messages.len() - failed.len()) as u64;
    let cold_start = ctx.telemetry.cold_start();
    let line = crate::telemetry::emf::worker_line(
        ctx.telemetry.function(),
        processed,
        failed.len() as u64,
        cold_start,
    );
    println!("{line}");
    let mut response = SqsBatchResponse::default();
    response.batch_item_failures = failed
        .into_iter()
        .map(|id| {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id;
            failure
        })
        .collect();
    Ok(serde_json::to_value(response)?)
}
