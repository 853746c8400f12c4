//! The SDK clients under `BLOG_AWS_TRUST_STORE=aws` fail closed: a DynamoDB call to a TLS
//! server whose certificate no Amazon root issued is refused during the handshake, and the
//! server hears why (an unknown issuer). The server's certificate is a self-signed one for
//! `localhost` (`fixtures/not-amazon.*.pem`, made for this test only).
#![cfg(feature = "dynamodb")]

use std::{
    io::Read,
    net::TcpListener,
    sync::{mpsc, Arc},
};

use aws_sdk_dynamodb::config::retry::RetryConfig;
use blog_api::{config::TrustStore, ports::aws};
use rustls::{
    pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer},
    AlertDescription, ServerConfig, ServerConnection, StreamOwned,
};

const CERT: &[u8] = include_bytes!("fixtures/not-amazon.cert.pem");
const KEY: &[u8] = include_bytes!("fixtures/not-amazon.key.pem");

/// Serves one TLS handshake on an ephemeral port; the receiver gets how it ended.
fn one_handshake() -> (u16, mpsc::Receiver<Result<(), rustls::Error>>) {
    let certs = CertificateDer::pem_slice_iter(CERT).collect::<Result<Vec<_>, _>>().unwrap();
    let key = PrivateKeyDer::from_pem_slice(KEY).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, outcome) = mpsc::channel();
    std::thread::spawn(move || {
        let (socket, _) = listener.accept().unwrap();
        let connection = ServerConnection::new(Arc::new(config)).unwrap();
        let mut stream = StreamOwned::new(connection, socket);
        let ended = stream.read(&mut [0; 1]).map(drop).map_err(|error| {
            let inner = error.into_inner().expect("a TLS error");
            *inner.downcast::<rustls::Error>().expect("a rustls error")
        });
        let _ = sender.send(ended);
    });
    (port, outcome)
}

#[tokio::test]
async fn a_certificate_no_amazon_root_issued_is_refused() {
    let (port, outcome) = one_handshake();
    let environment = [
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_ENDPOINT_URL_DYNAMODB", &format!("https://localhost:{port}")),
    ];
    let https = aws::https_client(TrustStore::Aws).unwrap().expect("a client of its own");
    let sdk =
        aws::from_environment(environment.iter().map(|(k, v)| (k.to_string(), v.to_string())))
            .into_builder()
            .http_client(https)
            .retry_config(RetryConfig::disabled())
            .build();
    let client = aws_sdk_dynamodb::Client::new(&sdk);

    let error = client.list_tables().send().await.expect_err("the handshake must fail");

    let message = format!("{:?}", aws_sdk_dynamodb::error::DisplayErrorContext(&error));
    assert!(message.contains("UnknownIssuer"), "{message}");
    let heard = outcome.recv().unwrap().expect_err("the server sees the handshake fail");
    assert_eq!(heard, rustls::Error::AlertReceived(AlertDescription::UnknownCA));
}
