//! The optional CloudFront distribution of template.yaml (`CdnEnabled`) caches exactly the
//! public reads. `make stack` does not emulate CloudFront, so every route of every area is
//! matched here against the distribution's behaviours the way CloudFront matches a request:
//! the first cache behaviour in order whose path pattern matches the path (`*` any characters,
//! `/` included; `?` exactly one; case-sensitive), else the default behaviour. A public read
//! must land on a behaviour that caches under the template's cache policy; every other route
//! on one that caches nothing and forwards every viewer header (so `Authorization`) to the API;
//! and no cache policy may key on, or forward, `Authorization`. A cached route's cache key holds
//! exactly the query parameters its endpoint declares (`#[utoipa::path(params(...))]`, read from
//! the OpenAPI description), so an undeclared one (`?x=<random>`) neither misses the cache nor
//! reaches the API.

use std::collections::BTreeMap;

use blog_stack::template::Template;
use serde_json::{json, Value};

/// The public reads: the GET routes whose answers carry HTTP caching (`http::caching`), which a
/// CDN may cache, read from the OpenAPI description, where each documents its 304. A new
/// public read needs its behaviour in template.yaml and nothing here.
fn public_reads() -> Vec<String> {
    let document = serde_json::to_value(blog_api::openapi::document()).expect("JSON");
    let reads: Vec<String> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(_, item)| item["get"]["responses"].get("304").is_some())
        .map(|(path, _)| path.clone())
        .collect();
    assert!(reads.iter().any(|path| path == "/api/v1/articles"), "no public read in {reads:?}");
    reads
}

/// CloudFront's managed cache policy `Managed-CachingDisabled`.
const CACHING_DISABLED: &str = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
/// CloudFront's managed origin request policy `Managed-AllViewerExceptHostHeader`: every viewer
/// header (`Authorization` too), cookie and query string but `Host`.
const ALL_VIEWER_EXCEPT_HOST: &str = "b689b0a8-53d0-40ab-baf2-68738e2966ac";

fn template() -> Template {
    Template::load(&blog_stack::testing::workspace().join("template.yaml")).expect("template.yaml")
}

/// Whether CloudFront's path pattern `pattern` matches `path`.
fn matches(pattern: &str, path: &str) -> bool {
    fn go(pattern: &[u8], path: &[u8]) -> bool {
        match pattern.split_first() {
            None => path.is_empty(),
            Some((b'*', rest)) => (0..=path.len()).any(|skip| go(rest, &path[skip..])),
            Some((b'?', rest)) => !path.is_empty() && go(rest, &path[1..]),
            Some((c, rest)) => path.first() == Some(c) && go(rest, &path[1..]),
        }
    }
    // A pattern may be written without its leading slash; CloudFront reads it as the same.
    let pattern =
        if pattern.starts_with('/') { pattern.to_string() } else { format!("/{pattern}") };
    go(pattern.as_bytes(), path.as_bytes())
}

/// The distribution's configuration (with the condition it is made under).
fn distribution(template: &Template) -> (Value, Value) {
    let cdn = template.resource("Cdn").expect("a Cdn distribution in template.yaml");
    assert_eq!(cdn["Type"], "AWS::CloudFront::Distribution");
    (cdn["Properties"]["DistributionConfig"].clone(), cdn["Condition"].clone())
}

/// The behaviour CloudFront picks for `path`: its path pattern (`None`: the default) and itself.
fn behaviour_of(config: &Value, path: &str) -> (Option<String>, Value) {
    let ordered = config["CacheBehaviors"].as_array().expect("CacheBehaviors");
    for behaviour in ordered {
        let pattern = behaviour["PathPattern"].as_str().expect("PathPattern");
        if matches(pattern, path) {
            return (Some(pattern.to_string()), behaviour.clone());
        }
    }
    (None, config["DefaultCacheBehavior"].clone())
}

/// A request path of the route `path`: each `{parameter}` a sample value.
fn concrete(path: &str) -> String {
    let segments = path.split('/').map(|segment| match segment.starts_with('{') {
        true => "7",
        false => segment,
    });
    segments.collect::<Vec<_>>().join("/")
}

fn methods(behaviour: &Value, key: &str) -> Vec<String> {
    let list = behaviour[key].as_array().unwrap_or_else(|| panic!("{key} of {behaviour}"));
    list.iter().map(|m| m.as_str().expect("a method").to_string()).collect()
}

/// CloudFront's limits that bind here: query strings in a cache policy's whitelist, cache
/// behaviours of a distribution, cache policies of an account (two stacks share one).
const MAX_WHITELISTED: usize = 10;
const MAX_BEHAVIOURS: usize = 25;
const MAX_CACHE_POLICIES_PER_STACK: usize = 10;

/// The query parameters each GET route declares, by OpenAPI path (`/api/v1/...`), sorted.
fn declared_query_parameters() -> BTreeMap<String, Vec<String>> {
    let document = serde_json::to_value(blog_api::openapi::document()).expect("JSON");
    let paths = document["paths"].as_object().expect("paths");
    paths
        .iter()
        .filter_map(|(path, item)| {
            let parameters = item["get"].get("parameters").and_then(Value::as_array);
            let mut names: Vec<String> = parameters
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
                .map(|p| p["name"].as_str().expect("a parameter name").to_string())
                .collect();
            names.sort();
            item.get("get").map(|_| (path.clone(), names))
        })
        .collect()
}

/// The resource a `{"Ref": ...}` names.
fn referenced<'a>(template: &'a Template, reference: &Value) -> &'a Value {
    let name = reference["Ref"].as_str().unwrap_or_else(|| panic!("not a Ref: {reference}"));
    template.resource(name).unwrap_or_else(|| panic!("no resource {name}"))
}

/// The query strings a `QueryStringsConfig` takes: `None` for every one (`all`, `allExcept`).
fn query_strings(config: &Value) -> Option<Vec<String>> {
    match config["QueryStringBehavior"].as_str().expect("QueryStringBehavior") {
        "none" => Some(Vec::new()),
        "whitelist" => {
            let list = config["QueryStrings"].as_array().expect("QueryStrings of a whitelist");
            let mut names: Vec<String> =
                list.iter().map(|n| n.as_str().expect("a name").to_string()).collect();
            names.sort();
            Some(names)
        }
        _ => None,
    }
}

/// The cache key CloudFront makes of `path?query` under a cache policy that takes `keyed`
/// (query strings in the key, in the order of the request; the others left out).
fn cache_key(keyed: &[String], path: &str, query: &[(&str, &str)]) -> String {
    let kept: Vec<String> = query
        .iter()
        .filter(|(name, _)| keyed.iter().any(|k| k == name))
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    format!("{path}?{}", kept.join("&"))
}

#[test]
fn each_cached_route_is_keyed_on_exactly_the_query_parameters_its_endpoint_declares() {
    let template = template();
    let (config, _) = distribution(&template);
    let declared = declared_query_parameters();
    for path in &public_reads() {
        let wanted = declared.get(path).unwrap_or_else(|| panic!("{path} is not documented"));
        let (pattern, behaviour) = behaviour_of(&config, &concrete(path));
        let route = format!("GET {path} (behaviour {pattern:?})");
        let policy = referenced(&template, &behaviour["CachePolicyId"]);
        assert_eq!(policy["Type"], "AWS::CloudFront::CachePolicy", "{route}");
        let keys =
            &policy["Properties"]["CachePolicyConfig"]["ParametersInCacheKeyAndForwardedToOrigin"];
        let keyed = query_strings(&keys["QueryStringsConfig"])
            .unwrap_or_else(|| panic!("{route}: every query string is in the cache key"));
        assert_eq!(&keyed, wanted, "{route}: the cache key's query strings");
        assert!(keyed.len() <= MAX_WHITELISTED, "{route}: CloudFront whitelists 10 at most");
        let forwarding = referenced(&template, &behaviour["OriginRequestPolicyId"]);
        let forwarded = query_strings(
            &forwarding["Properties"]["OriginRequestPolicyConfig"]["QueryStringsConfig"],
        );
        assert!(
            forwarded.is_some_and(|names| names.iter().all(|n| wanted.contains(n))),
            "{route}: the origin request policy sends an undeclared query string to the API"
        );
        // An undeclared parameter leaves the key as it is; each declared one changes it.
        let values: Vec<(&str, &str)> = wanted.iter().map(|n| (n.as_str(), "1")).collect();
        let key = cache_key(&keyed, path, &values);
        let mut noisy = values.clone();
        noisy.push(("x", "8f3a9c"));
        noisy.insert(0, ("utm_source", "feed"));
        assert_eq!(cache_key(&keyed, path, &noisy), key, "{route}: ?x=<random> misses");
        for name in wanted {
            let changed: Vec<(&str, &str)> =
                values.iter().map(|(n, v)| if n == name { (*n, "2") } else { (*n, *v) }).collect();
            assert_ne!(cache_key(&keyed, path, &changed), key, "{route}: {name} is not keyed");
        }
    }
    let behaviours = config["CacheBehaviors"].as_array().expect("CacheBehaviors").len();
    assert!(behaviours <= MAX_BEHAVIOURS, "{behaviours} cache behaviours");
    let policies = template.resources_of_type("AWS::CloudFront::CachePolicy").unwrap().len();
    assert!(policies <= MAX_CACHE_POLICIES_PER_STACK, "{policies} cache policies");
}

#[test]
fn the_cache_key_keeps_only_the_keyed_query_strings() {
    let keyed = vec!["limit".to_string()];
    assert_eq!(cache_key(&keyed, "/t", &[("x", "1"), ("limit", "5")]), "/t?limit=5");
    assert_eq!(cache_key(&[], "/t", &[("x", "1")]), "/t?");
    let all = json!({"QueryStringBehavior": "all"});
    assert_eq!(query_strings(&all), None);
    let some = json!({"QueryStringBehavior": "whitelist", "QueryStrings": ["b", "a"]});
    assert_eq!(query_strings(&some), Some(vec!["a".into(), "b".into()]));
}

#[test]
fn the_cdn_caches_exactly_the_public_reads_and_passes_every_other_route_with_its_token() {
    let template = template();
    let (config, condition) = distribution(&template);
    let cached_policies: Vec<Value> = template
        .resources_of_type("AWS::CloudFront::CachePolicy")
        .unwrap()
        .into_iter()
        .map(|(logical_id, _)| template.resource(&logical_id).unwrap().clone())
        .collect();
    let public_forwarding = json!({"Ref": "PublicReadsOriginRequestPolicy"});
    let public_reads = public_reads();
    let mut checked = 0;
    for area in blog_api::api::areas() {
        for (method, path) in area.routes() {
            let (pattern, behaviour) = behaviour_of(&config, &concrete(&path));
            let route = format!("{method} {path} (behaviour {pattern:?})");
            assert!(methods(&behaviour, "AllowedMethods").contains(&method), "{route}: refused");
            if method == "GET" && public_reads.contains(&path) {
                let policy = referenced(&template, &behaviour["CachePolicyId"]);
                assert!(cached_policies.contains(policy), "{route} is not cached");
                assert_eq!(
                    behaviour["OriginRequestPolicyId"], public_forwarding,
                    "{route}: the public reads' origin request policy"
                );
                let cached = methods(&behaviour, "CachedMethods");
                assert!(cached.contains(&"GET".into()) && cached.contains(&"HEAD".into()));
            } else {
                assert_eq!(behaviour["CachePolicyId"], CACHING_DISABLED, "{route} is cached");
                assert_eq!(
                    behaviour["OriginRequestPolicyId"], ALL_VIEWER_EXCEPT_HOST,
                    "{route} must reach the API with every viewer header, its token included"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} routes");
    assert_eq!(condition, "WithCdn", "the distribution is optional");
    let enabled = &template.document()["Conditions"]["WithCdn"];
    assert_eq!(enabled, &json!({"Fn::Equals": [{"Ref": "CdnEnabled"}, "true"]}));
    assert_eq!(template.document()["Parameters"]["CdnEnabled"]["Default"], "false");
    let url = &template.document()["Outputs"]["CdnUrl"];
    assert_eq!(url["Condition"], "WithCdn", "{url}");
}

#[test]
fn no_cache_policy_keys_on_or_forwards_authorization_or_cookies() {
    let template = template();
    let policies = template.resources_of_type("AWS::CloudFront::CachePolicy").unwrap();
    assert!(!policies.is_empty(), "the public reads' cache policy");
    for (logical_id, properties) in policies {
        let config = &properties["CachePolicyConfig"];
        let keys = &config["ParametersInCacheKeyAndForwardedToOrigin"];
        let headers = &keys["HeadersConfig"];
        assert_eq!(headers["HeaderBehavior"], "whitelist", "{logical_id}");
        let names = headers["Headers"].as_array().expect("Headers");
        assert!(
            names.iter().all(|name| !name.as_str().unwrap().eq_ignore_ascii_case("authorization")),
            "{logical_id} keys on Authorization"
        );
        assert_eq!(keys["CookiesConfig"]["CookieBehavior"], "none", "{logical_id}");
        assert!(
            query_strings(&keys["QueryStringsConfig"]).is_some(),
            "{logical_id}: keyed on every query string"
        );
        assert_eq!(config["MinTTL"], 0, "{logical_id}: the origin's max-age decides");
        assert_eq!(config["DefaultTTL"], 0, "{logical_id}: no Cache-Control, not cached");
        let name = serde_json::to_string(&config["Name"]).unwrap();
        assert!(name.contains("AWS::StackName"), "{logical_id}: one name per stack");
    }
    let forwarding = template.resources_of_type("AWS::CloudFront::OriginRequestPolicy").unwrap();
    for (logical_id, properties) in forwarding {
        let config = &properties["OriginRequestPolicyConfig"];
        let names = config["HeadersConfig"]["Headers"].as_array().cloned().unwrap_or_default();
        assert!(
            names.iter().all(|name| !name.as_str().unwrap().eq_ignore_ascii_case("authorization")),
            "{logical_id} forwards Authorization to a cached read"
        );
        assert_eq!(config["CookiesConfig"]["CookieBehavior"], "none", "{logical_id}");
        let name = serde_json::to_string(&config["Name"]).unwrap();
        assert!(name.contains("AWS::StackName"), "{logical_id}: one name per stack");
    }
}

#[test]
fn path_patterns_match_as_cloudfront_matches_them() {
    assert!(matches("/api/v1/articles", "/api/v1/articles"));
    assert!(!matches("/api/v1/articles", "/api/v1/articles/7"));
    assert!(matches("/api/v1/articles/*", "/api/v1/articles/7/related"), "* crosses slashes");
    assert!(matches("/api/v1/articles/*", "/api/v1/articles/"));
    assert!(matches("/api/v1/articles/*/like", "/api/v1/articles/7/like"));
    assert!(!matches("/api/v1/articles/*/like", "/api/v1/articles/7/liked"));
    assert!(matches("/api/v1/tags/?", "/api/v1/tags/a"));
    assert!(!matches("/api/v1/tags/?", "/api/v1/tags/ab"));
    assert!(matches("api/v1/tags", "/api/v1/tags"), "the leading slash is optional");
    assert!(!matches("/api/v1/Tags", "/api/v1/tags"), "case-sensitive");
}
