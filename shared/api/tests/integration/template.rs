//! The SAM template agrees with the code: every HTTP API route has a sample event under
//! `events/` and every sample's route is in the template (the replay test runs the samples
//! through the routers), every function is a workspace crate `sam build` builds, the
//! CloudWatch dashboard charts only metrics the functions' Embedded Metric Format lines define,
//! and the local CORS policy allows and exposes the headers the HTTP API's does.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    time::Duration,
};

use blog_api::telemetry::emf;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn template() -> String {
    std::fs::read_to_string(root().join("template.yaml")).expect("template.yaml")
}

/// The value of `key:` on a line, when the line holds that key.
fn value_of<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.trim().strip_prefix(key)?.strip_prefix(':').map(|v| v.trim().trim_matches('"'))
}

/// `METHOD /path` of every HttpApi event with a path, and whether an event without one (the
/// `$default` route) exists.
fn template_routes(template: &str) -> (BTreeSet<String>, bool) {
    let lines: Vec<&str> = template.lines().collect();
    let mut routes = BTreeSet::new();
    let mut default_route = false;
    for (i, line) in lines.iter().enumerate() {
        if value_of(line, "Type") != Some("HttpApi") {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let event: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() >= indent)
            .copied()
            .collect();
        let method = event.iter().find_map(|l| value_of(l, "Method"));
        let path = event.iter().find_map(|l| value_of(l, "Path"));
        match (method, path) {
            (Some(method), Some(path)) => {
                routes.insert(format!("{} {path}", method.to_uppercase()));
            }
            (None, None) => default_route = true,
            other => panic!("an HttpApi event with only one of Method and Path: {other:?}"),
        }
    }
    (routes, default_route)
}

/// `routeKey` of every API Gateway sample event (the worker's are SQS events, the outbox
/// sweep's a schedule's).
fn sample_routes() -> BTreeSet<String> {
    let mut routes = BTreeSet::new();
    for area in std::fs::read_dir(root().join("events")).unwrap() {
        let area = area.unwrap().path();
        if !area.is_dir() || area.ends_with("worker") || area.ends_with("outbox-sweep") {
            continue;
        }
        for file in std::fs::read_dir(&area).unwrap() {
            let file = file.unwrap().path();
            let event: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let key = event["routeKey"].as_str().expect("routeKey").to_string();
            assert_eq!(event["requestContext"]["routeKey"], key.as_str(), "{}", file.display());
            routes.insert(key);
        }
    }
    routes
}

#[test]
fn every_route_of_the_template_has_a_sample_event_and_every_sample_a_route() {
    let (routes, default_route) = template_routes(&template());
    assert!(default_route, "the $default route sends unmatched paths to a function");
    let samples = sample_routes();
    let without_sample: Vec<_> = routes.difference(&samples).collect();
    assert!(without_sample.is_empty(), "template routes without a sample: {without_sample:?}");
    let unrouted: Vec<_> =
        samples.iter().filter(|s| *s != "$default" && !routes.contains(*s)).collect();
    assert!(unrouted.is_empty(), "samples of routes the template lacks: {unrouted:?}");
}

#[test]
fn every_function_is_a_workspace_crate_that_sam_build_builds_with_cargo_lambda() {
    let template = template();
    let crates: Vec<&str> = template
        .lines()
        .filter_map(|line| value_of(line, "CodeUri"))
        .map(|uri| {
            uri.strip_prefix("functions/").expect("a crate of functions/").trim_end_matches('/')
        })
        .collect();
    let binaries: Vec<&str> =
        template.lines().filter_map(|line| value_of(line, "Binary")).collect();
    assert_eq!(crates, binaries, "each function's BuildProperties.Binary is its crate");
    let methods =
        template.lines().filter(|l| value_of(l, "BuildMethod") == Some("rust-cargolambda"));
    assert_eq!(methods.count(), crates.len(), "every function builds with cargo-lambda");
    let build = std::fs::read_to_string(root().join("infra/package/build.sh")).unwrap();
    let built = build.lines().find_map(|l| l.strip_prefix("ALL_FUNCTIONS=")).unwrap();
    let built: BTreeSet<&str> = built.trim_matches('"').split(' ').collect();
    assert_eq!(crates.iter().copied().collect::<BTreeSet<_>>(), built, "template vs build.sh");
    assert_eq!(crates.len(), built.len(), "one function per crate");
    for binary in crates {
        let manifest = root().join("functions").join(binary).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&manifest).expect(binary);
        assert!(manifest.contains(&format!("name = \"{binary}\"")), "{binary}");
    }
}

/// Metric names the EMF lines of an HTTP function and of the worker declare.
fn emf_metrics() -> BTreeSet<String> {
    let lines = [
        emf::request_line("auth", "GET", "/x", 500, Duration::from_millis(3), true),
        emf::worker_line("worker", 1, 1, true),
        emf::sweep_line("outbox-sweep", 1, true),
    ];
    let mut names = BTreeSet::new();
    for line in lines {
        let document: Value = serde_json::from_str(&line).unwrap();
        let directive = &document["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], emf::NAMESPACE);
        assert_eq!(directive["Dimensions"], serde_json::json!([["function"]]));
        for metric in directive["Metrics"].as_array().unwrap() {
            names.insert(metric["Name"].as_str().unwrap().to_string());
        }
    }
    names
}

#[test]
fn the_dashboard_charts_only_metrics_the_functions_emit() {
    let template = template();
    let body = &template[template.find("DashboardBody").expect("a dashboard")..];
    let mut charted = BTreeSet::new();
    for (marker, end) in [("MetricName=\\\"", '\\'), ("[\"Blog\", \"", '"')] {
        for (at, _) in body.match_indices(marker) {
            let name: String =
                body[at + marker.len()..].chars().take_while(|c| *c != end).collect();
            if marker.starts_with('[') || body[..at].ends_with("{Blog,function} ") {
                charted.insert(name);
            }
        }
    }
    let emitted = emf_metrics();
    let expected = [
        "requests",
        "errors",
        "latency",
        "coldStart",
        "eventsProcessed",
        "eventsFailed",
        "eventsResent",
    ];
    for name in expected {
        assert!(charted.contains(name), "the dashboard charts {name}: {charted:?}");
    }
    let unknown: Vec<_> = charted.difference(&emitted).collect();
    assert!(unknown.is_empty(), "charted but never emitted: {unknown:?} (emitted: {emitted:?})");
}

/// Logical ids of the resources of `kind` (the key line above each `Type: <kind>`).
fn resources_of_type(template: &str, kind: &str) -> Vec<String> {
    let lines: Vec<&str> = template.lines().collect();
    lines
        .windows(2)
        .filter(|pair| value_of(pair[1], "Type") == Some(kind))
        .filter_map(|pair| pair[0].trim().strip_suffix(':').map(str::to_string))
        .collect()
}

#[test]
fn every_alarm_is_on_the_dashboard_and_every_function_has_its_alarms() {
    let template = template();
    let body = &template[template.find("DashboardBody").expect("a dashboard")..];
    let alarms = resources_of_type(&template, "AWS::CloudWatch::Alarm");
    assert!(alarms.len() > 20, "{alarms:?}");
    for alarm in &alarms {
        assert!(body.contains(&format!("${{{alarm}.Arn}}")), "{alarm} is not on the dashboard");
    }
    for function in resources_of_type(&template, "AWS::Serverless::Function") {
        assert!(alarms.contains(&format!("{function}ThrottlesAlarm")), "{function}: throttles");
        let errors = format!("{function}ErrorsAlarm");
        let sweep =
            function == "OutboxSweepFunction" && alarms.contains(&"OutboxSweepErrorsAlarm".into());
        assert!(alarms.contains(&errors) || sweep, "{function}: errors");
    }
}

#[test]
fn the_saved_queries_of_function_logs_read_every_function_log_group() {
    let template = template();
    let start = template.find("LogGroupNames: &functionLogGroups").expect("the shared list");
    let list: Vec<&str> = template[start..]
        .lines()
        .skip(1)
        .take_while(|line| line.trim_start().starts_with("- "))
        .filter_map(|line| line.trim().strip_prefix("- !Ref "))
        .collect();
    let functions = resources_of_type(&template, "AWS::Serverless::Function");
    assert!(functions.len() > 10, "{functions:?}");
    for function in functions {
        let group = format!("{function}LogGroup");
        assert!(list.contains(&group.as_str()), "{group} is missing from the saved queries");
    }
}

/// The lines of resource `name` (its block of the template).
fn resource<'a>(template: &'a str, name: &str) -> Vec<&'a str> {
    let header = format!("  {name}:");
    template
        .lines()
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| line.is_empty() || line.starts_with("   "))
        .collect()
}

#[test]
fn the_sweep_looks_ahead_its_schedule_s_period_and_its_timeout_leaves_room_for_the_work() {
    let template = template();
    let sweep = resource(&template, "OutboxSweepFunction");
    let find = |key: &str| sweep.iter().find_map(|line| value_of(line, key)).expect(key);
    let rate = find("ScheduleExpression");
    let minutes: u64 = rate
        .strip_prefix("rate(")
        .and_then(|r| r.strip_suffix(" minute)").or_else(|| r.strip_suffix(" minutes)")))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a rate in minutes: {rate}"));
    let period: u64 = find("BLOG_SCHEDULE_PERIOD_SECONDS").parse().unwrap();
    let timeout: u64 = find("Timeout").parse().unwrap();
    assert_eq!(period, minutes * 60, "each run publishes what falls due before the next one");
    assert!(timeout >= period + 20, "a run that waits its period still finishes: {timeout}");
    let config = blog_api::config::Config::from_lookup(|name| {
        (name == "BLOG_SCHEDULE_PERIOD_SECONDS").then(|| period.to_string())
    })
    .unwrap();
    assert_eq!(config.schedule_period, Duration::from_secs(period));
}

#[test]
fn the_sdk_clients_trust_the_roots_the_template_parameter_names() {
    let template = template();
    assert!(template.contains("BLOG_AWS_TRUST_STORE: !Ref TrustStore"));
    assert!(template.contains("AllowedValues: [aws, system]"));
    let config = |value: &str| {
        blog_api::config::Config::from_lookup(|name| {
            (name == "BLOG_AWS_TRUST_STORE").then(|| value.to_string())
        })
    };
    assert!(config("aws").is_ok() && config("system").is_ok(), "both values parse");
}

#[test]
fn the_documents_base_url_is_the_api_base_url_parameter_else_the_site_url() {
    let template = template();
    let articles = resource(&template, "ArticlesFunction");
    let variable = articles.iter().find_map(|line| value_of(line, "BLOG_PUBLIC_BASE_URL"));
    assert_eq!(variable, Some("!If [HasApiBaseUrl, !Ref ApiBaseUrl, !Ref SiteUrl]"));
    assert!(template.contains("  HasApiBaseUrl: !Not [!Equals [!Ref ApiBaseUrl, \"\"]]"));
    let parameter = resource(&template, "ApiBaseUrl");
    let find = |key: &str| parameter.iter().find_map(|line| value_of(line, key)).expect(key);
    assert_eq!(find("Default"), "");
    // CloudFormation refuses what the function would refuse at start, and lets the rest pass.
    let pattern = regex::Regex::new(&find("AllowedPattern").replace("\\\\", "\\")).unwrap();
    let config = |value: &str| {
        blog_api::config::Config::from_lookup(|name| {
            (name == "BLOG_PUBLIC_BASE_URL").then(|| value.to_string())
        })
    };
    let good = ["https://api.blog.example.com", "http://127.0.0.1:8080/", "https://h.example/api"];
    for value in good {
        assert!(pattern.is_match(value) && config(value).is_ok(), "{value}");
    }
    assert!(pattern.is_match(""), "empty: SiteUrl");
    for value in ["api.example.com", "ftp://h.example", "https://h.example/?a=1", "https://u@h"] {
        assert!(!pattern.is_match(value) && config(value).is_err(), "{value}");
    }
}

/// The HttpApi route events of every function, generated from the areas it serves: one event
/// per endpoint, named after its `operationId`, in the areas' order.
fn route_events(function: &blog_api::api::Function) -> String {
    let mut events = String::new();
    for area in function.areas {
        for (path, item) in area.api().paths.paths {
            let item = serde_json::to_value(item).expect("a path item serialises");
            for method in ["get", "put", "post", "delete", "patch"] {
                let Some(operation) = item.get(method) else { continue };
                let id = operation["operationId"].as_str().expect("an operationId");
                let name = id[..1].to_uppercase() + &id[1..];
                let method = method.to_uppercase();
                events += &format!(
                    "        {name}:\n          Type: HttpApi\n          Properties:\n            \
                     ApiId: !Ref HttpApi\n            Method: {method}\n            Path: \
                     {path}\n            PayloadFormatVersion: \"2.0\"\n"
                );
            }
        }
    }
    events
}

/// The template with each HTTP function's route events replaced by the generated ones (its
/// other events, such as the `$default` route, kept after them).
fn with_generated_routes(template: &str) -> String {
    let lines: Vec<&str> = template.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut function: Option<&blog_api::api::Function> = None;
    while i < lines.len() {
        let line = lines[i];
        if let Some(uri) = value_of(line, "CodeUri") {
            let name = uri.trim_start_matches("functions/").trim_end_matches('/');
            function = blog_api::api::FUNCTIONS.into_iter().find(|f| f.name == name);
        }
        out += line;
        out.push('\n');
        i += 1;
        let Some(current) = function.filter(|_| line == "      Events:") else { continue };
        // The events: chunks of comment lines, a key at 8 spaces and its deeper lines.
        let mut kept = String::new();
        while i < lines.len()
            && (lines[i].starts_with("         ") || lines[i].starts_with("        "))
        {
            let start = i;
            while lines[i].trim_start().starts_with('#') {
                i += 1;
            }
            i += 1;
            while i < lines.len() && lines[i].starts_with("          ") {
                i += 1;
            }
            let chunk = &lines[start..i];
            let routed = chunk.iter().any(|l| value_of(l, "Type") == Some("HttpApi"))
                && chunk.iter().any(|l| value_of(l, "Path").is_some());
            if !routed {
                chunk.iter().for_each(|l| kept = kept.clone() + l + "\n");
            }
        }
        out += &route_events(current);
        out += &kept;
        function = None;
    }
    out
}

#[test]
fn each_function_is_routed_exactly_the_endpoints_of_its_areas() {
    let template = template();
    let generated = with_generated_routes(&template);
    if std::env::var_os("BLOG_WRITE_TEMPLATE").is_some() {
        std::fs::write(root().join("template.yaml"), &generated).expect("template.yaml");
        return;
    }
    if template != generated {
        let line = template.lines().zip(generated.lines()).position(|(a, b)| a != b);
        panic!(
            "template.yaml routes differ from the areas the functions serve (first at line {}): \
             regenerate them with `make routes` and commit template.yaml",
            line.map_or(0, |line| line + 1)
        );
    }
}

#[test]
fn every_endpoint_of_every_area_has_a_sample_event() {
    let samples = sample_routes();
    for function in blog_api::api::FUNCTIONS {
        for area in function.areas {
            for (method, path) in area.routes() {
                let key = format!("{method} {path}");
                assert!(
                    samples.contains(&key),
                    "{key} ({}) has no sample under events/",
                    area.name
                );
            }
        }
    }
}

/// The items of the first list `key:` of `block` (comments skipped).
fn list_after(block: &str, key: &str) -> BTreeSet<String> {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut lines = block.lines().skip_while(|line| !line.trim().starts_with(&format!("{key}:")));
    let own = indent(lines.next().unwrap_or_else(|| panic!("no {key}")));
    lines
        .filter(|line| !line.trim().starts_with('#'))
        .take_while(|line| indent(line) > own || line.trim().starts_with("- "))
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The header names of `value` (comma-separated), lower case.
fn names(value: Option<&axum::http::HeaderValue>) -> BTreeSet<String> {
    let text = value.map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    text.split(',').map(|n| n.trim().to_ascii_lowercase()).filter(|n| !n.is_empty()).collect()
}

#[tokio::test]
async fn the_local_cors_policy_allows_and_exposes_the_headers_the_http_api_does() {
    use axum::{body::Body, http::Request, routing::get, Router};
    use tower::ServiceExt;

    let template = template();
    let api = &template[template.find("Type: AWS::Serverless::HttpApi").expect("the HTTP API")..];
    let cors = &api[api.find("      CorsConfiguration:").expect("its CORS")..];
    let (allowed, exposed) = (list_after(cors, "AllowHeaders"), list_after(cors, "ExposeHeaders"));
    assert!(
        allowed.contains("if-none-match") && exposed.contains("etag"),
        "{allowed:?} {exposed:?}"
    );

    let router = blog_api::http::cors::apply(Router::new().route("/x", get(|| async { "x" })));
    let preflight = Request::options("/x")
        .header("origin", "https://blog.example")
        .header("access-control-request-method", "GET")
        .body(Body::empty())
        .unwrap();
    let answer = router.clone().oneshot(preflight).await.unwrap();
    assert_eq!(names(answer.headers().get("access-control-allow-headers")), allowed);
    let simple =
        Request::get("/x").header("origin", "https://blog.example").body(Body::empty()).unwrap();
    let answer = router.oneshot(simple).await.unwrap();
    assert_eq!(names(answer.headers().get("access-control-expose-headers")), exposed);
}
