//! `make deploy`, `make destroy` and `make smoke` without URL (infra/deploy/deploy.sh running
//! infra/deploy/deploy.py on the SAM CLI's Python). Each operator here has stand-ins for `sam`,
//! `rustup` and `blog-smoke` that record how they were called, a samconfig.toml of its own, and
//! no terminal; what is saved is read back with the SAM CLI's own samconfig reader. The stack
//! lookups of smoke and destroy talk to moto (the two cases marked as needing the emulators).
//!
//! By topic: [`first_deploy`] (the answers of a first deployment, refused ones and a dry run),
//! [`config_envs`] (config envs side by side, a section a guided run saved) and
//! [`stack_lookups`] (smoke and destroy finding their stack).

mod config_envs;
mod first_deploy;
mod stack_lookups;

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

/// The SAM CLI's interpreter: the script's, the stand-ins' and the samconfig reader's.
fn python() -> PathBuf {
    let python = blog_stack::testing::workspace().join(".tools/sam/bin/python");
    assert!(
        python.exists(),
        "{} is missing: `make tools` (or `make deploy-tools`) installs it",
        python.display()
    );
    python
}

/// The stand-in of `sam`, `rustup` and `blog-smoke`: appends one JSON line per call (the
/// program, its arguments, its directory, the first PATH entry and the variables the script
/// sets for it) and prints nothing, so `rustup target list --installed` lists no target. Its
/// `sam delete` deletes the stack, as sam would after its question, when STANDIN_DELETES=1.
const STANDIN: &str = r#"
import json, os, sys
program, args = sys.argv[1], sys.argv[2:]
seen = ("SAM_CLI_BETA_RUST_CARGO_LAMBDA", "BLOG_ADMIN_USERNAME", "BLOG_ADMIN_PASSWORD",
        "BLOG_ACTUATOR_TOKEN")
call = {"program": program, "args": args, "cwd": os.getcwd(),
        "path": os.environ["PATH"].split(os.pathsep)[0],
        "env": {name: os.environ.get(name) for name in seen}}
with open(os.environ["STANDIN_RECORD"], "a") as record:
    record.write(json.dumps(call) + "\n")
if program == "sam" and args[:1] == ["delete"] and os.environ.get("STANDIN_DELETES") == "1":
    import boto3
    region, stack = args[args.index("--region") + 1], args[args.index("--stack-name") + 1]
    boto3.client("cloudformation", region_name=region).delete_stack(StackName=stack)
"#;

/// What `sam --config-env <env>` reads of samconfig.toml (the SAM CLI's reader), the parameter
/// overrides as the name-value object sam makes of them; `{}` for a config env it lacks.
const READ_CONFIG: &str = r#"
import json, sys
from pathlib import Path
from samcli.cli.types import CfnParameterOverridesType
from samcli.lib.config.samconfig import SamConfig
path, env = Path(sys.argv[1]), sys.argv[2]
section = dict(SamConfig(str(path.parent), path.name).get_all(["deploy"], "parameters", env))
if "parameter_overrides" in section:
    section["parameter_overrides"] = CfnParameterOverridesType().convert(
        section["parameter_overrides"], None, None)
print(json.dumps(section))
"#;

/// The variables the script reads: a test's run has only those it gives.
const READ: [&str; 17] = [
    "CONFIG_ENV",
    "STACK_NAME",
    "REGION",
    "ADMIN_USERNAME",
    "ADMIN_EMAIL",
    "SITE_URL",
    "ARCH",
    "PARAMS",
    "DRY_RUN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_ENDPOINT_URL",
    "BLOG_ADMIN_USERNAME",
    "BLOG_ADMIN_PASSWORD",
    "BLOG_ACTUATOR_TOKEN",
];

/// The answers of a first deployment in the environment, as CI gives them.
const FIRST: [(&str, &str); 3] =
    [("ADMIN_EMAIL", "ops@blog.test"), ("SITE_URL", "https://blog.test"), ("REGION", "eu-west-1")];

struct Operator {
    dir: tempfile::TempDir,
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    calls: Vec<Value>,
}

impl Run {
    fn succeeded(self) -> Self {
        assert_eq!(self.code, Some(0), "{}\n{}", self.stdout, self.stderr);
        self
    }

    fn refused(self) -> Self {
        assert_eq!(self.code, Some(2), "{}\n{}", self.stdout, self.stderr);
        assert_eq!(self.calls, Vec::<Value>::new(), "nothing runs: {}", self.stderr);
        self
    }

    /// The arguments of each call of `program`.
    fn of(&self, program: &str) -> Vec<Vec<String>> {
        self.calls
            .iter()
            .filter(|call| call["program"] == program)
            .map(|call| serde_json::from_value(call["args"].clone()).unwrap())
            .collect()
    }
}

impl Operator {
    fn new() -> Self {
        let python = python();
        let dir = tempfile::tempdir().unwrap();
        let standin = dir.path().join("standin.py");
        std::fs::write(&standin, STANDIN).unwrap();
        for program in ["sam", "rustup", "blog-smoke"] {
            let path = dir.path().join(program);
            let script = format!(
                "#!/bin/sh\nexec '{}' '{}' {program} \"$@\"\n",
                python.display(),
                standin.display()
            );
            std::fs::write(&path, script).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn samconfig(&self) -> PathBuf {
        self.path("samconfig.toml")
    }

    /// `infra/deploy/deploy.sh args` with `env` and no terminal; the calls the stand-ins
    /// recorded during it.
    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let record = self.path("calls.jsonl");
        let _ = std::fs::remove_file(&record);
        let mut command = Command::new(workspace().join("infra/deploy/deploy.sh"));
        command.args(args);
        for name in READ {
            command.env_remove(name);
        }
        command
            .env("SAM", self.path("sam"))
            .env("RUSTUP", self.path("rustup"))
            .env("SAMCONFIG", self.samconfig())
            .env("STANDIN_RECORD", &record)
            // No AWS configuration of the machine's: static credentials, no instance metadata.
            .env("AWS_CONFIG_FILE", self.path("no-aws-config"))
            .env("AWS_SHARED_CREDENTIALS_FILE", self.path("no-aws-credentials"))
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .envs(env.iter().copied());
        let output = command.output().expect("deploy.sh runs");
        let calls = std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            calls,
        }
    }

    /// What sam reads of config env `env` of this operator's samconfig.toml.
    fn saved(&self, env: &str) -> Value {
        let output = Command::new(python())
            .args(["-c", READ_CONFIG])
            .arg(self.samconfig())
            .arg(env)
            .env("SAM_CLI_TELEMETRY", "0")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

fn workspace() -> PathBuf {
    blog_stack::testing::workspace()
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| word.to_string()).collect()
}

/// `sam build` as the script runs it for config env `env` and architecture `arch`.
fn sam_build(config: &Path, env: &str, arch: &str) -> Vec<String> {
    let config = config.to_str().unwrap();
    let arch = format!("Architecture={arch}");
    strings(&[
        "build",
        "--config-file",
        config,
        "--config-env",
        env,
        "--parameter-overrides",
        &arch,
    ])
}

/// `sam deploy` as the script runs it for a stack whose artifacts go to SAM's managed bucket,
/// without confirming the change set.
fn sam_deploy(
    config: &Path,
    env: &str,
    stack: &str,
    region: &str,
    parameters: &[&str],
) -> Vec<String> {
    let mut args = strings(&[
        "deploy",
        "--config-file",
        config.to_str().unwrap(),
        "--config-env",
        env,
        "--stack-name",
        stack,
        "--region",
        region,
        "--capabilities",
        "CAPABILITY_IAM",
        "--resolve-s3",
        "--s3-prefix",
        stack,
        "--no-confirm-changeset",
        "--no-fail-on-empty-changeset",
        "--parameter-overrides",
    ]);
    args.extend(strings(parameters));
    args
}
