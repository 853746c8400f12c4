//! The loggers the actuator may set: this service's module paths, the targets and crates it
//! logs through, and prefixes of those; and how many levels may be stored. Any other name is
//! refused, so the stored levels every instance re-reads stay few.

include!(concat!(env!("OUT_DIR"), "/modules.rs"));

/// Crates whose events the service's processes log: the function binaries and the gateway,
/// the AWS SDK, the Lambda runtime and the HTTP stack, the embedded table.
pub const CRATES: &[&str] = &[
    "auth",
    "users",
    "categories",
    "tags",
    "articles",
    "admin_articles",
    "comments",
    "admin_comments",
    "worker",
    "outbox_sweep",
    "files",
    "ops",
    "local_gateway",
    "blog_gateway",
    "aws_config",
    "aws_credential_types",
    "aws_runtime",
    "aws_sigv4",
    "aws_smithy_runtime",
    "aws_smithy_runtime_api",
    "aws_smithy_http_client",
    "aws_sdk_bedrockruntime",
    "aws_sdk_dynamodb",
    "aws_sdk_s3",
    "aws_sdk_secretsmanager",
    "aws_sdk_sqs",
    "lambda_runtime",
    "lambda_http",
    "axum",
    "hyper",
    "hyper_util",
    "h2",
    "reqwest",
    "rustls",
    "tokio",
    "tower",
    "tower_http",
    "rusqlite",
];

/// Targets named in the code rather than taken from a module path.
const TARGETS: &[&str] = &["blog::notification"];

/// Most loggers that may have a level set at once.
pub const MAX_CONFIGURED: usize = 32;

/// Whether `target` (a `::` path) is a logger of the service: one of [`MODULES`], [`CRATES`]
/// or the named targets, or a prefix of one at a `::` boundary.
pub fn is_known(target: &str) -> bool {
    MODULES.iter().chain(CRATES).chain(TARGETS).any(|known| {
        *known == target || known.strip_prefix(target).is_some_and(|rest| rest.starts_with("::"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_crates_and_their_prefixes_are_known_and_nothing_else() {
        for known in ["blog_shared", "blog_shared::articles", "blog_shared::ports::table::dynamodb"]
        {
            assert!(is_known(known), "{known}");
        }
        assert!(is_known("aws_sdk_dynamodb") && is_known("blog") && is_known("blog::notification"));
        for unknown in ["junk1", "blog_shared::nothing", "blog_shared::art", "aws_sdk_dynamodb::x"]
        {
            assert!(!is_known(unknown), "{unknown}");
        }
    }

    #[test]
    fn every_crate_of_the_workspace_that_runs_is_known() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let members = workspace.lines().filter_map(|line| {
            let member = line.trim().strip_prefix('"')?.strip_suffix("\",")?;
            (member.starts_with("functions/") || member == "infra/gateway").then_some(member)
        });
        let mut seen = 0;
        for member in members {
            let manifest = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
            let names = manifest.lines().filter_map(|line| line.strip_prefix("name = "));
            for name in names.map(|name| name.trim_matches('"').replace('-', "_")) {
                assert!(is_known(&name), "{member}: {name} is missing from CRATES");
                seen += 1;
            }
        }
        assert!(seen >= 11, "read the workspace's members ({seen})");
    }
}
