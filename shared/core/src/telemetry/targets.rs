//! The loggers the actuator may set: this service's module paths, the targets and crates it
//! logs through, and prefixes of those; and how many levels may be stored. Any other name is
//! refused, so the stored levels every instance re-reads stay few.

mod modules;

pub use modules::MODULES;

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
        for known in ["blog_articles", "blog_articles::store", "blog_core::ports::table::dynamodb"]
        {
            assert!(is_known(known), "{known}");
        }
        assert!(is_known("aws_sdk_dynamodb") && is_known("blog") && is_known("blog::notification"));
        for unknown in ["junk1", "blog_articles::nothing", "blog_core::port", "aws_sdk_dynamodb::x"]
        {
            assert!(!is_known(unknown), "{unknown}");
        }
    }

    #[test]
    fn every_crate_of_the_workspace_that_runs_is_known() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
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

    /// The module paths of every library crate under shared/, as the files lay them out.
    fn module_paths_on_disk() -> Vec<String> {
        fn walk(dir: &std::path::Path, prefix: &str, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    let module = format!("{prefix}::{name}");
                    walk(&path, &module, found);
                    found.push(module);
                } else if let Some(stem) = name.strip_suffix(".rs") {
                    if !["mod", "lib", "main", "tests"].contains(&stem) && !stem.ends_with("_tests")
                    {
                        found.push(format!("{prefix}::{stem}"));
                    }
                }
            }
        }
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&shared).unwrap().flatten() {
            let src = entry.path().join("src");
            if src.join("lib.rs").exists() {
                let name =
                    format!("blog_{}", entry.file_name().to_string_lossy().replace('-', "_"));
                walk(&src, &name, &mut found);
                found.push(name);
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// `BLOG_WRITE_MODULES=1` (`make generate`) rewrites modules.rs from the files.
    #[test]
    fn the_committed_module_list_is_the_workspaces_modules() {
        let on_disk = module_paths_on_disk();
        if std::env::var_os("BLOG_WRITE_MODULES").is_some() {
            let list: String = on_disk.iter().map(|module| format!("    {module:?},\n")).collect();
            let code = format!(
                "//! Module paths of the library crates under shared/ (`make generate` writes it).\n\n\
                 /// Module paths of the service's library crates.\n\
                 pub const MODULES: &[&str] = &[\n{list}];\n"
            );
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/telemetry/targets/modules.rs");
            std::fs::write(path, code).unwrap();
            return;
        }
        assert_eq!(MODULES, on_disk, "run `make generate` to rewrite telemetry/targets/modules.rs");
    }
}
