//! The stack the tests start, one per test: the template's parameters at their defaults but
//! for the administrator (`AdminUsername`, `AdminEmail`, and the value of the generated
//! `AdminPasswordSecret`, as an operator would set them) and what a case asks for, on the
//! emulators of `infra/emulators/with-emulators.sh` and the builds of `make stack-build`. What
//! differs from AWS on purpose: queues redeliver after 3 s instead of their visibility timeout (still
//! longer than the mapping's batching window and a handling, as AWS asks of a queue),
//! the event source mappings poll only once the case starts them (as the other targets' queues
//! wait for their worker), and every AWS call takes 10 ms more, as in a region (so the calls a
//! function makes together overlap as they would there: the debug builds sign and send them
//! more slowly than the emulators answer).

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use anyhow::{Context, Result};

use crate::{clients::Emulators, StackOptions};

/// The repository (the template, the builds, cargo-lambda's workspace).
pub fn workspace() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.join("../..").canonicalize().unwrap_or(here)
}

/// Options of a test's stack: administrator `admin` (user name, password, e-mail) and the
/// parameter values `parameters`.
pub fn options(admin: (&str, &str, &str), parameters: &[(&str, &str)]) -> Result<StackOptions> {
    let workspace = workspace();
    let name = format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let mut overrides = BTreeMap::from([
        ("AdminUsername".to_string(), admin.0.to_string()),
        ("AdminEmail".to_string(), admin.2.to_string()),
    ]);
    overrides.extend(parameters.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Ok(StackOptions {
        template: workspace.join("template.yaml"),
        functions_dir: std::env::var_os("BLOG_STACK_FUNCTIONS_DIR")
            .map_or_else(|| workspace.join("target/stack"), PathBuf::from),
        state_dir: workspace.join("target/stack/run").join(&name),
        workspace,
        name,
        parameters: overrides,
        secret_values: BTreeMap::from([("AdminPasswordSecret".into(), admin.1.to_string())]),
        listen: "127.0.0.1:0".parse()?,
        schedule_period: None,
        visibility_timeout: Some(3),
        existing: BTreeMap::new(),
        event_sources_enabled: false,
        max_instances: 4,
        aws_latency: Duration::from_millis(10),
        echo: false,
        emulators: Emulators::from_env().context("the emulators (make test starts them)")?,
    })
}
