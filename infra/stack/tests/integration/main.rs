//! blog-stack's integration tests in one binary (one link of the AWS SDK instead of one per
//! file). Each runs its children (scripts, function binaries, stacks) with environments of
//! their own; none sets this process's environment.

mod cdn;
mod deploy;
mod function_features;
mod index_grants;
mod initialisation;
mod invoke;
mod least_privilege;
mod localstack;
mod must_not;
mod must_not_resources;
mod sample_events;
mod schedule;
mod timeouts;
