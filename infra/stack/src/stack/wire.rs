//! The template's events wired: HTTP API routes into the front's route table, SQS events
//! into event source mappings, schedules into timers.

use std::{
    net::SocketAddr,
    sync::{atomic::AtomicBool, Arc},
};

use anyhow::{Context, Result};

use super::StackOptions;
use crate::{
    clients::Clients,
    functions::Function,
    mapping::Mapping,
    provision::Provisioned,
    routes::RouteTable,
    schedule,
    template::{intrinsics::Resolver, EventSpec, FunctionSpec},
};

/// The routes of the front, and the event sources and schedules started.
pub(super) fn events(
    options: &StackOptions,
    functions: &[(FunctionSpec, Arc<Function>, SocketAddr)],
    resolver: &Resolver,
    provisioned: &Provisioned,
    clients: &Clients,
) -> Result<(RouteTable, Vec<Arc<AtomicBool>>)> {
    let mut routes = RouteTable::default();
    let mut sources = vec![];
    for (index, (spec, function, _)) in functions.iter().enumerate() {
        for event in &spec.events {
            match event {
                EventSpec::Http { name, route } => {
                    let route = route.as_ref().map(|(m, p)| (m.as_str(), p.as_str()));
                    routes
                        .add(route, index)
                        .map_err(anyhow::Error::msg)
                        .with_context(|| format!("{}: event {name}", spec.logical_id))?;
                }
                EventSpec::Sqs {
                    queue,
                    batch_size,
                    batching_window,
                    reports_item_failures,
                    enabled,
                    ..
                } => {
                    let arn = resolver.string(queue)?;
                    let (_, physical) = provisioned
                        .physical
                        .iter()
                        .find(|(_, p)| p.attributes.get("Arn") == Some(&arn))
                        .with_context(|| format!("no queue with the ARN {arn}"))?;
                    let on = resolver.string(enabled)? == "true" && options.event_sources_enabled;
                    let flag = Arc::new(AtomicBool::new(on));
                    sources.push(flag.clone());
                    let mapping = Mapping {
                        queue_url: physical.reference.clone(),
                        queue_arn: arn,
                        batch_size: crate::template::number(&resolver.resolve(batch_size)?)? as i32,
                        batching_window: crate::template::seconds(
                            &resolver.resolve(batching_window)?,
                        )?,
                        reports_item_failures: *reports_item_failures,
                        enabled: flag,
                    };
                    mapping.spawn(clients.sqs.clone(), function.clone());
                }
                EventSpec::Schedule { expression, input, enabled, .. } => {
                    if !enabled {
                        continue;
                    }
                    // The template's rate is read even when tests shorten it.
                    let rate = schedule::rate(&resolver.string(expression)?)?;
                    let period = options.schedule_period.unwrap_or(rate);
                    let input = match input {
                        Some(input) => resolver.string(input)?,
                        None => "{}".to_string(),
                    };
                    schedule::spawn(function.clone(), input, period);
                }
            }
        }
    }
    Ok((routes, sources))
}
