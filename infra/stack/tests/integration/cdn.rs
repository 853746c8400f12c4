//! The optional CloudFront distribution of template.yaml (`CdnEnabled`) caches exactly the
//! public reads. `make stack` does not emulate CloudFront, so every route of every area is
//! matched here against the distribution's behaviours the way CloudFront matches a request:
//! the first cache behaviour in order whose path pattern matches the path (`*` any characters,
//! `/` included; `?` exactly one; case-sensitive), else the default behaviour. A public read
//! must land on a behaviour that caches under the template's cache policy; every other route
//! on one that caches nothing and forwards every viewer header (so `Authorization`) to the API;
//! and no cache policy may key on, or forward, `Authorization`.

use blog_stack::template::Template;
use serde_json::{json, Value};

/// The public reads: the GET routes whose answers carry HTTP caching (`http::caching`), which a
/// CDN may cache. A new cached route (the feeds and the sitemap) goes here, with its behaviour
/// in template.yaml.
const CACHED: [&str; 18] = [
    "/api/v1/articles",
    "/api/v1/articles/{id}",
    "/api/v1/articles/{id}/related",
    "/api/v1/categories",
    "/api/v1/categories/tree",
    "/api/v1/categories/slug/{slug}",
    "/api/v1/tags",
    "/api/v1/tags/hot",
    "/api/v1/tags/slug/{slug}",
    "/api/v1/comments/tree",
    "/api/v1/feeds/rss.xml",
    "/api/v1/feeds/atom.xml",
    "/api/v1/feeds/categories/{slug}/rss.xml",
    "/api/v1/feeds/categories/{slug}/atom.xml",
    "/api/v1/feeds/tags/{slug}/rss.xml",
    "/api/v1/feeds/tags/{slug}/atom.xml",
    "/api/v1/sitemap.xml",
    "/api/v1/sitemaps/{file}",
];

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

#[test]
fn the_cdn_caches_exactly_the_public_reads_and_passes_every_other_route_with_its_token() {
    let template = template();
    let (config, condition) = distribution(&template);
    let cached_policy = json!({"Ref": "PublicReadsCachePolicy"});
    let mut checked = 0;
    for area in blog_shared::api::areas() {
        for (method, path) in area.routes() {
            let (pattern, behaviour) = behaviour_of(&config, &concrete(&path));
            let route = format!("{method} {path} (behaviour {pattern:?})");
            assert!(methods(&behaviour, "AllowedMethods").contains(&method), "{route}: refused");
            if method == "GET" && CACHED.contains(&path.as_str()) {
                assert_eq!(behaviour["CachePolicyId"], cached_policy, "{route} is not cached");
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
fn the_cached_routes_are_the_operations_documenting_a_304() {
    let document = serde_json::to_value(blog_shared::openapi::document()).expect("JSON");
    let mut documented: Vec<&str> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(_, item)| item["get"]["responses"].get("304").is_some())
        .map(|(path, _)| path.as_str())
        .collect();
    documented.sort_unstable();
    let mut cached = CACHED.to_vec();
    cached.sort_unstable();
    assert_eq!(documented, cached, "the CDN's list and the routes marked as public reads");
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
        assert_eq!(keys["QueryStringsConfig"]["QueryStringBehavior"], "all", "{logical_id}");
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
