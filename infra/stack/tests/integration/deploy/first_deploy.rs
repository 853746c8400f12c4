//! A first deployment: its answers from the environment and saved, the ones missing or
//! malformed refused before anything runs, and a dry run.

use serde_json::{json, Value};

use super::{sam_build, sam_deploy, strings, workspace, Operator, FIRST};

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
