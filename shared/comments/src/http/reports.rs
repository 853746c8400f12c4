//! Reports of comments: a signed-in reader reports a comment (one open report per user and
//! comment, kept by the marker `REPORTS#<userId>` / `C#<commentId16>`); administrators list
//! them, uphold one (the comment becomes REJECTED) or dismiss it.

use axum::extract::State;
use futures::future::try_join_all;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use blog_core::http::responses::kinds::*;
use blog_core::{
    context::AppContext,
    http::{
        docs::{api_time, id_string, IdParam},
        extract::{JsonBody, PathId, QueryParams},
        Failure,
    },
    ids::{next_id, IdKind},
    ports::table::{
        n, refused_by, s, Condition, Index, Query, TableError, Transaction, Update, Write,
    },
    records::{self, query_all},
};
use blog_users::principal::{AdminOnly, Authenticated};

use blog_core::http::ApiError;

use crate::envelope::CommentErrors;
use crate::{
    detail,
    envelope::{
        CommentEnvelope as Envelope, CommentError, CommentErrorEnvelope as Error, CommentFault,
        CommentOk,
    },
    keys,
    model::{CommentStatus, StoredComment},
    paging::{Paged, Paging},
    rate::{self, Window},
    repo,
    thread::{self, Thread},
};

const ATTEMPTS: usize = 5;

/// Why a comment is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReportReason {
    /// Advertising, link farms.
    Spam,
    /// Insults, harassment.
    Abuse,
    /// Unrelated to the article.
    OffTopic,
    /// Something else (see `detail`).
    Other,
}

/// Where a report stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReportStatus {
    /// Waiting for an administrator.
    Open,
    /// The comment was rejected.
    Upheld,
    /// Nothing was done.
    Dismissed,
}

impl ReportStatus {
    const ALL: [ReportStatus; 3] = [Self::Open, Self::Upheld, Self::Dismissed];

    fn name(self) -> &'static str {
        match self {
            Self::Open => "OPEN",
            Self::Upheld => "UPHELD",
            Self::Dismissed => "DISMISSED",
        }
    }
}

/// A stored report (`REPORT#<id>`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredReport {
    id: u64,
    comment_id: u64,
    user_id: u64,
    reason: ReportReason,
    #[serde(default)]
    detail: String,
    status: ReportStatus,
    create_time: String,
}

/// A report as the API answers it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Id.
    #[schema(schema_with = id_string)]
    id: String,
    /// The reported comment.
    #[schema(schema_with = id_string)]
    comment_id: String,
    /// Who reported it.
    #[schema(schema_with = id_string)]
    user_id: String,
    /// Why.
    reason: ReportReason,
    /// In the reporter's words (may be empty).
    detail: String,
    /// Status.
    status: ReportStatus,
    /// Creation.
    #[schema(schema_with = api_time)]
    create_time: String,
}

impl StoredReport {
    fn view(&self) -> Report {
        Report {
            id: self.id.to_string(),
            comment_id: self.comment_id.to_string(),
            user_id: self.user_id.to_string(),
            reason: self.reason,
            detail: self.detail.clone(),
            status: self.status,
            create_time: self.create_time.clone(),
        }
    }

    /// The report's item, in the administration's index of its status (gsi3).
    fn item(&self) -> Result<blog_core::ports::table::Item, TableError> {
        let mut item = records::to_item(self, &keys::report(self.id))?;
        item.insert("gsi3pk".into(), s(keys::reports_by_status(self.status.name())));
        item.insert("gsi3sk".into(), s(self.order()));
        Ok(item)
    }

    /// The sort key in its status partition.
    fn order(&self) -> String {
        format!("{}#{:016}", self.create_time, self.id)
    }
}

/// A stored report's item as the present layout writes it.
pub(crate) fn item_of_stored(
    stored: blog_core::ports::table::Item,
) -> Result<blog_core::ports::table::Item, TableError> {
    records::from_item::<StoredReport>(stored)?.item()
}

/// Body of a report.
#[derive(Deserialize, ToSchema)]
pub struct ReportInput {
    /// `SPAM`, `ABUSE`, `OFF_TOPIC` or `OTHER`.
    reason: ReportReason,
    /// At most 500 characters (control and bidirectional-override characters are removed).
    detail: Option<String>,
}

/// Reports a comment the caller sees, not their own (signed in); one open report per user and
/// comment, at most 10 reports a minute per user.
#[utoipa::path(
    post,
    path = "/{id}/report",
    operation_id = "reportComment",
    tag = "comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    request_body = ReportInput,
    responses(
        (status = 200, description = "The report, OPEN", body = Envelope<Report>),
        (status = 400, description = "A bad id, `reason` or `detail`, or the caller's own \
            comment (PARAM_ERROR)", body = Error),
        (status = 404, description = "No such comment for the caller, or one on an article \
            deleted or no longer published (COMMENT_NOT_FOUND)", body = Error),
        (status = 409, description = "The caller's report of it is still open (CONFLICT)", body = Error),
        (status = 429, description = "More than 10 reports in a minute (TOO_MANY_REQUESTS, \
            `Retry-After`)", body = Error),
        CommentErrors<(Unauthorized, Internal)>,
    )
)]
pub async fn report(
    State(ctx): State<AppContext>,
    Authenticated(caller, ..): Authenticated<CommentError>,
    PathId(id, ..): PathId<CommentError>,
    JsonBody(input, ..): JsonBody<ReportInput, CommentError>,
) -> Result<CommentOk<Report>, CommentError> {
    let detail = detail::cleaned(&input.detail.unwrap_or_default());
    if detail.chars().count() > 500 {
        return Err(CommentError::invalid("detail must have at most 500 characters"));
    }
    let table = ctx.table.as_ref();
    let viewer = Some((caller.id, caller.is_admin()));
    let comment = match repo::find_with_article(table, id).await? {
        Some((comment, true)) if thread::shown_to(table, &comment, viewer).await? => comment,
        _ => return Err(CommentFault::CommentNotFound.into()),
    };
    if comment.user_id == caller.id {
        return Err(CommentError::invalid("id: one does not report one's own comment"));
    }
    let marker_key = keys::open_report(caller.id, id);
    let mut report_id = None;
    for _ in 0..ATTEMPTS {
        // The open-report marker is never read first (the comments function may not read
        // reports): its condition in the transaction refuses a second open report.
        let window = Window::read(table, rate::REPORTS, caller.id).await?;
        window.check()?;
        let report = StoredReport {
            id: match report_id {
                Some(id) => id,
                None => *report_id.insert(next_id(table, IdKind::Report).await?),
            },
            comment_id: id,
            user_id: caller.id,
            reason: input.reason,
            detail: detail.clone(),
            status: ReportStatus::Open,
            create_time: blog_core::time::now_string(),
        };
        let mut marker = records::key_item(&marker_key);
        marker.insert("reportId".into(), n(report.id as i64));
        let writes = Transaction::new()
            .with("open report", Write::Put { item: marker, condition: Some(Condition::NotExists) })
            .with(
                "report",
                Write::Put { item: report.item()?, condition: Some(Condition::NotExists) },
            )
            .with("rate window", window.write());
        match writes.commit(table).await {
            Ok(()) => return Ok(CommentOk::ok(report.view())),
            Err(error) if refused_by(&error, "open report") => return Err(already_open()),
            // Another report took the rate window's place meanwhile: read it again.
            Err(error) if refused_by(&error, "rate window") => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(Failure::Conflict("your reports kept changing: try again".into()).into())
}

fn already_open() -> CommentError {
    Failure::Conflict("you reported this comment already; the report is still open".into()).into()
}

/// Query of the reports list.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportsQuery {
    /// Page number (default 1).
    #[param(value_type = Option<u64>, minimum = 1)]
    page: Option<String>,
    /// Alias of `page`.
    #[param(value_type = Option<u64>, minimum = 1)]
    current: Option<String>,
    /// Page size (default 10).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    size: Option<String>,
    /// `OPEN`, `UPHELD` or `DISMISSED`; without it, every report.
    status: Option<String>,
}

/// Reports, newest first (administrators).
#[utoipa::path(
    get,
    path = "/reports",
    operation_id = "adminListReports",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(ReportsQuery),
    responses(
        (status = 200, description = "A page of reports, newest first", body = Envelope<Paged<Report>>),
        (status = 400, description = "A parameter out of range (PARAM_ERROR)", body = Error),
        CommentErrors<(Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn reports(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<CommentError>,
    QueryParams(query, ..): QueryParams<ReportsQuery, CommentError>,
) -> Result<CommentOk<Paged<Report>>, CommentError> {
    let paging =
        Paging::parse(query.page.as_deref(), query.current.as_deref(), query.size.as_deref())?;
    let statuses: Vec<ReportStatus> = match query.status.as_deref().map(str::trim) {
        None | Some("") => ReportStatus::ALL.to_vec(),
        Some(raw) => vec![ReportStatus::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(raw))
            .ok_or_else(|| CommentError::invalid("status must be OPEN, UPHELD or DISMISSED"))?],
    };
    let table = ctx.table.as_ref();
    let queries = statuses.into_iter().map(|s| {
        query_all(table, Query::partition(Index::Gsi3, keys::reports_by_status(s.name())))
    });
    let mut found = try_join_all(queries)
        .await?
        .into_iter()
        .flatten()
        .map(records::from_item::<StoredReport>)
        .collect::<Result<Vec<_>, TableError>>()?;
    found.sort_by_key(|r| std::cmp::Reverse(r.id));
    Ok(CommentOk::ok(paging.cut(found.iter().map(StoredReport::view).collect())))
}

/// Closes an OPEN report as `to`; upholding also rejects the comment (unless it is deleted
/// or rejected already). Conditioned on the report being OPEN, so it is closed once.
async fn close(ctx: &AppContext, id: u64, to: ReportStatus) -> Result<Report, CommentError> {
    let table = ctx.table.as_ref();
    let mut report: StoredReport = table
        .get(&keys::report(id))
        .await?
        .map(records::from_item)
        .transpose()?
        .ok_or_else(|| Failure::NotFound(format!("report {id} does not exist")))?;
    if report.status != ReportStatus::Open {
        return Err(
            Failure::Conflict(format!("the report is {} already", report.status.name())).into()
        );
    }
    let mut writes = vec![
        Write::Update {
            key: keys::report(id),
            // The sort key too, and no gsi1 keys: a report written before gsi3 moves there.
            update: Update::new()
                .set("status", s(to.name()))
                .set("gsi3pk", s(keys::reports_by_status(to.name())))
                .set("gsi3sk", s(report.order()))
                .remove("gsi1pk")
                .remove("gsi1sk"),
            condition: Some(Condition::equals("status", s(ReportStatus::Open.name()))),
        },
        Write::Delete {
            key: keys::open_report(report.user_id, report.comment_id),
            condition: None,
        },
    ];
    if to == ReportStatus::Upheld {
        let comment: Option<StoredComment> = repo::find(table, report.comment_id).await?;
        if let Some(comment) =
            comment.filter(|c| matches!(c.status, CommentStatus::Pending | CommentStatus::Approved))
        {
            let thread = Thread::of(table, &comment).await?;
            let read = thread.still(&comment).ok_or_else(|| {
                Failure::Conflict("the comment changed meanwhile: try again".into())
            })?;
            let reason = Update::new().set("rejectReason", s(format!("report {id} upheld")));
            writes.extend(thread.status_change(read, CommentStatus::Rejected, reason));
        }
    }
    match table.transact(writes).await {
        Ok(()) => {
            report.status = to;
            Ok(report.view())
        }
        Err(TableError::TransactionCancelled { .. }) => Err(Failure::Conflict(
            "the report or its comment changed meanwhile: read it again".into(),
        )
        .into()),
        Err(other) => Err(other.into()),
    }
}

/// Upholds an OPEN report (administrators): the comment becomes REJECTED.
#[utoipa::path(
    post,
    path = "/reports/{id}/uphold",
    operation_id = "upholdReport",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The report, UPHELD", body = Envelope<Report>),
        (status = 404, description = "No such report (NOT_FOUND)", body = Error),
        (status = 409, description = "The report is closed already (CONFLICT)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn uphold(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<CommentError>,
    PathId(id, ..): PathId<CommentError>,
) -> Result<CommentOk<Report>, CommentError> {
    close(&ctx, id, ReportStatus::Upheld).await.map(CommentOk::ok)
}

/// Dismisses an OPEN report (administrators): the comment stays as it is.
#[utoipa::path(
    post,
    path = "/reports/{id}/dismiss",
    operation_id = "dismissReport",
    tag = "admin-comments",
    security(("bearerAuth" = [])),
    params(IdParam),
    responses(
        (status = 200, description = "The report, DISMISSED", body = Envelope<Report>),
        (status = 404, description = "No such report (NOT_FOUND)", body = Error),
        (status = 409, description = "The report is closed already (CONFLICT)", body = Error),
        CommentErrors<(Invalid, Unauthorized, Forbidden, Internal)>,
    )
)]
pub async fn dismiss(
    State(ctx): State<AppContext>,
    _admin: AdminOnly<CommentError>,
    PathId(id, ..): PathId<CommentError>,
) -> Result<CommentOk<Report>, CommentError> {
    close(&ctx, id, ReportStatus::Dismissed).await.map(CommentOk::ok)
}
