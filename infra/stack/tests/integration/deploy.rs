//! `make deploy` (infra/deploy/deploy.sh, in its dry run): guided the first time, from
//! samconfig.toml afterwards, the same architecture for the build and the deployment, and a
//! given ARCH changes that parameter only.

use std::process::Command;

fn dry_run(samconfig: &std::path::Path, arch: Option<&str>) -> String {
    let script = blog_stack::testing::workspace().join("infra/deploy/deploy.sh");
    let mut command = Command::new(script);
    command.env("DRY_RUN", "1").env("SAMCONFIG", samconfig).env_remove("ARCH");
    if let Some(arch) = arch {
        command.env("ARCH", arch);
    }
    let output = command.output().expect("the script runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_first_deployment_is_guided_and_builds_for_the_template_default() {
    let dir = tempfile::tempdir().unwrap();
    let printed = dry_run(&dir.path().join("samconfig.toml"), None);
    assert!(printed.contains("sam build --parameter-overrides Architecture=arm64"), "{printed}");
    assert!(printed.contains("sam deploy --guided --parameter-overrides Architecture=arm64"));
}

#[test]
fn later_deployments_keep_the_saved_parameters_and_the_architecture_they_were_built_for() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("samconfig.toml");
    std::fs::write(
        &config,
        "version = 0.1\n[default.deploy.parameters]\nstack_name = \"blog\"\n\
         parameter_overrides = \"Architecture=\\\"x86_64\\\" AdminUsername=\\\"admin\\\" \
         AdminEmail=\\\"a@example.com\\\"\"\n",
    )
    .unwrap();
    let saved = dry_run(&config, None);
    assert!(saved.contains("sam build --parameter-overrides Architecture=x86_64"), "{saved}");
    let deploy = saved.lines().find(|l| l.contains("sam deploy")).unwrap();
    assert!(!deploy.contains("--guided"), "{deploy}");
    assert!(deploy.contains("Architecture=x86_64 AdminUsername=admin AdminEmail=a@example.com"));
    let switched = dry_run(&config, Some("arm64"));
    assert!(switched.contains("sam build --parameter-overrides Architecture=arm64"), "{switched}");
    assert!(switched.contains("Architecture=arm64 AdminUsername=admin AdminEmail=a@example.com"));
}
