//! Scheduled publishing: an administrator gives a draft a future UTC time
//! (`PUT /{id}/schedule`) or takes it back (`DELETE /{id}/schedule`); the scheduled sweep
//! publishes it then, exactly once, through the same conditional change as
//! `PUT /{id}/publish` (ArticlePublishedEvent through the outbox).
//!
//! A scheduled draft has a schedule item (`A#SCHEDULE`, written with the head) in the gsi3
//! partition `SCHEDULED`, sorted by its time, which only the administration reads. The
//! sweep runs every period (a minute in AWS): it publishes what is due and waits, within its
//! run, for what falls due before the next one, so a schedule made before the run that covers
//! its time fires within about a second of it, and any schedule at most one period late. Every
//! publication is conditioned on the head still being the draft with that schedule, so
//! overlapping runs, a moved schedule or a cancel never publish twice or wrongly.

use std::time::Duration;

use axum::extract::State;
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;
use utoipa::ToSchema;

use blog_core::http::responses::kinds::*;
use blog_core::{
    http::{
        docs::{IdParam, Null},
        extract::{JsonBody, PathId},
        Failure,
    },
    ports::table::{Index, Query, SortKey},
    records,
};
use blog_users::principal::AdminOnly;

use crate::envelope::ArticleErrors;
use crate::{
    admin::change,
    envelope::{
        ArticleEnvelope as Envelope, ArticleError, ArticleErrorEnvelope as Error, ArticleFault,
        ArticleOk,
    },
    keys,
    lifecycle::{self, Action},
    model::Status,
    Publishing,
};

/// The body of `PUT /{id}/schedule`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleInput {
    /// When to publish: a future UTC time `YYYY-MM-DDTHH:MM:SS`, or an RFC 3339 time with `Z`
    /// or an offset (converted to UTC); seconds' fractions are dropped.
    #[schema(value_type = String, required = true, example = "2030-01-01T09:00:00")]
    publish_at: Option<String>,
}

/// Parses a publication time as UTC (`YYYY-MM-DDTHH:MM:SS`, or RFC 3339 with a zone).
fn parse_time(raw: &str) -> Option<DateTime<Utc>> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.with_timezone(&Utc));
    }
    let naive = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(raw, blog_core::time::FORMAT))
        .ok()?;
    Some(naive.and_utc())
}

/// The schedule `input` asks for, as the API writes times, when it is in the future.
fn publish_at(input: ScheduleInput, now: DateTime<Utc>) -> Result<String, ArticleError> {
    let invalid = |message: &str| ArticleError::from(Failure::Invalid(message.into()));
    let raw = input.publish_at.ok_or_else(|| invalid("publishAt is required"))?;
    let at = parse_time(&raw).ok_or_else(|| {
        invalid("publishAt must be a UTC time YYYY-MM-DDTHH:MM:SS (or RFC 3339 with a zone)")
    })?;
    let at = blog_core::time::format(at);
    if at <= blog_core::time::format(now) {
        return Err(invalid("publishAt must be in the future"));
    }
    Ok(at)
}

/// Schedules a draft's publication (administrators); `data` is the time, in UTC.
///
/// Published within seconds of that time (at most a minute), with its ArticlePublishedEvent;
/// the article shows `scheduledAt` until then. Scheduling again moves the time.
#[utoipa::path(
    put,
    path = "/{id}/schedule",
    operation_id = "scheduleArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = ScheduleInput,
    responses(
        (status = 200, description = "Scheduled; `data` is the time (UTC)",
            body = Envelope<String>),
        (status = 400, description = "A bad id, or `publishAt` missing, malformed or not in the \
            future (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        (status = 409, description = "Not a draft: published (ARTICLE_ALREADY_PUBLISHED) or \
            archived (ARTICLE_STATUS_INVALID); or it kept changing (VERSION_CONFLICT)",
            body = Error),
        ArticleErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn schedule(
    State(ctx): State<Publishing>,
    _admin: AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
    JsonBody(input, ..): JsonBody<ScheduleInput, ArticleError>,
) -> Result<ArticleOk<String>, ArticleError> {
    let at = publish_at(input, Utc::now())?;
    change(&ctx, id, |before| {
        lifecycle::transition(before.status, Action::Publish)?;
        let mut after = before.clone();
        after.scheduled_at = Some(at.clone());
        Ok(after)
    })
    .await?;
    tracing::info!(article_id = id, publish_at = %at, "article scheduled");
    Ok(ArticleOk::ok(at))
}

/// Cancels a draft's scheduled publication (administrators); a draft without one is left as
/// it is.
#[utoipa::path(
    delete,
    path = "/{id}/schedule",
    operation_id = "unscheduleArticle",
    tag = "admin-articles",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The draft is not scheduled (any more)",
            body = Envelope<Null>),
        (status = 404, description = "No such article, or a deleted one (ARTICLE_NOT_FOUND)",
            body = Error),
        (status = 409, description = "Not a draft: published already, maybe by its schedule \
            (ARTICLE_ALREADY_PUBLISHED), or archived (ARTICLE_STATUS_INVALID)", body = Error),
        ArticleErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn unschedule(
    State(ctx): State<Publishing>,
    _admin: AdminOnly<ArticleError>,
    PathId(id, ..): PathId<ArticleError>,
) -> Result<ArticleOk<()>, ArticleError> {
    change(&ctx, id, |before| {
        lifecycle::transition(before.status, Action::Publish)?;
        let mut after = before.clone();
        after.scheduled_at = None;
        Ok(after)
    })
    .await?;
    Ok(ArticleOk::ok(()))
}

/// A scheduled draft's schedule item, as the sweep reads it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Schedule {
    article_id: u64,
    scheduled_at: String,
}

/// Publishes the scheduled drafts due within `lookahead` of now: those due at once, then each
/// of the others at its time (this run waits for them: the next run is `lookahead` away).
/// Answers how many it published; another run or a moved or cancelled schedule is never
/// published twice or wrongly (each publication is conditioned on the schedule read).
pub async fn publish_due(ctx: &Publishing, lookahead: Duration) -> anyhow::Result<usize> {
    let horizon = Utc::now() + lookahead;
    // `~` sorts after every `#<id16>`, so every schedule up to the horizon's second is in.
    let query = Query::partition(Index::Gsi3, keys::SCHEDULED)
        .sort(SortKey::Le(format!("{}~", blog_core::time::format(horizon))));
    let mut due: Vec<(String, u64)> = records::query_all(ctx.table.as_ref(), query)
        .await?
        .into_iter()
        .filter_map(|item| records::from_item::<Schedule>(item).ok())
        .map(|schedule| (schedule.scheduled_at, schedule.article_id))
        .collect();
    due.sort();
    let mut published = 0;
    for (at, id) in due {
        if let Some(wait) = parse_time(&at).and_then(|at| (at - Utc::now()).to_std().ok()) {
            tokio::time::sleep(wait).await;
        }
        match publish_scheduled(ctx, id, &at).await {
            Ok(true) => published += 1,
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(article_id = id, error = %error, "scheduled publication failed")
            }
        }
    }
    Ok(published)
}

/// Publishes article `id` if it still is a draft scheduled at `at` (which has come).
async fn publish_scheduled(ctx: &Publishing, id: u64, at: &str) -> Result<bool, ArticleError> {
    let outcome = change(ctx, id, |before| {
        if before.status != Status::Draft || before.scheduled_at.as_deref() != Some(at) {
            return Err(
                ArticleFault::StatusInvalid("no longer scheduled at that time".into()).into()
            );
        }
        let mut after = before.clone();
        after.status = Status::Published;
        after.publish_time = Some(blog_core::time::now_string());
        after.scheduled_at = None;
        Ok(after)
    })
    .await;
    match outcome {
        Ok(_) => {
            tracing::info!(article_id = id, scheduled_at = at, "scheduled article published");
            Ok(true)
        }
        Err(ArticleError::Own(ArticleFault::StatusInvalid(_) | ArticleFault::ArticleNotFound)) => {
            Ok(false)
        }
        Err(other) => Err(other),
    }
}

/// The local gateway's schedule: [`publish_due`] every `period`, each run looking `period`
/// ahead (in AWS the outbox-sweep function does the same on its own schedule).
pub async fn run_local(ctx: Publishing, period: Duration) {
    let mut ticks = tokio::time::interval(period);
    loop {
        ticks.tick().await;
        if let Err(error) = publish_due(&ctx, period).await {
            tracing::warn!(error = format!("{error:#}"), "scheduled publications failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn input(at: &str) -> ScheduleInput {
        ScheduleInput { publish_at: Some(at.into()) }
    }

    #[test]
    fn a_publication_time_is_read_as_utc_in_either_form() {
        let now = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        let cases = [
            ("2030-01-02T09:00:00", "2030-01-02T09:00:00"),
            ("2030-01-02T09:00:00.750", "2030-01-02T09:00:00"),
            ("2030-01-02T09:00:00Z", "2030-01-02T09:00:00"),
            ("2030-01-02T10:30:00+01:30", "2030-01-02T09:00:00"),
        ];
        for (given, stored) in cases {
            assert_eq!(publish_at(input(given), now).unwrap(), stored, "{given}");
        }
    }

    #[test]
    fn a_past_missing_or_malformed_time_names_publish_at() {
        let now = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        let refused = [
            ScheduleInput { publish_at: None },
            input("2030-01-01T00:00:00"),
            input("2029-12-31T23:59:59"),
            input("tomorrow"),
            input("2030-13-01T00:00:00"),
        ];
        for given in refused {
            let error = publish_at(given, now).unwrap_err().to_string();
            assert!(error.contains("publishAt"), "{error}");
        }
    }
}
