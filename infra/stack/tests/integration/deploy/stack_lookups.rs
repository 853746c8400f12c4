//! smoke and destroy finding their config env's stack, its outputs, secrets and retained
//! resources on moto (under infra/emulators/with-emulators.sh).

use std::process::Command;

use serde_json::{json, Value};

use super::{python, strings, Operator, FIRST};

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
