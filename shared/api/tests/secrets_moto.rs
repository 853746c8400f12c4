//! The JWT secret and the administrator password come from Secrets Manager in Lambda: the
//! resolution runs against moto's Secrets Manager, through the SDK's default configuration.
#![cfg(feature = "secrets")]

use blog_api::{
    config::{SecretSource, TrustStore},
    setup::resolve_secret,
};

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn a_secret_arn_resolves_to_the_secret_string() {
    let endpoint =
        std::env::var("BLOG_TEST_SQS_ENDPOINT").expect("moto endpoint (make test sets it)");
    std::env::set_var("AWS_ENDPOINT_URL_SECRETS_MANAGER", &endpoint);
    std::env::set_var("AWS_REGION", "us-east-1");
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    let sdk = blog_api::ports::aws::sdk_config(TrustStore::System).await.unwrap();
    let client = aws_sdk_secretsmanager::Client::new(&sdk);
    let name = format!("jwt-{}", uuid::Uuid::new_v4().simple());
    let created = client
        .create_secret()
        .name(&name)
        .secret_string("a-secret-of-at-least-thirty-two-characters")
        .send()
        .await
        .expect("moto creates the secret");
    let arn = created.arn().expect("an ARN").to_string();
    let value = resolve_secret(
        &SecretSource::SecretsManager(arn),
        "BLOG_JWT_SECRET",
        TrustStore::System,
        None,
    )
    .await
    .unwrap();
    assert_eq!(value, "a-secret-of-at-least-thirty-two-characters");
    let missing = resolve_secret(
        &SecretSource::SecretsManager(format!("{name}-missing")),
        "x",
        TrustStore::System,
        None,
    )
    .await;
    assert!(missing.is_err(), "a missing secret is an error, not an empty key");
}

#[tokio::test]
#[ignore = "needs moto; make test runs it"]
async fn the_lambda_environment_alone_configures_a_working_client_on_the_amazon_roots() {
    let endpoint =
        std::env::var("BLOG_TEST_SQS_ENDPOINT").expect("moto endpoint (make test sets it)");
    let lambda_environment = [
        ("AWS_REGION", "eu-west-1"),
        ("AWS_ACCESS_KEY_ID", "ASIAEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_SESSION_TOKEN", "session"),
        ("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint.as_str()),
    ];
    let https = blog_api::ports::aws::https_client(TrustStore::Aws).unwrap();
    let sdk = blog_api::ports::aws::from_environment(
        lambda_environment.iter().map(|(k, v)| (k.to_string(), v.to_string())),
    )
    .into_builder()
    .http_client(https.expect("TrustStore::Aws has a client of its own"))
    .build();
    let client = aws_sdk_secretsmanager::Client::new(&sdk);
    let name = format!("env-{}", uuid::Uuid::new_v4().simple());
    let created =
        client.create_secret().name(&name).secret_string("from-env").send().await.unwrap();
    assert!(created.arn().unwrap().contains(":eu-west-1:"), "{created:?}");
    let read = client.get_secret_value().secret_id(&name).send().await.unwrap();
    assert_eq!(read.secret_string(), Some("from-env"));
}
