//! infra/localstack/ against template.yaml, without Docker: the resources the init script
//! creates have the template's definitions, the `sam local` parameter overrides and env file
//! name only what the template declares, and the environment SAM builds from them (checked
//! through the service's own configuration) points every function at those resources on
//! LocalStack. A change to the template's table or queues, or a variable renamed in the
//! template or the code, fails here until infra/localstack/ follows.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use blog_api::config::{Config, EmbedderKind, SecretSource, StoreKind};
use blog_stack::{
    existing::LOCALSTACK_RESOURCES,
    template::{
        intrinsics::{Physical, Resolver},
        Parameters, Template,
    },
};
use serde_json::Value;

/// Table properties a local run does without.
const NOT_REPRODUCED: [&str; 1] = ["PointInTimeRecoverySpecification"];

/// The endpoint variables and the parameters that feed them through Globals.
const ENDPOINTS: [(&str, &str); 5] = [
    ("BLOG_DYNAMODB_ENDPOINT", "DynamoDbEndpoint"),
    ("BLOG_S3_ENDPOINT", "S3Endpoint"),
    ("BLOG_SQS_ENDPOINT", "SqsEndpoint"),
    ("BLOG_SECRETSMANAGER_ENDPOINT", "SecretsManagerEndpoint"),
    ("BLOG_BEDROCK_ENDPOINT", "BedrockEndpoint"),
];

fn path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative)
}

fn text(relative: &str) -> String {
    std::fs::read_to_string(path(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn template() -> Template {
    Template::load(&path("template.yaml")).expect("template.yaml")
}

fn resource(file: &str) -> Value {
    let name = format!("infra/localstack/resources/{file}");
    serde_json::from_str(&text(&name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("{key} is not a string in {value}"))
}

/// The string `key` of the request file `file`.
fn named(file: &str, key: &str) -> String {
    str_of(&resource(file), key).to_string()
}

fn properties(template: &Template, logical_id: &str) -> Value {
    template.resource(logical_id).unwrap_or_else(|| panic!("no {logical_id}"))["Properties"].clone()
}

/// `KEY=VALUE` lines without whitespace of an infra/localstack file; `#` lines are comments
/// where `comments` allows them.
fn key_values(file: &str, comments: bool) -> BTreeMap<String, String> {
    let text = text(&format!("infra/localstack/{file}"));
    let lines = text.lines().filter(|line| !(line.is_empty() || comments && line.starts_with('#')));
    lines
        .map(|line| {
            assert!(!line.contains(char::is_whitespace), "{file}: {line:?}: the shell splits it");
            let (key, value) = line.split_once('=').unwrap_or_else(|| panic!("{file}: {line:?}"));
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// `parameter-overrides.txt`, as `--parameter-overrides $(cat …)` passes it (no comments).
fn overrides() -> BTreeMap<String, String> {
    key_values("parameter-overrides.txt", false)
}

/// `infra/localstack/env.json`: variables by function logical id, or `Parameters` for all.
fn env_file() -> BTreeMap<String, BTreeMap<String, String>> {
    serde_json::from_str(&text("infra/localstack/env.json")).expect("env.json: strings only")
}

#[test]
fn the_parameter_overrides_are_declared_pass_their_constraints_and_set_the_endpoints() {
    let template = template();
    let overrides = overrides();
    let parameters = Parameters::resolve(&template, &overrides).expect("valid overrides");
    assert_eq!(parameters.get("Embedder"), Some("local"), "LocalStack has no Bedrock");
    let globals = &template.document()["Globals"]["Function"]["Environment"]["Variables"];
    for (variable, parameter) in ENDPOINTS {
        assert_eq!(globals[variable]["Ref"], parameter, "Globals: {variable}: !Ref {parameter}");
        let declared = &template.document()["Parameters"][parameter];
        assert_eq!(declared["Default"], "", "{parameter}: empty keeps the SDK's endpoints");
        let given = overrides.get(parameter).map(String::as_str);
        if parameter == "BedrockEndpoint" {
            assert_eq!(given, None, "the local embedder needs no Bedrock");
        } else {
            assert!(given.is_some_and(|url| url.starts_with("http")), "{parameter}: {given:?}");
        }
    }
}

#[test]
fn the_env_file_sets_only_variables_the_template_declares_for_each_function() {
    let functions = template().functions().expect("functions");
    for (key, variables) in env_file() {
        let targets: Vec<_> = if key == "Parameters" {
            functions.iter().collect()
        } else {
            let function = functions.iter().find(|f| f.logical_id == key);
            vec![function.unwrap_or_else(|| panic!("env.json: {key} is no function"))]
        };
        for variable in variables.keys() {
            for function in &targets {
                assert!(
                    function.environment.contains_key(variable),
                    "env.json {key}.{variable}: {} declares no such variable",
                    function.logical_id
                );
            }
        }
    }
}

/// Whether `value` refers to a resource of the template (`Ref` of a resource, `GetAtt`,
/// `${Resource}` in `Sub`), which `sam local` cannot resolve to the real thing.
fn refers_to_a_resource(template: &Template, value: &Value) -> bool {
    let is_resource =
        |name: &str| template.resource(name.split('.').next().unwrap_or(name)).is_some();
    let Value::Object(map) = value else {
        let items = value.as_array().into_iter().flatten();
        return items.into_iter().any(|item| refers_to_a_resource(template, item));
    };
    if let Some(Value::String(name)) = map.get("Ref") {
        return is_resource(name);
    }
    if map.contains_key("Fn::GetAtt") {
        return true;
    }
    if let Some(sub) = map.get("Fn::Sub") {
        let text = sub.as_str().or_else(|| sub[0].as_str()).unwrap_or_default();
        let names = text.split("${").skip(1).filter_map(|rest| rest.split('}').next());
        if names.into_iter().any(is_resource) {
            return true;
        }
    }
    map.values().any(|item| refers_to_a_resource(template, item))
}

#[test]
fn the_env_file_fills_in_every_reference_to_a_stack_resource() {
    let template = template();
    let env = env_file();
    let common = env.get("Parameters").cloned().unwrap_or_default();
    for function in template.functions().expect("functions") {
        let own = env.get(&function.logical_id).cloned().unwrap_or_default();
        for (variable, value) in &function.environment {
            if refers_to_a_resource(&template, value) {
                assert!(
                    own.contains_key(variable) || common.contains_key(variable),
                    "{}: {variable} = {value} needs a local value in env.json",
                    function.logical_id
                );
            }
        }
    }
}

/// The environment `sam local` gives each function: the env file's values (the function's own
/// first), else the template's with the overrides (a resource's `Ref` is its logical id there).
fn local_environments() -> BTreeMap<String, BTreeMap<String, String>> {
    let template = template();
    let parameters = Parameters::resolve(&template, &overrides()).expect("overrides");
    let physical: BTreeMap<String, Physical> = template
        .resources()
        .expect("resources")
        .keys()
        .map(|id| (id.clone(), Physical::new(id.clone(), &[])))
        .collect();
    let resolver =
        Resolver::new(&parameters, &template.document()["Conditions"], &physical, "local");
    let env = env_file();
    let common = env.get("Parameters").cloned().unwrap_or_default();
    let mut environments = BTreeMap::new();
    for function in template.functions().expect("functions") {
        let own = env.get(&function.logical_id).cloned().unwrap_or_default();
        let mut vars = BTreeMap::from([("AWS_LAMBDA_RUNTIME_API".into(), "127.0.0.1:9001".into())]);
        for (name, value) in &function.environment {
            let local = own.get(name).or(common.get(name)).cloned();
            vars.insert(
                name.clone(),
                local.unwrap_or_else(|| resolver.string(value).unwrap_or_default()),
            );
        }
        environments.insert(function.logical_id, vars);
    }
    environments
}

fn secret_name(source: &SecretSource) -> &str {
    match source {
        SecretSource::SecretsManager(id) => id,
        other => panic!("{other:?} is not a Secrets Manager secret"),
    }
}

#[test]
fn every_function_is_configured_for_the_resources_the_init_script_creates() {
    let overrides = overrides();
    let endpoint = |parameter: &str| overrides.get(parameter).cloned();
    let table = named("table.json", "TableName");
    let queue = named("events-queue.json", "QueueName");
    let bucket = named("uploads-bucket.json", "Bucket");
    let jwt_secret = named("jwt-secret.json", "Name");
    let admin_secret = named("admin-password-secret.json", "Name");
    for (function, vars) in local_environments() {
        let config = Config::from_lookup(|name| vars.get(name).cloned())
            .unwrap_or_else(|e| panic!("{function}: {e:#}"));
        let declares = |name: &str| vars.contains_key(name);
        assert_eq!(config.store, StoreKind::DynamoDb, "{function}");
        assert_eq!(config.table_name, table, "{function}");
        assert_eq!(config.dynamodb_endpoint, endpoint("DynamoDbEndpoint"), "{function}");
        assert_eq!(config.s3_endpoint, endpoint("S3Endpoint"), "{function}");
        assert_eq!(config.sqs_endpoint, endpoint("SqsEndpoint"), "{function}");
        let secrets = endpoint("SecretsManagerEndpoint");
        assert_eq!(config.secretsmanager_endpoint, secrets, "{function}");
        assert_eq!(config.bedrock_endpoint, None, "{function}");
        assert_eq!(secret_name(&config.jwt_secret), jwt_secret, "{function}");
        if declares("BLOG_EVENTS_QUEUE_URL") {
            let url = config.events_queue_url.unwrap_or_else(|| panic!("{function}: no queue"));
            assert!(url.ends_with(&format!(":4566/000000000000/{queue}")), "{function}: {url}");
        }
        if declares("BLOG_BUCKET_NAME") {
            assert_eq!(config.bucket_name.as_deref(), Some(bucket.as_str()), "{function}");
        }
        if declares("BLOG_ADMIN_PASSWORD_ARN") {
            let admin = config.admin.unwrap_or_else(|| panic!("{function}: no administrator"));
            assert_eq!(secret_name(&admin.password), admin_secret);
            assert_eq!(Some(&admin.username), overrides.get("AdminUsername"));
        }
        if declares("BLOG_EMBEDDER") {
            assert_eq!(config.embedder, EmbedderKind::Local, "{function}");
        }
    }
}

#[test]
fn the_init_script_creates_a_local_twin_of_each_resource_the_functions_use() {
    let template = template();
    let kinds = [
        "AWS::DynamoDB::Table",
        "AWS::SQS::Queue",
        "AWS::S3::Bucket",
        "AWS::SecretsManager::Secret",
    ];
    for kind in kinds {
        let declared: BTreeSet<String> = template
            .resources_of_type(kind)
            .expect("resources")
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let twins: BTreeSet<String> = LOCALSTACK_RESOURCES
            .iter()
            .filter(|(_, id)| template.resource(id).is_some_and(|r| r["Type"] == kind))
            .map(|(_, id)| id.to_string())
            .collect();
        assert_eq!(declared, twins, "{kind}: every one needs a file in resources/");
    }
    let script = text("infra/localstack/ready.d/create-resources.sh");
    let files: BTreeSet<String> = std::fs::read_dir(path("infra/localstack/resources"))
        .expect("resources/")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    let known: BTreeSet<String> =
        LOCALSTACK_RESOURCES.iter().map(|(file, _)| file.to_string()).collect();
    assert_eq!(files, known, "resources/ holds exactly the files this test checks");
    for file in &files {
        assert!(script.contains(&format!(" {file}")), "the init script never creates {file}");
    }
}

#[test]
fn the_table_is_the_templates_blog_table() {
    let template = template();
    let declared = properties(&template, "BlogTable");
    let local = resource("table.json");
    let ttl = resource("table-ttl.json");
    assert_eq!(ttl["TableName"], local["TableName"]);
    for (key, value) in declared.as_object().expect("properties") {
        match key.as_str() {
            "TimeToLiveSpecification" => assert_eq!(&ttl[key], value, "TTL attribute"),
            key if NOT_REPRODUCED.contains(&key) => {}
            _ => assert_eq!(&local[key], value, "BlogTable.{key}"),
        }
    }
    for key in local.as_object().expect("table.json").keys() {
        assert!(key == "TableName" || declared.get(key).is_some(), "{key} is not the template's");
    }
}

/// A scalar as the SQS API takes it: a string.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A queue's request file against its template resource: every property as an attribute of
/// the same value, the redrive policy's target being the dead-letter queue's file.
fn check_queue(template: &Template, logical_id: &str, file: &str) {
    let declared = properties(template, logical_id);
    let local = resource(file);
    let attributes = local["Attributes"].as_object().expect("Attributes");
    for (key, value) in declared.as_object().expect("properties") {
        let given = attributes.get(key).unwrap_or_else(|| panic!("{file}: no {key}"));
        let given = given.as_str().expect("attribute values are strings");
        if key == "RedrivePolicy" {
            let policy: Value = serde_json::from_str(given).expect("RedrivePolicy is JSON");
            let count = scalar(&policy["maxReceiveCount"]);
            assert_eq!(count, scalar(&value["maxReceiveCount"]), "{file}: maxReceiveCount");
            let target = value["deadLetterTargetArn"]["Fn::GetAtt"][0].as_str().expect("GetAtt");
            let (twin, _) = LOCALSTACK_RESOURCES
                .iter()
                .find(|(_, id)| *id == target)
                .unwrap_or_else(|| panic!("no file for {target}"));
            let name = named(twin, "QueueName");
            let arn = str_of(&policy, "deadLetterTargetArn");
            assert_eq!(arn, format!("arn:aws:sqs:us-east-1:000000000000:{name}"), "{file}");
        } else {
            assert_eq!(given, scalar(value), "{file}: {key}");
        }
    }
    for key in attributes.keys() {
        assert!(declared.get(key).is_some(), "{file}: {key} is not in {logical_id}");
    }
}

#[test]
fn the_queues_have_the_templates_attributes_and_redrive_policy() {
    let template = template();
    check_queue(&template, "EventsDeadLetterQueue", "events-dead-letter-queue.json");
    check_queue(&template, "EventsQueue", "events-queue.json");
}

#[test]
fn compose_mounts_what_the_init_script_reads_on_the_network_the_endpoints_name() {
    let compose: Value =
        serde_yaml_ng::from_str(&text("infra/localstack/compose.yaml")).expect("compose.yaml");
    let service = &compose["services"]["localstack"];
    let image = str_of(service, "image");
    let version = image.strip_prefix("localstack/localstack:").expect("LocalStack's image");
    assert!(version.split('.').all(|n| n.parse::<u32>().is_ok()), "pinned exactly: {image}");
    let volumes: Vec<&str> =
        service["volumes"].as_array().expect("volumes").iter().filter_map(Value::as_str).collect();
    let script = text("infra/localstack/ready.d/create-resources.sh");
    let mounted = |local: &str| {
        let volume = volumes.iter().find(|v| v.starts_with(&format!("{local}:"))).expect(local);
        volume.split(':').nth(1).expect("a container path").to_string()
    };
    assert_eq!(mounted("./ready.d"), "/etc/localstack/init/ready.d");
    // The Docker-free runtime (`make localstack`) points the script elsewhere; by default it
    // reads where compose mounts the files.
    let default = format!("resources=${{BLOG_LOCALSTACK_RESOURCES:-{}}}\n", mounted("./resources"));
    assert!(script.contains(&default), "{default}");
    let aliases = &service["networks"]["default"]["aliases"];
    for (parameter, url) in overrides().iter().filter(|(k, _)| k.ends_with("Endpoint")) {
        let host = url.split("://").nth(1).and_then(|rest| rest.split(':').next()).unwrap();
        assert!(
            aliases.as_array().is_some_and(|a| a.iter().any(|alias| alias == host)),
            "{parameter}: function containers resolve {host} only as LocalStack's alias"
        );
    }
}

#[test]
fn the_gateway_env_serves_on_the_same_table_and_bucket() {
    let vars = key_values("gateway.env", true);
    let config = Config::from_lookup(|name| vars.get(name).cloned()).expect("gateway config");
    assert_eq!(config.store, StoreKind::DynamoDb);
    assert_eq!(config.table_name, named("table.json", "TableName"));
    let bucket = named("uploads-bucket.json", "Bucket");
    assert_eq!(config.bucket_name, Some(bucket));
    assert!(config.dynamodb_endpoint.is_some() && config.s3_endpoint.is_some());
}
