//! A function's environment: the template's variables (Globals merged, intrinsics resolved),
//! what Lambda itself sets in every execution environment, and, standing in for AWS's
//! network, the SDK's endpoint variables pointing at the function's own AWS endpoint.

use std::{net::SocketAddr, path::Path};

use anyhow::{bail, Context, Result};

use crate::template::{
    intrinsics::{Physical, Resolver, REGION},
    number, FunctionSpec,
};

/// Variables Lambda reserves: a function may not set them (Lambda refuses the deployment).
const RESERVED: [&str; 18] = [
    "_HANDLER",
    "_X_AMZN_TRACE_ID",
    "AWS_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_DEFAULT_REGION",
    "AWS_EXECUTION_ENV",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_NAME",
    "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_LOG_GROUP_NAME",
    "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_LAMBDA_RUNTIME_API",
    "AWS_REGION",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "LAMBDA_RUNTIME_DIR",
    "LAMBDA_TASK_ROOT",
];

/// Lambda's limit on the size of a function's variables (names and values).
const MAX_VARIABLES_BYTES: usize = 4096;

/// The template's own variables of `spec`, resolved, checked as Lambda checks them.
pub fn template_variables(
    spec: &FunctionSpec,
    resolver: &Resolver,
) -> Result<Vec<(String, String)>> {
    let mut variables = vec![];
    for (name, value) in &spec.environment {
        if RESERVED.contains(&name.as_str()) {
            bail!("{} sets {name}, which Lambda reserves", spec.logical_id);
        }
        let value = resolver
            .string(value)
            .with_context(|| format!("{}: variable {name}", spec.logical_id))?;
        variables.push((name.clone(), plain_http_locally(value)));
    }
    let size: usize = variables.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size > MAX_VARIABLES_BYTES {
        bail!("{}: the variables take {size} bytes, over Lambda's 4 KB", spec.logical_id);
    }
    Ok(variables)
}

/// A URL of something the stack serves on 127.0.0.1 (an emulated distribution, whose
/// `DomainName` is `127.0.0.1:<port>`) that the template writes as `https://`: the stack serves
/// plain HTTP.
fn plain_http_locally(value: String) -> String {
    match value.strip_prefix("https://127.0.0.1:") {
        Some(rest) => format!("http://127.0.0.1:{rest}"),
        None => value,
    }
}

/// Everything an instance of `spec` starts with, but the per-instance runtime variables.
pub fn instance_environment(
    spec: &FunctionSpec,
    resolver: &Resolver,
    physical: &Physical,
    bootstrap: &Path,
    endpoint: SocketAddr,
) -> Result<Vec<(String, String)>> {
    let template = template_variables(spec, resolver)?;
    let memory = number(&resolver.resolve(&spec.memory)?)?;
    let name = &physical.reference;
    let task_root = bootstrap.parent().unwrap_or(Path::new(".")).display().to_string();
    let endpoint = format!("http://{endpoint}");
    let lambda = [
        ("AWS_LAMBDA_FUNCTION_NAME", name.clone()),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".into()),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory.to_string()),
        ("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}")),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".into()),
        ("AWS_REGION", REGION.into()),
        ("AWS_DEFAULT_REGION", REGION.into()),
        // The execution role's credentials; the emulators accept these.
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("_HANDLER", "bootstrap".into()),
        ("LAMBDA_TASK_ROOT", task_root),
        ("TZ", ":UTC".into()),
        ("LANG", "en_US.UTF-8".into()),
        ("PATH", "/usr/local/bin:/usr/bin/:/bin:/opt/bin".into()),
        // AWS's network: every service the functions reach, through the function's endpoint.
        ("AWS_ENDPOINT_URL_DYNAMODB", endpoint.clone()),
        ("AWS_ENDPOINT_URL_SQS", endpoint.clone()),
        ("AWS_ENDPOINT_URL_S3", endpoint.clone()),
        ("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint.clone()),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", endpoint),
    ];
    // The template's own variables come last: they win over what is not reserved (PATH).
    let mut variables: Vec<(String, String)> =
        lambda.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    variables.retain(|(name, _)| !template.iter().any(|(t, _)| t == name));
    variables.extend(template);
    Ok(variables)
}
