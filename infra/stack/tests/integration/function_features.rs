//! Each function's package enables exactly the adapters it deploys with: what its areas need
//! (the code's `Needs`) and what template.yaml gives it (a secret's ARN, the webhook); and
//! exactly the areas (blog-api's area features) whose code it runs: the crates of its areas and
//! of the cross-feature effects it takes. The stack's build unifies the functions' features
//! (and `make test`'s adds the tests'), so a function lacking an adapter would pass there and
//! fail only once deployed, and one with an area too many would build what it never runs; this
//! reads the manifests `make package` and `sam build` build each function from. (An area too
//! few does not build.)

use std::collections::BTreeSet;

use blog_api::{api::FUNCTIONS, context::AppContext, effects, setup::Needs};
use blog_stack::{template::Template, testing::workspace};

const ADAPTERS: [&str; 7] = ["dynamodb", "lambda", "secrets", "sqs", "s3", "bedrock", "webhook"];

/// The area features of the code a function runs: its areas' crates and those its effects
/// call (the articles after a taxonomy change, the comments after a rename); the event
/// functions' runners in `blog_api::lambda` run the articles' code, the worker's the comments'
/// and the files' (the variants of public images).
fn areas_of(binary: &str) -> BTreeSet<String> {
    let feature = |name: &str| name.to_string();
    match binary {
        "worker" => ["articles", "comments", "files"].map(feature).into(),
        "outbox-sweep" => ["articles"].map(feature).into(),
        http => {
            let function = FUNCTIONS
                .iter()
                .find(|function| function.name == http)
                .unwrap_or_else(|| panic!("{http} is neither an HTTP function nor an event one"));
            let mut areas: BTreeSet<String> = function
                .areas
                .iter()
                .map(|area| feature(area.crate_name().trim_start_matches("blog_")))
                .collect();
            let taking = |effect: fn(AppContext) -> AppContext| {
                std::ptr::fn_addr_eq(function.effects, effect)
            };
            if taking(effects::taxonomy) {
                areas.insert(feature("articles"));
            }
            if taking(effects::authors) {
                areas.insert(feature("comments"));
            }
            areas
        }
    }
}

/// What the functions that are not HTTP areas need (their runners in `blog_api::lambda`).
fn needs_of(binary: &str) -> Needs {
    match binary {
        "worker" => Needs::WORKER,
        "outbox-sweep" => Needs::OUTBOX_SWEEP,
        http => FUNCTIONS
            .iter()
            .find(|function| function.name == http)
            .unwrap_or_else(|| panic!("{http} is neither an HTTP function nor an event one"))
            .needs(),
    }
}

/// The features of blog-api a function's manifest enables.
fn enabled(binary: &str) -> BTreeSet<String> {
    let path = workspace().join("functions").join(binary).join("Cargo.toml");
    let manifest = std::fs::read_to_string(&path).unwrap();
    let line = manifest
        .lines()
        .find(|line| line.starts_with("blog-api"))
        .unwrap_or_else(|| panic!("{} depends on blog-api", path.display()));
    let list = line.split_once("features = [").expect("a features list").1;
    let list = list.split_once(']').expect("a closed features list").0;
    list.split(',').map(|feature| feature.trim().trim_matches('"').to_string()).collect()
}

#[test]
fn each_function_enables_the_areas_and_adapters_it_runs_and_its_template_settings_need_and_no_other(
) {
    let template = Template::load(&workspace().join("template.yaml")).expect("template.yaml");
    let functions = template.functions().unwrap();
    let deployed: BTreeSet<String> = functions.iter().map(|f| f.binary.clone()).collect();
    let crates: BTreeSet<String> = std::fs::read_dir(workspace().join("functions"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(deployed, crates, "the template deploys every function crate, and only those");
    for function in functions {
        let needs = needs_of(&function.binary);
        let variables = &function.environment;
        // The JWT key's ARN is global; a function that verifies no token never reads it.
        let other_secret = variables
            .keys()
            .any(|name| name.ends_with("_ARN") && name.as_str() != "BLOG_JWT_SECRET_ARN");
        let wanted = [
            ("dynamodb", true),
            ("lambda", true),
            ("secrets", needs.tokens || needs.actuator || other_secret),
            ("sqs", needs.events),
            ("s3", needs.blobs),
            ("bedrock", needs.embedder),
            ("webhook", variables.contains_key("BLOG_WEBHOOK_URL")),
        ];
        let wanted: BTreeSet<String> = wanted
            .into_iter()
            .filter(|(_, wanted)| *wanted)
            .map(|(feature, _)| feature.to_string())
            .collect();
        let (adapters, areas): (BTreeSet<String>, BTreeSet<String>) =
            enabled(&function.binary).into_iter().partition(|f| ADAPTERS.contains(&f.as_str()));
        let manifest = format!("functions/{}/Cargo.toml", function.binary);
        assert_eq!(adapters, wanted, "{manifest}: adapters");
        assert_eq!(areas, areas_of(&function.binary), "{manifest}: areas");
    }
}

#[test]
fn an_area_names_the_crate_of_its_handlers() {
    assert_eq!(blog_api::comments::PUBLIC.crate_name(), "blog_comments");
    assert_eq!(blog_api::ops::DOCS.crate_name(), "blog_ops");
}
