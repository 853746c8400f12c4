//! `make deploy`, `make destroy` and `make smoke` without URL (infra/deploy/deploy.sh running
//! infra/deploy/deploy.py on the SAM CLI's Python). Each operator here has stand-ins for `sam`,
//! `rustup` and `blog-smoke` that record how they were called, a samconfig.toml of its own, and
//! no terminal; what is saved is read back with the SAM CLI's own samconfig reader. The stack
//! lookups of smoke and destroy talk to moto (the two cases marked as needing the emulators).

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::{json, Value};

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

#[test]
fn a_first_deploy_without_a_terminal_takes_its_answers_from_the_environment_and_saves_them() {
    let operator = Operator::new();
    let config = operator.samconfig();
    let run = operator.run(&[], &FIRST).succeeded();
    assert_eq!(
        run.of("rustup"),
        vec![
            strings(&["target", "list", "--installed"]),
            strings(&["target", "add", "aarch64-unknown-linux-gnu"])
        ]
    );
    let parameters = [
        "Architecture=arm64",
        "AdminUsername=admin",
        "AdminEmail=ops@blog.test",
        "SiteUrl=https://blog.test",
    ];
    assert_eq!(
        run.of("sam"),
        vec![
            sam_build(&config, "default", "arm64"),
            sam_deploy(&config, "default", "blog", "eu-west-1", &parameters)
        ]
    );
    for call in run.calls.iter().filter(|call| call["program"] == "sam") {
        assert_eq!(call["cwd"], json!(workspace()), "sam runs beside template.yaml");
        assert_eq!(call["env"]["SAM_CLI_BETA_RUST_CARGO_LAMBDA"], "1");
        assert_eq!(call["path"], json!(workspace().join(".tools/venv/bin")), "cargo-lambda, zig");
    }
    assert!(run.stdout.contains("first deployment of config env default: stack blog in eu-west-1"));
    // Saved before the build, what `sam deploy --config-env default` alone would deploy again.
    assert_eq!(
        operator.saved("default"),
        json!({
            "stack_name": "blog",
            "region": "eu-west-1",
            "s3_prefix": "blog",
            "resolve_s3": true,
            "capabilities": "CAPABILITY_IAM",
            "confirm_changeset": false,
            "fail_on_empty_changeset": false,
            "parameter_overrides": {
                "Architecture": "arm64",
                "AdminUsername": "admin",
                "AdminEmail": "ops@blog.test",
                "SiteUrl": "https://blog.test"
            }
        })
    );

    // The next deployment asks nothing and deploys the same.
    let again = operator.run(&[], &[]).succeeded();
    assert_eq!(again.of("sam"), run.of("sam"));
}

#[test]
fn a_second_config_env_deploys_its_own_stack_and_leaves_the_default_alone() {
    let operator = Operator::new();
    let config = operator.samconfig();
    operator.run(&[], &FIRST).succeeded();
    let default = operator.saved("default");

    // Its region from the AWS environment, its stack name the config env's default.
    let prod = operator
        .run(
            &[],
            &[
                ("CONFIG_ENV", "prod"),
                ("AWS_REGION", "eu-central-1"),
                ("ADMIN_USERNAME", "chief"),
                ("ADMIN_EMAIL", "chief@blog.test"),
                ("SITE_URL", "https://www.blog.test/"),
                ("ARCH", "x86_64"),
                ("PARAMS", "SiteDescription=\"What the chief writes\" LogLevel=warn"),
            ],
        )
        .succeeded();
    let parameters = [
        "SiteDescription=\"What the chief writes\"",
        "LogLevel=warn",
        "Architecture=x86_64",
        "AdminUsername=chief",
        "AdminEmail=chief@blog.test",
        "SiteUrl=https://www.blog.test/",
    ];
    assert_eq!(
        prod.of("sam"),
        vec![
            sam_build(&config, "prod", "x86_64"),
            sam_deploy(&config, "prod", "blog-prod", "eu-central-1", &parameters)
        ]
    );
    assert_eq!(prod.of("rustup")[1], strings(&["target", "add", "x86_64-unknown-linux-gnu"]));
    assert_eq!(operator.saved("default"), default, "the default config env is untouched");
    let saved = operator.saved("prod");
    assert_eq!(saved["stack_name"], "blog-prod");
    assert_eq!(saved["region"], "eu-central-1");
    assert_eq!(saved["parameter_overrides"]["SiteDescription"], "What the chief writes");

    // Each config env deploys again from its own section, without a question.
    assert_eq!(operator.run(&[], &[("CONFIG_ENV", "prod")]).succeeded().of("sam"), prod.of("sam"));
    let parameters = [
        "Architecture=arm64",
        "AdminUsername=admin",
        "AdminEmail=ops@blog.test",
        "SiteUrl=https://blog.test",
    ];
    assert_eq!(
        operator.run(&[], &[]).succeeded().of("sam")[1],
        sam_deploy(&config, "default", "blog", "eu-west-1", &parameters)
    );
}

#[test]
fn a_first_deploy_without_an_email_or_a_site_url_names_the_variables_to_set() {
    let operator = Operator::new();
    let none = operator.run(&[], &[("REGION", "eu-west-1")]).refused();
    assert!(none.stderr.contains("set ADMIN_EMAIL, SITE_URL (make deploy"), "{}", none.stderr);
    let email = operator.run(&[], &[("REGION", "eu-west-1"), ("SITE_URL", "https://blog.test")]);
    let email = email.refused();
    assert!(email.stderr.contains("set ADMIN_EMAIL ("), "{}", email.stderr);
    assert!(email.stderr.contains("e-mail address, required (no terminal"), "{}", email.stderr);
    let site = operator.run(&[], &[("REGION", "eu-west-1"), ("ADMIN_EMAIL", "ops@blog.test")]);
    let site = site.refused();
    assert!(site.stderr.contains("set SITE_URL ("), "{}", site.stderr);
    // No region in the environment nor in an AWS configuration: REGION.
    let region = operator.run(&[], &[("CONFIG_ENV", "prod")]).refused();
    assert!(
        region.stderr.contains(
            "set REGION, ADMIN_EMAIL, SITE_URL (make deploy CONFIG_ENV=prod REGION=... \
             ADMIN_EMAIL=... SITE_URL=...)"
        ),
        "{}",
        region.stderr
    );
    assert!(!operator.samconfig().exists(), "nothing is saved");
}

#[test]
fn malformed_answers_are_refused_before_anything_runs() {
    let operator = Operator::new();
    let run = operator
        .run(
            &[],
            &[
                ("STACK_NAME", "1blog"),
                ("REGION", "Frankfurt"),
                ("ADMIN_USERNAME", "the admin"),
                ("ADMIN_EMAIL", "ops@blog"),
                ("SITE_URL", "blog.test"),
                ("ARCH", "sparc"),
                ("PARAMS", "SiteUrl=https://blog.test"),
            ],
        )
        .refused();
    for expected in [
        "set STACK_NAME, REGION, ADMIN_USERNAME, ADMIN_EMAIL, SITE_URL, ARCH, PARAMS (",
        "STACK_NAME: '1blog' (STACK_NAME) is not a stack name",
        "REGION: 'Frankfurt' (REGION) is not a region name",
        "ADMIN_USERNAME: 'the admin' (ADMIN_USERNAME) is not a user name",
        "ADMIN_EMAIL: 'ops@blog' (ADMIN_EMAIL) is not an e-mail address",
        "SITE_URL: 'blog.test' (SITE_URL) is not an absolute http(s) URL",
        "ARCH: 'sparc' (ARCH) is neither arm64 nor x86_64",
        "PARAMS: sets SiteUrl: give it as SITE_URL",
    ] {
        assert!(run.stderr.contains(expected), "{expected}: {}", run.stderr);
    }
    // The template's placeholder site is no answer either.
    let placeholder = [FIRST[0], FIRST[2], ("SITE_URL", "https://blog.example.com/")];
    let run = operator.run(&[], &placeholder).refused();
    assert!(run.stderr.contains("is template.yaml's placeholder"), "{}", run.stderr);
    let run = operator.run(&[], &[FIRST[0], FIRST[1], FIRST[2], ("CONFIG_ENV", "p r o d")]);
    assert!(run.refused().stderr.contains("CONFIG_ENV='p r o d': letters, digits"));
    assert!(!operator.samconfig().exists(), "nothing is saved");
}

#[test]
fn a_config_saved_by_a_guided_run_deploys_with_its_values_and_the_architecture_it_was_built_for() {
    let operator = Operator::new();
    let config = operator.samconfig();
    // What `sam deploy --guided` wrote: the template's empty administrator and placeholder site,
    // a resolved bucket, and a confirmation of each change set.
    std::fs::write(
        &config,
        r#"version = 0.1
[default.deploy.parameters]
stack_name = "my-blog"
s3_bucket = "aws-sam-cli-managed-default-samclisourcebucket-1a2b3c"
s3_prefix = "my-blog"
region = "us-east-2"
confirm_changeset = true
capabilities = "CAPABILITY_IAM"
parameter_overrides = "Architecture=\"x86_64\" AdminUsername=\"\" AdminEmail=\"\" SiteUrl=\"https://blog.example.com\" SiteDescription=\"The latest articles\""
image_repositories = []
"#,
    )
    .unwrap();
    let refused = operator.run(&[], &[]).refused();
    assert!(refused.stderr.contains("set ADMIN_EMAIL, SITE_URL ("), "{}", refused.stderr);

    let answers = [("ADMIN_EMAIL", "me@my-blog.test"), ("SITE_URL", "https://my-blog.test")];
    let run = operator.run(&[], &answers).succeeded();
    let deploy = |arch: &str| {
        let mut args = strings(&[
            "deploy",
            "--config-file",
            config.to_str().unwrap(),
            "--config-env",
            "default",
            "--stack-name",
            "my-blog",
            "--region",
            "us-east-2",
            "--capabilities",
            "CAPABILITY_IAM",
            "--s3-bucket",
            "aws-sam-cli-managed-default-samclisourcebucket-1a2b3c",
            "--s3-prefix",
            "my-blog",
            "--confirm-changeset",
            "--no-fail-on-empty-changeset",
            "--parameter-overrides",
        ]);
        args.extend(strings(&[
            &format!("Architecture={arch}"),
            "AdminUsername=admin",
            "AdminEmail=me@my-blog.test",
            "SiteUrl=https://my-blog.test",
            "SiteDescription=\"The latest articles\"",
        ]));
        args
    };
    assert_eq!(run.of("sam"), vec![sam_build(&config, "default", "x86_64"), deploy("x86_64")]);
    let saved = operator.saved("default");
    assert_eq!(saved["image_repositories"], json!([]), "what the script does not set is kept");
    assert_eq!(saved.get("resolve_s3"), None, "sam refuses it beside s3_bucket");

    // A given ARCH changes the Architecture parameter only, and is saved.
    let switched = operator.run(&[], &[("ARCH", "arm64")]).succeeded();
    assert_eq!(switched.of("sam"), vec![sam_build(&config, "default", "arm64"), deploy("arm64")]);
    assert_eq!(operator.run(&[], &[]).succeeded().of("sam")[1], deploy("arm64"));
}

#[test]
fn a_dry_run_prints_the_commands_and_neither_runs_nor_saves_anything() {
    let operator = Operator::new();
    let run = operator.run(&[], &[FIRST[0], FIRST[1], FIRST[2], ("DRY_RUN", "1")]).succeeded();
    assert_eq!(run.calls, Vec::<Value>::new());
    let sam = operator.path("sam");
    let sam = sam.to_str().unwrap();
    assert!(run.stdout.contains(&format!("{sam} build --config-file ")), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "--parameter-overrides Architecture=arm64 AdminUsername=admin \
             AdminEmail=ops@blog.test SiteUrl=https://blog.test"
        ),
        "{}",
        run.stdout
    );
    assert!(!operator.samconfig().exists());
}

#[test]
fn destroy_and_smoke_without_a_saved_stack_name_the_config_env_to_deploy() {
    let operator = Operator::new();
    operator.run(&[], &FIRST).succeeded();
    for step in ["destroy", "smoke"] {
        let args = if step == "smoke" { vec![step, "blog-smoke"] } else { vec![step] };
        let run = operator.run(&args, &[("CONFIG_ENV", "staging")]).refused();
        assert!(
            run.stderr.contains(
                "no stack saved in samconfig.toml [staging.deploy.parameters]: make deploy \
                 CONFIG_ENV=staging deploys one"
            ),
            "{step}: {}",
            run.stderr
        );
    }
}

/// A stack on moto shaped like template.yaml's where it matters here: a retained table and
/// bucket, a deleted queue, the parameter AdminUsername, and the outputs ApiUrl,
/// AdminPasswordSecretArn and ActuatorTokenSecretArn. moto's CloudFormation makes no secret,
/// so the two secrets are made beside the stack and their ARNs given to it as parameters.
/// Prints the physical names of the stack's resources by logical name.
const CREATE_STACK: &str = r#"
import json, sys, boto3
stack, region, username, password, token = sys.argv[1:6]
TEMPLATE = """
Parameters:
  AdminUsername: {Type: String}
  AdminPasswordSecretArn: {Type: String}
  ActuatorTokenSecretArn: {Type: String}
Resources:
  BlogTable:
    Type: AWS::DynamoDB::Table
    DeletionPolicy: Retain
    UpdateReplacePolicy: Retain
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
  UploadsBucket:
    Type: AWS::S3::Bucket
    DeletionPolicy: Retain
    UpdateReplacePolicy: Retain
  EventsQueue:
    Type: AWS::SQS::Queue
    DeletionPolicy: Delete
Outputs:
  ApiUrl:
    Value: !Sub "https://${AWS::StackName}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
  AdminPasswordSecretArn:
    Value: !Ref AdminPasswordSecretArn
  ActuatorTokenSecretArn:
    Value: !Ref ActuatorTokenSecretArn
"""
secrets = boto3.client("secretsmanager", region_name=region)
admin = secrets.create_secret(Name=f"{stack}-admin", SecretString=password)["ARN"]
actuator = secrets.create_secret(Name=f"{stack}-actuator", SecretString=token)["ARN"]
cloudformation = boto3.client("cloudformation", region_name=region)
parameters = {"AdminUsername": username, "AdminPasswordSecretArn": admin,
              "ActuatorTokenSecretArn": actuator}
cloudformation.create_stack(StackName=stack, TemplateBody=TEMPLATE, Parameters=[
    {"ParameterKey": key, "ParameterValue": value} for key, value in parameters.items()])
resources = cloudformation.list_stack_resources(StackName=stack)["StackResourceSummaries"]
print(json.dumps({each["LogicalResourceId"]: each["PhysicalResourceId"] for each in resources}))
"#;

fn moto() -> String {
    std::env::var("BLOG_TEST_SQS_ENDPOINT")
        .expect("BLOG_TEST_SQS_ENDPOINT (moto): run under infra/emulators/with-emulators.sh")
}

/// Creates a stack on moto with [`CREATE_STACK`]; the physical names of its resources.
fn create_stack(stack: &str, region: &str, admin: (&str, &str), token: &str) -> Value {
    let output = Command::new(python())
        .args(["-c", CREATE_STACK, stack, region, admin.0, admin.1, token])
        .env("AWS_ENDPOINT_URL", moto())
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A stack name no other run on the same moto uses.
fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
}

#[test]
#[ignore = "needs the emulators (moto); make test runs it"]
fn smoke_reads_the_url_the_administrator_and_the_secrets_of_its_config_envs_stack() {
    let operator = Operator::new();
    let (dev, prod) = (unique("blog"), unique("blog-prod"));
    operator.run(&[], &[FIRST[0], FIRST[1], FIRST[2], ("STACK_NAME", &dev)]).succeeded();
    let answers = [
        ("CONFIG_ENV", "prod"),
        ("STACK_NAME", &prod),
        ("REGION", "eu-central-1"),
        ("ADMIN_USERNAME", "chief"),
        ("ADMIN_EMAIL", "chief@blog.test"),
        ("SITE_URL", "https://www.blog.test"),
    ];
    operator.run(&[], &answers).succeeded();
    create_stack(&dev, "eu-west-1", ("admin", "DevPassw0rd1"), "dev-token-0123456789");
    create_stack(&prod, "eu-central-1", ("chief", "ProdPassw0rd1"), "prod-token-0123456789");

    let endpoint = moto();
    // The Makefile's local administrator is in the environment: the stack's replaces it.
    let env = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("BLOG_ADMIN_USERNAME", "admin"),
        ("BLOG_ADMIN_PASSWORD", "Admin12345"),
    ];
    let smoke = operator.path("blog-smoke");
    let command = ["smoke", smoke.to_str().unwrap(), "--timeout", "5"];
    let run = operator.run(&command, &[env[0], env[1], env[2], ("CONFIG_ENV", "prod")]);
    let run = run.succeeded();
    let url = format!("https://{prod}.execute-api.eu-central-1.amazonaws.com");
    assert_eq!(run.of("blog-smoke"), vec![strings(&["--timeout", "5", "--url", &url])]);
    assert_eq!(
        run.calls[0]["env"],
        json!({
            "SAM_CLI_BETA_RUST_CARGO_LAMBDA": "1",
            "BLOG_ADMIN_USERNAME": "chief",
            "BLOG_ADMIN_PASSWORD": "ProdPassw0rd1",
            "BLOG_ACTUATOR_TOKEN": "prod-token-0123456789"
        })
    );
    let named = format!("[smoke] stack {prod} in eu-central-1 (config env prod)");
    assert!(run.stdout.contains(&named), "{}", run.stdout);
    assert!(!run.stdout.contains("ProdPassw0rd1") && !run.stderr.contains("ProdPassw0rd1"));

    let run = operator.run(&command, &env).succeeded();
    let url = format!("https://{dev}.execute-api.eu-west-1.amazonaws.com");
    assert_eq!(run.of("blog-smoke"), vec![strings(&["--timeout", "5", "--url", &url])]);
    assert_eq!(run.calls[0]["env"]["BLOG_ADMIN_PASSWORD"], "DevPassw0rd1");
}

#[test]
#[ignore = "needs the emulators (moto); make test runs it"]
fn destroy_names_its_config_envs_stack_and_prints_how_to_remove_what_it_keeps() {
    let operator = Operator::new();
    let (dev, prod) = (unique("blog"), unique("blog-prod"));
    let region = ("REGION", "eu-central-1");
    operator.run(&[], &[FIRST[0], FIRST[1], region, ("STACK_NAME", &dev)]).succeeded();
    let answers = [FIRST[0], FIRST[1], region, ("CONFIG_ENV", "prod"), ("STACK_NAME", &prod)];
    operator.run(&[], &answers).succeeded();
    let kept = create_stack(&prod, "eu-central-1", ("chief", "ProdPassw0rd1"), "token-0123456789");
    let other = create_stack(&dev, "eu-central-1", ("admin", "DevPassw0rd1"), "token-9876543210");
    let (table, bucket) =
        (kept["BlogTable"].as_str().unwrap(), kept["UploadsBucket"].as_str().unwrap());

    let endpoint = moto();
    let env = [("CONFIG_ENV", "prod"), ("AWS_ENDPOINT_URL", endpoint.as_str())];
    let delete = strings(&[
        "delete",
        "--stack-name",
        &prod,
        "--region",
        "eu-central-1",
        "--config-file",
        operator.samconfig().to_str().unwrap(),
        "--config-env",
        "prod",
    ]);
    // The operator answers no to sam delete's question: the stack stays, no removal is printed.
    let declined = operator.run(&["destroy"], &env).succeeded();
    assert_eq!(declined.of("sam"), vec![delete.clone()]);
    let named = format!("[destroy] stack {prod} in eu-central-1 (config env prod)");
    assert!(declined.stdout.contains(&named), "{}", declined.stdout);
    assert!(declined.stdout.contains(&format!("kept: BlogTable {table} (DeletionPolicy: Retain)")));
    assert!(declined.stdout.contains(&format!("{prod} was not deleted (CREATE_COMPLETE)")));
    assert!(!declined.stdout.contains("aws dynamodb delete-table"), "{}", declined.stdout);

    let deleted = operator.run(&["destroy"], &[env[0], env[1], ("STANDIN_DELETES", "1")]);
    let deleted = deleted.succeeded();
    assert_eq!(deleted.of("sam"), vec![delete]);
    for removal in [
        format!("  aws dynamodb delete-table --region eu-central-1 --table-name {table}\n"),
        format!("  aws s3 rb --region eu-central-1 --force s3://{bucket}\n"),
    ] {
        assert!(deleted.stdout.contains(&removal), "{removal}: {}", deleted.stdout);
    }
    assert!(!deleted.stdout.contains("EventsQueue"), "{}", deleted.stdout);
    assert!(!deleted.stdout.contains(other["BlogTable"].as_str().unwrap()));

    // Gone now: a second destroy says so.
    let again = operator.run(&["destroy"], &env);
    assert_eq!(again.code, Some(1), "{}", again.stderr);
    assert!(again.stderr.contains(&format!("there is no stack {prod} in eu-central-1")));
}
