//! Config envs: a second one deploys its own stack beside the default's, a section a guided
//! run saved deploys with its values, and smoke and destroy of a config env without a stack.

use serde_json::json;

use super::{sam_build, sam_deploy, strings, Operator, FIRST};

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
