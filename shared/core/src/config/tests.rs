//! Reading the configuration.

use super::*;
use std::collections::HashMap;

fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
    let map: HashMap<String, String> =
        vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Config::from_lookup(|name| map.get(name).cloned())
}

#[test]
fn defaults_serve_the_embedded_store_on_port_3000() {
    let config = config(&[]).unwrap();
    assert_eq!(config.store, StoreKind::Embedded);
    assert_eq!(config.listen.to_string(), "127.0.0.1:3000");
    assert_eq!(config.token_ttl, Duration::from_secs(7200));
    assert!(matches!(config.jwt_secret, SecretSource::Generated));
    assert!(config.admin.is_none());
}

#[test]
fn uploads_default_to_15_minute_urls_and_the_api_base_url_to_the_gateway_address() {
    let defaults = config(&[("BLOG_PORT", "8080")]).unwrap();
    assert_eq!(defaults.upload_url_ttl, Duration::from_secs(900));
    assert_eq!(defaults.public_base_url, "http://127.0.0.1:8080");
    assert!(!defaults.in_lambda && defaults.bucket_name.is_none());
    let api = config(&[("BLOG_PUBLIC_BASE_URL", "https://api.blog.example.com/")]).unwrap();
    assert_eq!(api.public_base_url, "https://api.blog.example.com", "no trailing /");
    for bad in ["api.blog.example.com", "ftp://h.example", "https://h.example/?a=1", "http://u@h"] {
        let error = config(&[("BLOG_PUBLIC_BASE_URL", bad)]).expect_err(bad).to_string();
        assert!(error.contains("BLOG_PUBLIC_BASE_URL"), "{error}");
    }
    let short = config(&[("BLOG_UPLOAD_URL_MINUTES", "5")]).unwrap();
    assert_eq!(short.upload_url_ttl, Duration::from_secs(300));
    assert!(config(&[("BLOG_UPLOAD_URL_MINUTES", "0")]).is_err());
}

#[test]
fn inside_lambda_the_store_is_dynamodb_and_an_embedded_one_is_refused() {
    let lambda = [("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")];
    assert_eq!(config(&lambda).unwrap().store, StoreKind::DynamoDb);
    let told = config(&[lambda[0], ("BLOG_STORE", "dynamodb")]).unwrap();
    assert_eq!(told.store, StoreKind::DynamoDb);
    let error = config(&[lambda[0], ("BLOG_STORE", "embedded")]).unwrap_err().to_string();
    assert!(error.starts_with("BLOG_STORE=embedded") && error.ends_with("set it to dynamodb"));
    assert_eq!(config(&[]).unwrap().store, StoreKind::Embedded, "outside Lambda");
}

#[test]
fn metrics_stay_in_process_locally_and_go_to_the_table_in_lambda() {
    assert_eq!(config(&[]).unwrap().metrics_store, MetricsStore::Process);
    let lambda = config(&[("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")]).unwrap();
    assert_eq!(lambda.metrics_store, MetricsStore::Table);
    assert!(config(&[("BLOG_METRICS_STORE", "cloud")]).is_err());
    assert!(config(&[("BLOG_ACTUATOR_TOKEN", "short")]).is_err());
}

#[test]
fn only_provisioned_and_snap_start_environments_count_as_initialised_ahead() {
    let kind = |value| config(&[("AWS_LAMBDA_INITIALIZATION_TYPE", value)]).unwrap();
    assert!(!config(&[]).unwrap().initialized_ahead);
    assert!(!kind("on-demand").initialized_ahead);
    assert!(kind("provisioned-concurrency").initialized_ahead);
    assert!(kind("snap-start").initialized_ahead);
}

#[test]
fn the_sdk_trusts_the_system_roots_unless_told_aws() {
    assert_eq!(config(&[]).unwrap().aws_trust_store, TrustStore::System);
    let aws = config(&[("BLOG_AWS_TRUST_STORE", "aws")]).unwrap();
    assert_eq!(aws.aws_trust_store, TrustStore::Aws);
    let err = config(&[("BLOG_AWS_TRUST_STORE", "amazon")]).unwrap_err().to_string();
    assert!(err.contains("BLOG_AWS_TRUST_STORE"), "{err}");
}

#[test]
fn endpoint_overrides_are_read_and_empty_ones_are_unset() {
    let endpoints = |config: &Config| {
        [
            config.dynamodb_endpoint.clone(),
            config.s3_endpoint.clone(),
            config.sqs_endpoint.clone(),
            config.secretsmanager_endpoint.clone(),
            config.bedrock_endpoint.clone(),
        ]
    };
    let names = [
        "BLOG_DYNAMODB_ENDPOINT",
        "BLOG_S3_ENDPOINT",
        "BLOG_SQS_ENDPOINT",
        "BLOG_SECRETSMANAGER_ENDPOINT",
        "BLOG_BEDROCK_ENDPOINT",
    ];
    let given: Vec<(&str, &str)> = names.iter().map(|n| (*n, "http://localstack:4566")).collect();
    let set = config(&given).unwrap();
    assert_eq!(endpoints(&set), names.map(|_| Some("http://localstack:4566".to_string())));
    let empty: Vec<(&str, &str)> = names.iter().map(|n| (*n, "")).collect();
    assert_eq!(endpoints(&config(&empty).unwrap()), names.map(|_| None), "the template's default");
    assert_eq!(endpoints(&config(&[]).unwrap()), names.map(|_| None));
}

#[test]
fn a_short_jwt_secret_is_refused() {
    assert!(config(&[("BLOG_JWT_SECRET", "short")]).is_err());
}

#[test]
fn an_unparsable_number_names_the_variable() {
    let err = config(&[("BLOG_PORT", "eighty")]).unwrap_err().to_string();
    assert!(err.contains("BLOG_PORT"), "{err}");
}

#[test]
fn an_administrator_without_a_password_or_an_email_refuses_to_start() {
    let error = config(&[("BLOG_ADMIN_USERNAME", "root"), ("BLOG_ADMIN_PASSWORD", "Secret123")])
        .unwrap_err()
        .to_string();
    assert!(error.contains("BLOG_ADMIN_EMAIL"), "{error}");
    let error = config(&[("BLOG_ADMIN_USERNAME", "root"), ("BLOG_ADMIN_EMAIL", "r@x.org")])
        .unwrap_err()
        .to_string();
    assert!(error.contains("BLOG_ADMIN_PASSWORD"), "{error}");
    let secret_only = config(&[("BLOG_ADMIN_PASSWORD_ARN", "arn:aws:secretsmanager:x")]);
    assert!(secret_only.unwrap().admin.is_none(), "no user name: no administrator");
}

#[test]
fn the_admin_is_bootstrapped_only_when_all_three_variables_are_set() {
    let full = config(&[
        ("BLOG_ADMIN_USERNAME", "root"),
        ("BLOG_ADMIN_PASSWORD", "Secret123"),
        ("BLOG_ADMIN_EMAIL", "root@example.com"),
    ])
    .unwrap();
    assert_eq!(full.admin.unwrap().username, "root");
}

#[test]
fn a_webhook_needs_https_or_a_loopback_address_and_a_signing_key() {
    let with = |url: &str| config(&[("BLOG_WEBHOOK_URL", url), ("BLOG_WEBHOOK_SECRET", "key")]);
    for good in ["https://hooks.example.com/blog", "http://127.0.0.1:9000/h", "http://[::1]/h"] {
        assert!(with(good).is_ok(), "{good}");
    }
    for bad in
        ["http://hooks.example.com/blog", "ftp://127.0.0.1/h", "hooks.example.com", "https://"]
    {
        let error = with(bad).unwrap_err().to_string();
        assert!(error.contains("BLOG_WEBHOOK_URL"), "{bad}: {error}");
    }
    let unsigned = config(&[("BLOG_WEBHOOK_URL", "https://hooks.example.com/blog")]);
    assert!(unsigned.unwrap_err().to_string().contains("BLOG_WEBHOOK_SECRET"));
}

#[test]
fn an_actuator_served_beyond_loopback_needs_a_token() {
    let open = config(&[("BLOG_HOST", "0.0.0.0")]).unwrap_err().to_string();
    assert!(open.contains("BLOG_ACTUATOR_TOKEN"), "{open}");
    assert!(
        config(&[("BLOG_HOST", "0.0.0.0"), ("BLOG_ACTUATOR_TOKEN", "t0ken-t0ken-t0ken")]).is_ok()
    );
    assert!(config(&[("BLOG_HOST", "127.0.0.1")]).is_ok());
}

#[test]
fn the_configuration_shows_no_secret_in_its_debug_output() {
    let config = config(&[
        ("BLOG_JWT_SECRET", "jwt-secret-jwt-secret-jwt-secret-0123"),
        ("BLOG_ADMIN_USERNAME", "admin"),
        ("BLOG_ADMIN_PASSWORD", "admin-password-9876"),
        ("BLOG_ADMIN_EMAIL", "admin@example.com"),
        ("BLOG_ACTUATOR_TOKEN", "actuator-token-5555"),
        ("BLOG_WEBHOOK_URL", "https://hooks.example.com/blog"),
        ("BLOG_WEBHOOK_SECRET", "webhook-secret-4444"),
    ])
    .unwrap();
    let shown = format!("{config:?}");
    for secret in ["jwt-secret", "admin-password", "actuator-token", "webhook-secret"] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
}

#[test]
fn public_reads_are_fresh_for_a_minute_unless_configured() {
    assert_eq!(config(&[]).unwrap().public_cache_max_age, Duration::from_secs(60));
    let none = config(&[("BLOG_PUBLIC_CACHE_SECONDS", "0")]).unwrap();
    assert_eq!(none.public_cache_max_age, Duration::ZERO);
    assert!(config(&[("BLOG_PUBLIC_CACHE_SECONDS", "-1")]).is_err());
    assert!(config(&[("BLOG_PUBLIC_CACHE_SECONDS", "a minute")]).is_err());
}

#[test]
fn registrations_are_limited_to_ten_per_address_unless_configured() {
    assert_eq!(config(&[]).unwrap().registration_limit, 10);
    let three = config(&[("BLOG_REGISTRATION_LIMIT", "3")]).unwrap();
    assert_eq!(three.registration_limit, 3);
    for bad in ["0", "-1", "ten"] {
        let error = config(&[("BLOG_REGISTRATION_LIMIT", bad)]).unwrap_err().to_string();
        assert!(error.contains("BLOG_REGISTRATION_LIMIT"), "{error}");
    }
}

#[test]
fn the_search_index_is_checked_every_two_seconds_unless_configured_within_a_minute() {
    assert_eq!(config(&[]).unwrap().search_refresh, Duration::from_secs(2));
    let slow = config(&[("BLOG_SEARCH_REFRESH_SECONDS", "30")]).unwrap();
    assert_eq!(slow.search_refresh, Duration::from_secs(30));
    for bad in ["0", "61", "soon"] {
        assert!(config(&[("BLOG_SEARCH_REFRESH_SECONDS", bad)]).is_err(), "{bad}");
    }
}
